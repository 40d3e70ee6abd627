// Merchants' and operators' changes of offers: create, edit and close, each one command on the
// offer's actor, after checking who may manage the business's offers in the paying design.
import type { Unit } from '../actors/command.ts';
import { distributionSplit } from '../designs/circulation.ts';
import type { DesignRow, PlanRow } from '../designs/types.ts';
import { designById, grantsOn, livePlanOf } from '../designs/queries.ts';
import type { OffersContext } from './context.ts';
import { invalid, offerFailure, type OfferFailure } from './errors.ts';
import { checkFields } from './fields.ts';
import { offerKind } from './machine.ts';
import { paying } from './payout.ts';
import * as store from './store.ts';
import type { CreateInput, OfferCaller, OfferFields, OfferResult } from './types.ts';
import { offerJson } from './views.ts';
import { money } from '../money.ts';

type Json = Record<string, unknown>;
type Business = NonNullable<Awaited<ReturnType<OffersContext['profiles']['get']>>>;

/** Whether the caller manages offers of this business paying in this design. */
async function mayManage(ctx: OffersContext, caller: OfferCaller | 'operator', businessId: string, designId: string | null): Promise<boolean> {
  if (caller === 'operator' || caller.profileId === businessId) return true;
  if (!designId || !caller.permissions.has('edit_design')) return false;
  return (await grantsOn(ctx.sql, designId, caller.profileId)).includes('edit_design');
}

/**
 * A closed-loop caller commits no open loop cash: brand cash offers only, whose plan pays no fees
 * at distribution; the reserve its accepts need is left owed, as that token's design sends leave it.
 */
function closedLoopProblem(caller: OfferCaller | 'operator', design: DesignRow | null, plan: PlanRow | null, amount: bigint): OfferFailure | null {
  if (caller === 'operator' || !caller.closedLoopOnly) return null;
  const refusal = 'a closed-loop token makes only brand cash offers whose plan pays no open loop fees (the reserve is left owed)';
  if (!design || !plan) return offerFailure('offer_forbidden', { description: `This token may not commit open loop cash: ${refusal}.` });
  if (distributionSplit(money(design.currency, amount), plan.recipients, design.id).fees.length > 0) return invalid('distribution_plan_id', refusal);
  return null;
}

/** Whether the caller's offer leaves its accepts' reserve owed: a closed-loop token's. */
const leavesReserveOwed = (caller: OfferCaller | 'operator') => caller !== 'operator' && caller.closedLoopOnly === true;

/**
 * An offer that leaves its reserve owed takes no price: the business would keep the price while
 * the reserve its brand cash needs stayed owed, and a settler paid the redeemer later.
 */
function pricedProblem(reserveOwed: boolean, options: readonly { price: string }[]): OfferFailure | null {
  if (!reserveOwed) return null;
  const index = options.findIndex((option) => BigInt(option.price) > 0n);
  if (index < 0) return null;
  return invalid(`options.${index}.price`, 'an offer whose reserve is left owed (made or changed by a closed-loop token) takes no price: offer it free');
}

/** The gl_design a new offer pays brand cash of, with its plan named; null for open loop cash. */
async function designOfNew(ctx: OffersContext, input: CreateInput): Promise<{ ok: true; design: DesignRow | null } | OfferFailure> {
  if (input.design_id === undefined) {
    return input.distribution_plan_id !== undefined ? invalid('distribution_plan_id', 'goes with design_id') : { ok: true, design: null };
  }
  const design = /^\d{10}$/.test(input.design_id) ? await designById(ctx.sql, input.design_id) : null;
  if (!design || design.deleted_at) return invalid('design_id', 'names no design');
  if (design.design_type !== 'gl_design') return invalid('design_id', 'offers pay brand cash of a gl_design only');
  if (input.distribution_plan_id === undefined) return invalid('distribution_plan_id', 'is required with design_id');
  if (!(await livePlanOf(ctx.sql, design.id, input.distribution_plan_id))) return invalid('distribution_plan_id', 'is not a live plan of this design');
  if (input.currency !== undefined && input.currency !== design.currency) return invalid('currency', `must be the design's currency ${design.currency}`);
  return { ok: true, design };
}

/** The business a new offer belongs to: the design's issuer, the named profile or the caller. */
async function businessOfNew(ctx: OffersContext, caller: OfferCaller | 'operator', input: CreateInput, design: DesignRow | null): Promise<{ ok: true; business: Business } | OfferFailure> {
  const businessId = design?.issuer_id ?? input.profile_id ?? (caller === 'operator' ? null : caller.profileId);
  if (!businessId) return invalid('profile_id', 'is required');
  if (input.profile_id !== undefined && input.profile_id !== businessId) return invalid('profile_id', "must be the design's issuer");
  const business = await ctx.profiles.get(ctx.sql, businessId);
  if (!business) return invalid('profile_id', 'names no profile');
  if (business.isIndividual) return offerFailure('offer_forbidden', { description: 'Offers belong to businesses.' });
  if (!(await mayManage(ctx, caller, businessId, design?.id ?? null))) {
    return offerFailure('offer_forbidden', { description: "Offers are made by the business itself or by a profile with edit_design on the paying design." });
  }
  return { ok: true, business };
}

export async function create(ctx: OffersContext, caller: OfferCaller | 'operator', input: CreateInput): Promise<OfferResult<{ offer: Json }>> {
  const designed = await designOfNew(ctx, input);
  if (!designed.ok) return designed;
  const { design } = designed;
  const owned = await businessOfNew(ctx, caller, input, design);
  if (!owned.ok) return owned;
  const { business } = owned;
  const businessId = business.id;
  const currency = design?.currency ?? input.currency ?? 'USD';
  const checked = await checkFields({ ...input, options: input.options ?? [{ payment_type: 'free' }] }, currency, null);
  if (!checked.ok) return checked;
  const changes = checked.changes;
  const plan = design ? await livePlanOf(ctx.sql, design.id, input.distribution_plan_id!) : null;
  const closedLoop = closedLoopProblem(caller, design, plan, changes.amount!) ?? pricedProblem(design !== null && leavesReserveOwed(caller), changes.options!);
  if (closedLoop) return closedLoop;
  const location = changes.latitude !== undefined ? { latitude: changes.latitude!, longitude: changes.longitude! } : business.location;
  const offerId = await ctx.commands.run('offer.create', [{ kind: 'profile', id: businessId }], async (unit) => {
    const id = await unit.newShortId('offer');
    unit.create(offerKind, id, { profileId: businessId, createdAt: unit.now.toISOString() });
    await store.insertOffer(unit.tx, {
      id, profile_id: businessId, created_by: caller === 'operator' ? businessId : caller.profileId, design_id: design?.id ?? null,
      plan_id: design ? input.distribution_plan_id! : null, currency, amount: changes.amount!, title: input.title, description: changes.description ?? '',
      banner: changes.banner ?? null, metadata_image: changes.metadata_image ?? null, metadata_description: changes.metadata_description ?? '',
      require_confirmation: changes.require_confirmation ?? false, show_limit: changes.show_limit ?? 1, quantity: input.quantity, options: changes.options!,
      chain_id: changes.chain_id ?? null, latitude: location ? String(location.latitude) : null, longitude: location ? String(location.longitude) : null,
      starts_at: changes.starts_at ?? null, expires_at: changes.expires_at ?? null, reserve_owed: design !== null && leavesReserveOwed(caller),
    }, unit.now);
    return id;
  });
  return { ok: true, offer: offerJson((await store.selectOffer(ctx.sql, offerId))!) };
}

export async function edit(ctx: OffersContext, caller: OfferCaller, offerId: string, fields: OfferFields): Promise<OfferResult<{ offer: Json }>> {
  const row = /^\d{10}$/.test(offerId) ? await store.selectOffer(ctx.sql, offerId) : null;
  if (!row) return offerFailure('offer_not_found');
  if (!(await mayManage(ctx, caller, row.profile_id, row.design_id))) return offerFailure('offer_forbidden');
  const checked = await checkFields(fields, row.currency, row);
  if (!checked.ok) return checked;
  const { design, plan } = await paying(ctx, row);
  const reserveOwed = row.design_id !== null && (row.reserve_owed || leavesReserveOwed(caller));
  const closedLoop = closedLoopProblem(caller, design, plan, checked.changes.amount ?? row.amount) ?? pricedProblem(reserveOwed, checked.changes.options ?? row.options);
  if (closedLoop) return closedLoop;
  const result = await ctx.commands.run('offer.edit', [{ kind: offerKind.kind, id: offerId }], async (unit: Unit<OfferFailure>) => {
    await unit.load(offerKind, offerId);
    if (!unit.send(offerKind, offerId, { type: 'offer.edit', at: unit.now.toISOString() })) return unit.reject(offerFailure('offer_closed'));
    const changes = leavesReserveOwed(caller) && row.design_id ? { ...checked.changes, reserve_owed: true } : checked.changes;
    if (!(await store.updateOffer(unit.tx, offerId, changes, unit.now))) {
      return unit.reject(invalid('quantity', 'is below the units already accepted'));
    }
    return { ok: true as const };
  });
  if (!result.ok) return result;
  return { ok: true, offer: offerJson((await store.selectOffer(ctx.sql, offerId))!) };
}

export async function close(ctx: OffersContext, caller: OfferCaller | 'operator', offerId: string): Promise<OfferResult<{ offer: Json }>> {
  const row = /^\d{10}$/.test(offerId) ? await store.selectOffer(ctx.sql, offerId) : null;
  if (!row) return offerFailure('offer_not_found');
  if (!(await mayManage(ctx, caller, row.profile_id, row.design_id))) return offerFailure('offer_forbidden');
  const result = await ctx.commands.run('offer.close', [{ kind: offerKind.kind, id: offerId }], async (unit: Unit<OfferFailure>) => {
    await unit.load(offerKind, offerId);
    if (!unit.send(offerKind, offerId, { type: 'offer.close', at: unit.now.toISOString() })) return unit.reject(offerFailure('offer_closed'));
    await store.closeOffer(unit.tx, offerId, unit.now);
    return { ok: true as const };
  });
  if (!result.ok) return result;
  return { ok: true, offer: offerJson((await store.selectOffer(ctx.sql, offerId))!) };
}
