// Offers: a business's promise of its brand cash (through a gl_design's plan) or open loop cash to
// whoever accepts. Merchants create and edit them (the business's own token, or edit_design on the
// paying design), operators through the admin API; people find them and accept them. An accept is
// one command: the stock falls by a conditional update, the transfer (purchase_offer) is written
// and the cash moves, all in one transaction, so no concurrency oversells an offer. An offer that
// needs confirmed contact information and an accepter without a confirmed email holds its stock
// and a waiting transfer until the link in the confirmation email is followed.
import type { Unit } from '../actors/command.ts';
import type { AppsService } from '../apps/service.ts';
import * as authnStore from '../authn/store.ts';
import type { Core } from '../core.ts';
import { distributeIn, distributionSplit, payIn } from '../designs/circulation.ts';
import * as designStore from '../designs/store.ts';
import { designKind } from '../designs/machine.ts';
import { randomSecret, secretHash } from '../ids.ts';
import { balanceLockKey, walletHolder } from '../ledger/cash.ts';
import { duplicate, type Duplicate, type Failure } from '../ledger/errors.ts';
import type { LedgerDomain } from '../ledger/domain.ts';
import * as ledgerStore from '../ledger/store.ts';
import { appdataCharsMax, offerConfirmCodeBytes, offerConfirmExpireMs, offersListMax } from '../limits.ts';
import type { MessagesService } from '../messages/service.ts';
import { formatMinor, parseAmount, parsePositiveAmount } from '../money.ts';
import { hashSecret } from '../passwords.ts';
import { wallet } from '../profiles/machine.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { TokensService } from '../tokens/service.ts';
import { appdataChars } from '../transfers/service.ts';
import { stateFields, transfer, type TransferStateName } from '../transfers/machine.ts';
import * as transferStore from '../transfers/store.ts';
import { invalid, offerFailure, payoutRefused, type OfferFailure, type PayoutRefused, type TransferFailed } from './errors.ts';
import { createOfferSearch, type FindInput } from './search.ts';
import { loopLinks, offerJson } from './views.ts';
import { offerKind } from './machine.ts';
import * as store from './store.ts';
import type { OfferOption, OfferRow, PaymentType } from './store.ts';

type Json = Record<string, unknown>;
export type OfferResult<T> = ({ ok: true } & T) | OfferFailure;

/** Tokens from POST /o/<id>/signup_accept carry exactly these (spec, "Permissions"). */
export const signupAcceptPermissions: readonly string[] = Object.freeze(['accept_offer', 'manage_sent', 'mobile_device', 'send_cash', 'view_history', 'view_wallet']);

export const paymentTypes = ['free', 'funded', 'paycard', 'service'] as const;

export interface OfferCaller {
  profileId: string;
  /** The token's permissions (edit_design lets a design's editor manage the issuer's offers). */
  permissions: ReadonlySet<string>;
  /** A closed-loop token (POST /p/token) commits no open loop cash: brand cash offers whose plan costs none. */
  closedLoopOnly?: boolean;
}

export interface OptionInput {
  option_id?: string;
  payment_type: PaymentType;
  price?: string;
}

export interface OfferFields {
  title?: string;
  description?: string;
  amount?: string;
  quantity?: number;
  show_limit?: number;
  options?: OptionInput[];
  banner?: string | null;
  metadata_image?: string | null;
  metadata_description?: string;
  require_confirmation?: boolean;
  chain_id?: string | null;
  latitude?: string;
  longitude?: string;
  starts_at?: string | null;
  expires_at?: string | null;
}

export interface CreateInput extends OfferFields {
  title: string;
  amount: string;
  quantity: number;
  currency?: string;
  design_id?: string;
  distribution_plan_id?: string;
  /** The business, when an operator creates the offer. */
  profile_id?: string;
}

export interface AcceptInput {
  accepterId: string;
  offerId: string;
  optionId: string;
  quantity: number;
  referrerId?: string;
  private: boolean;
  email?: string;
  appdata: Record<string, string>;
  dedupId?: string;
  messageRules?: unknown[];
  /** A closed-loop token pays no open loop price. */
  closedLoopOnly?: boolean;
}

/** What an accept's command may reject with: a refusal, a repeated dedup_id, or a business that cannot pay. */
type AcceptRefusal = OfferFailure | Duplicate | PayoutRefused;

export type AcceptResult = { ok: true; transfer: Json; confirming: boolean; profile: Json | null; accepterId: string } | OfferFailure | TransferFailed;

export interface SignupAcceptInput extends Omit<AcceptInput, 'accepterId' | 'dedupId' | 'messageRules' | 'appdata'> {
  clientId: string;
  firstName: string;
  lastName: string;
  businessName?: string;
  pin: string;
  deviceName: string;
  deviceUuid: string;
  weeklyOffers: boolean;
}

export type SignupAcceptResult = { ok: true; transfer: Json; confirming: boolean; profile: Json | null; token: Json | null } | OfferFailure | TransferFailed;

export interface OffersService {
  create(caller: OfferCaller | 'operator', input: CreateInput): Promise<OfferResult<{ offer: Json }>>;
  edit(caller: OfferCaller, offerId: string, fields: OfferFields): Promise<OfferResult<{ offer: Json }>>;
  close(caller: OfferCaller | 'operator', offerId: string): Promise<OfferResult<{ offer: Json }>>;
  /** GET /o/<id>/info: any open or closed offer, with its loop links. */
  info(offerId: string): Promise<OfferResult<{ offer: Json; loopLinks: Json }>>;
  /** GET /o/list: the offers the caller manages. */
  list(caller: OfferCaller): Promise<{ offers: Json[]; loopLinks: Json }>;
  find(input: FindInput): Promise<OfferResult<{ profiles: Json[]; offers: Json[]; loopLinks: Json; more: boolean }>>;
  accept(input: AcceptInput): Promise<AcceptResult>;
  confirm(code: string): Promise<OfferResult<{ transfer: Json; offerId: string }> | TransferFailed>;
  signupAccept(input: SignupAcceptInput): Promise<SignupAcceptResult>;
  adminList(filter: { profileId: string | null; state: 'open' | 'closed' | null }): Promise<Json[]>;
}

/** Checks the merchant's options: ids unique, free and funded cost the accepter nothing, service has a price. */
function parseOptions(inputs: readonly OptionInput[], currency: string): { ok: true; options: OfferOption[] } | OfferFailure {
  const options: OfferOption[] = [];
  const seen = new Set<string>();
  for (const [index, input] of inputs.entries()) {
    const optionId = input.option_id ?? (index === 0 ? input.payment_type : `${input.payment_type}-${index + 1}`);
    if (seen.has(optionId)) return invalid(`options.${index}.option_id`, 'must be unique within the offer');
    seen.add(optionId);
    let price = 0n;
    if (input.price !== undefined) {
      const parsed = parseAmount(input.price, currency);
      if (!parsed.ok) return invalid(`options.${index}.price`, `must be an amount of ${currency} (${parsed.error})`);
      price = parsed.value.minor;
    }
    if ((input.payment_type === 'free' || input.payment_type === 'funded') && price !== 0n) {
      return invalid(`options.${index}.price`, `a ${input.payment_type} option costs the accepter nothing`);
    }
    if (input.payment_type === 'service' && price <= 0n) return invalid(`options.${index}.price`, 'a service option needs a price above zero');
    options.push({ option_id: optionId, payment_type: input.payment_type, price: price.toString() });
  }
  return { ok: true, options };
}

function parseTime(text: string | null | undefined): Date | null | undefined {
  if (text === undefined) return undefined;
  if (text === null) return null;
  return new Date(/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text}Z`);
}

export function createOffersService(
  core: Core,
  dependencies: { profiles: ProfilesService; tokens: TokensService; apps: AppsService; messages: MessagesService; ledger: LedgerDomain },
): OffersService {
  const { sql, commands } = core;
  const { profiles, tokens, apps, messages, ledger } = dependencies;
  const publicUrl = () => core.config.publicUrl;
  const search = createOfferSearch(core, { profiles, publicUrl });

  /** Whether the caller manages offers of this business paying in this design. */
  async function mayManage(caller: OfferCaller | 'operator', businessId: string, designId: string | null): Promise<boolean> {
    if (caller === 'operator' || caller.profileId === businessId) return true;
    if (!designId || !caller.permissions.has('edit_design')) return false;
    return (await designStore.selectGrants(sql, designId, caller.profileId)).includes('edit_design');
  }

  /** A closed-loop caller may make only offers that cost the business no open loop cash. */
  function closedLoopProblem(caller: OfferCaller | 'operator', design: designStore.DesignRow | null, plan: designStore.PlanRow | null, amount: bigint): OfferFailure | null {
    if (caller === 'operator' || !caller.closedLoopOnly) return null;
    const refusal = 'a closed-loop token makes only brand cash offers whose plan costs no open loop cash';
    if (!design || !plan) return offerFailure('offer_forbidden', { description: `This token may not commit open loop cash: ${refusal}.` });
    const split = distributionSplit(amount, plan.recipients, design.id);
    if (split.reserve > 0n || split.fees.length > 0) return invalid('distribution_plan_id', refusal);
    return null;
  }

  async function checkFields(fields: OfferFields, currency: string, row: OfferRow | null): Promise<{ ok: true; changes: store.OfferChanges } | OfferFailure> {
    const changes: store.OfferChanges = {};
    if (fields.title !== undefined) changes.title = fields.title;
    if (fields.description !== undefined) changes.description = fields.description;
    if (fields.amount !== undefined) {
      const parsed = parsePositiveAmount(fields.amount, currency);
      if (!parsed.ok) return invalid('amount', `must be a positive amount of ${currency} (${parsed.error})`);
      changes.amount = parsed.value.minor;
    }
    if (fields.options !== undefined) {
      const parsed = parseOptions(fields.options, currency);
      if (!parsed.ok) return parsed;
      changes.options = parsed.options;
    }
    for (const key of ['banner', 'metadata_image', 'metadata_description', 'require_confirmation', 'chain_id', 'show_limit', 'quantity'] as const) {
      if (fields[key] !== undefined) (changes as Record<string, unknown>)[key] = fields[key];
    }
    if ((fields.latitude === undefined) !== (fields.longitude === undefined)) return invalid(fields.latitude === undefined ? 'latitude' : 'longitude', 'latitude and longitude go together');
    if (fields.latitude !== undefined) [changes.latitude, changes.longitude] = [fields.latitude, fields.longitude!];
    const startsAt = parseTime(fields.starts_at);
    const expiresAt = parseTime(fields.expires_at);
    if (startsAt !== undefined) changes.starts_at = startsAt;
    if (expiresAt !== undefined) changes.expires_at = expiresAt;
    const starts = startsAt === undefined ? row?.starts_at ?? null : startsAt;
    const expires = expiresAt === undefined ? row?.expires_at ?? null : expiresAt;
    if (starts && expires && expires <= starts) return invalid('expires_at', 'must be after starts_at');
    return { ok: true, changes };
  }

  async function create(caller: OfferCaller | 'operator', input: CreateInput): Promise<OfferResult<{ offer: Json }>> {
    let design: designStore.DesignRow | null = null;
    if (input.design_id !== undefined) {
      design = /^\d{10}$/.test(input.design_id) ? await designStore.selectDesign(sql, input.design_id) : null;
      if (!design || design.deleted_at) return invalid('design_id', 'names no design');
      if (design.design_type !== 'gl_design') return invalid('design_id', 'offers pay brand cash of a gl_design only');
      if (input.distribution_plan_id === undefined) return invalid('distribution_plan_id', 'is required with design_id');
      if (!(await designStore.selectPlan(sql, design.id, input.distribution_plan_id))) return invalid('distribution_plan_id', 'is not a live plan of this design');
      if (input.currency !== undefined && input.currency !== design.currency) return invalid('currency', `must be the design's currency ${design.currency}`);
    } else if (input.distribution_plan_id !== undefined) {
      return invalid('distribution_plan_id', 'goes with design_id');
    }
    const businessId = design?.issuer_id ?? input.profile_id ?? (caller === 'operator' ? null : caller.profileId);
    if (!businessId) return invalid('profile_id', 'is required');
    if (input.profile_id !== undefined && input.profile_id !== businessId) return invalid('profile_id', "must be the design's issuer");
    const business = await profiles.get(sql, businessId);
    if (!business) return invalid('profile_id', 'names no profile');
    if (business.isIndividual) return offerFailure('offer_forbidden', { description: 'Offers belong to businesses.' });
    if (!(await mayManage(caller, businessId, design?.id ?? null))) {
      return offerFailure('offer_forbidden', { description: "Offers are made by the business itself or by a profile with edit_design on the paying design." });
    }
    const currency = design?.currency ?? input.currency ?? 'USD';
    const checked = await checkFields({ ...input, options: input.options ?? [{ payment_type: 'free' }] }, currency, null);
    if (!checked.ok) return checked;
    const changes = checked.changes;
    const plan = design ? await designStore.selectPlan(sql, design.id, input.distribution_plan_id!) : null;
    const closedLoop = closedLoopProblem(caller, design, plan, changes.amount!);
    if (closedLoop) return closedLoop;
    const location = changes.latitude !== undefined ? { latitude: changes.latitude!, longitude: changes.longitude! } : business.location;
    const offerId = await commands.run('offer.create', [{ kind: 'profile', id: businessId }], async (unit) => {
      const id = await unit.newShortId('offer');
      unit.create(offerKind, id, { profileId: businessId, createdAt: unit.now.toISOString() });
      await store.insertOffer(unit.tx, {
        id, profile_id: businessId, created_by: caller === 'operator' ? businessId : caller.profileId, design_id: design?.id ?? null,
        plan_id: design ? input.distribution_plan_id! : null, currency, amount: changes.amount!, title: input.title, description: changes.description ?? '',
        banner: changes.banner ?? null, metadata_image: changes.metadata_image ?? null, metadata_description: changes.metadata_description ?? '',
        require_confirmation: changes.require_confirmation ?? false, show_limit: changes.show_limit ?? 1, quantity: input.quantity, options: changes.options!,
        chain_id: changes.chain_id ?? null, latitude: location ? String(location.latitude) : null, longitude: location ? String(location.longitude) : null,
        starts_at: changes.starts_at ?? null, expires_at: changes.expires_at ?? null,
      }, unit.now);
      return id;
    });
    return { ok: true, offer: offerJson((await store.selectOffer(sql, offerId))!) };
  }

  async function edit(caller: OfferCaller, offerId: string, fields: OfferFields): Promise<OfferResult<{ offer: Json }>> {
    const row = /^\d{10}$/.test(offerId) ? await store.selectOffer(sql, offerId) : null;
    if (!row) return offerFailure('offer_not_found');
    if (!(await mayManage(caller, row.profile_id, row.design_id))) return offerFailure('offer_forbidden');
    const checked = await checkFields(fields, row.currency, row);
    if (!checked.ok) return checked;
    const { design, plan } = await paying(row);
    const closedLoop = closedLoopProblem(caller, design, plan, checked.changes.amount ?? row.amount);
    if (closedLoop) return closedLoop;
    const result = await commands.run('offer.edit', [{ kind: offerKind.kind, id: offerId }], async (unit: Unit<OfferFailure>) => {
      await unit.load(offerKind, offerId);
      if (!unit.send(offerKind, offerId, { type: 'offer.edit', at: unit.now.toISOString() })) return unit.reject(offerFailure('offer_closed'));
      if (!(await store.updateOffer(unit.tx, offerId, checked.changes, unit.now))) {
        return unit.reject(invalid('quantity', 'is below the units already accepted'));
      }
      return { ok: true as const };
    });
    if (!result.ok) return result;
    return { ok: true, offer: offerJson((await store.selectOffer(sql, offerId))!) };
  }

  async function close(caller: OfferCaller | 'operator', offerId: string): Promise<OfferResult<{ offer: Json }>> {
    const row = /^\d{10}$/.test(offerId) ? await store.selectOffer(sql, offerId) : null;
    if (!row) return offerFailure('offer_not_found');
    if (!(await mayManage(caller, row.profile_id, row.design_id))) return offerFailure('offer_forbidden');
    const result = await commands.run('offer.close', [{ kind: offerKind.kind, id: offerId }], async (unit: Unit<OfferFailure>) => {
      await unit.load(offerKind, offerId);
      if (!unit.send(offerKind, offerId, { type: 'offer.close', at: unit.now.toISOString() })) return unit.reject(offerFailure('offer_closed'));
      await store.closeOffer(unit.tx, offerId, unit.now);
      return { ok: true as const };
    });
    if (!result.ok) return result;
    return { ok: true, offer: offerJson((await store.selectOffer(sql, offerId))!) };
  }

  /** Moves the cash of an accept: the accepter's price (service options), then the payout. */
  async function payoutIn(unit: Unit, offer: OfferRow, plan: designStore.PlanRow | null, design: designStore.DesignRow | null, accepterId: string, quantity: number, price: bigint, transferId: string): Promise<Failure | null> {
    let number = 1;
    const cost = price * BigInt(quantity);
    if (cost > 0n) {
      const refused = await payIn(unit, accepterId, walletHolder(offer.profile_id), offer.currency, cost, { transferId, number, action: 'purchase', toId: offer.profile_id });
      if (refused) return refused;
      number += 1;
    }
    const total = offer.amount * BigInt(quantity);
    if (offer.design_id && !(design && plan)) return { ok: false, error: 'send_failed', detail: "the offer's design or plan is gone" };
    if (design && plan) return distributeIn(unit, { design, plan, senderId: offer.profile_id, recipientId: accepterId, amount: total, transferId, number });
    return payIn(unit, offer.profile_id, walletHolder(accepterId), offer.currency, total, { transferId, number, action: 'move', toId: accepterId });
  }

  async function paying(offer: OfferRow) {
    if (!offer.design_id) return { design: null, plan: null };
    const [design, plan] = await Promise.all([designStore.selectDesign(sql, offer.design_id), designStore.selectPlanAnyState(sql, offer.plan_id!)]);
    return { design, plan: plan && !plan.deleted_at ? plan : null };
  }

  function balanceKeys(offer: OfferRow, design: designStore.DesignRow | null, plan: designStore.PlanRow | null, accepterId: string): string[] {
    const fees = design && plan ? plan.recipients.filter((row) => row.recipient_type === 'static' && row.loop_id !== design.id).map((row) => row.recipient_id) : [];
    return [...new Set([offer.profile_id, accepterId, ...fees])].sort().map((id) => balanceLockKey(id, offer.currency));
  }

  /** A canceled purchase_offer transfer for an accept whose cash could not move (the 503 answer). */
  async function failedTransfer(offer: OfferRow, accepterId: string, quantity: number, failure: Failure): Promise<TransferFailed> {
    const transferId = await commands.run('offer.accept_failed', [{ kind: offerKind.kind, id: offer.id }], async (unit) => {
      const id = await unit.newLongId('transfer');
      unit.create(transfer, id, { workflowType: 'purchase_offer', waitFor: 'invite', at: unit.now.toISOString() });
      const canceled = unit.send(transfer, id, { type: 'transfer.retract', at: unit.now.toISOString(), reason: 'not_available' })!;
      await transferStore.insertTransfer(unit.tx, {
        id, workflowType: 'purchase_offer', senderId: offer.profile_id, senderUid: `service:${offer.profile_id}`, recipientId: accepterId, recipientUid: `service:${accepterId}`,
        senderPersonalId: null, recipientPersonalId: accepterId, currency: offer.currency, amount: offer.amount * BigInt(quantity), at: unit.now,
        state: stateFields(canceled.value as TransferStateName), endAt: unit.now, activityCount: canceled.context.activityCount, private: true,
        message: null, messageSubject: null, appdata: {}, details: { offer_id: offer.id, quantity, reason: 'not_available' },
      }, [{ profileId: offer.profile_id, role: 'sender' }, { profileId: accepterId, role: 'recipient' }]);
      return id;
    });
    const detail = await ledger.queries.detail(accepterId, transferId);
    const code = failure.sendErrors?.[0]?.code ?? failure.error;
    return {
      ok: false, error: 'transfer_failed', transfer: detail.ok ? detail.transfer : { id: transferId },
      description: `The offer's transfer could not complete (${code ?? 'unavailable'}); nothing was taken from the offer's stock.`,
    };
  }

  /** The checks that need no lock, in a fixed order; the option chosen. */
  async function precheck(offerId: string, optionId: string, quantity: number, now: Date): Promise<{ ok: true; offer: OfferRow; option: OfferOption } | OfferFailure> {
    const offer = /^\d{10}$/.test(offerId) ? await store.selectOffer(sql, offerId) : null;
    if (!offer) return offerFailure('offer_not_found');
    if (offer.state !== 'open') return offerFailure('offer_closed');
    if ((offer.starts_at && offer.starts_at > now) || (offer.expires_at && offer.expires_at <= now)) return offerFailure('offer_not_available');
    const option = offer.options.find((candidate) => candidate.option_id === optionId);
    if (!option) return invalid('option_id', 'is not an option of this offer');
    if (option.payment_type === 'paycard') return offerFailure('paycard_not_supported');
    if (quantity > offer.show_limit) return invalid('quantity', `must be at most the offer's show_limit ${offer.show_limit}`);
    if (offer.remaining < quantity) return offerFailure('sold_out');
    return { ok: true, offer, option };
  }

  async function answer(accepterId: string, transferId: string, confirming: boolean) {
    const [detail, profile] = await Promise.all([ledger.queries.detail(accepterId, transferId), confirming ? null : profiles.detail(sql, accepterId)]);
    if (!detail.ok) throw new Error(`transfer ${transferId} not visible to its accepter`);
    return { ok: true as const, transfer: detail.transfer, confirming, profile, accepterId };
  }

  interface PreparedAccept {
    input: AcceptInput;
    offer: OfferRow;
    option: OfferOption;
    price: bigint;
    design: designStore.DesignRow | null;
    plan: designStore.PlanRow | null;
    /** The email to confirm, when the offer needs one the accepter has not confirmed. */
    confirmEmail: string | null;
  }

  /** The accept's checks that need no lock, in a fixed order. */
  async function prepareAccept(input: AcceptInput): Promise<{ ok: true; prepared: PreparedAccept } | OfferFailure> {
    const checked = await precheck(input.offerId, input.optionId, input.quantity, core.clock.now());
    if (!checked.ok) return checked;
    const { offer, option } = checked;
    const accepter = await profiles.get(sql, input.accepterId);
    if (!accepter || !accepter.isIndividual) return offerFailure('offer_forbidden', { description: 'Offers are accepted by people, not businesses.' });
    if (input.referrerId !== undefined && (input.referrerId === input.accepterId || !(await profiles.get(sql, input.referrerId)))) {
      return invalid('referrer_id', 'must name another existing profile');
    }
    if (appdataChars(input.appdata) > appdataCharsMax) return invalid('appdata', `must total at most ${appdataCharsMax} characters`);
    const price = BigInt(option.price);
    if (input.closedLoopOnly && price > 0n) return invalid('option_id', 'this option costs open loop cash, which this token may not move');
    let confirmEmail: string | null = null;
    if (offer.require_confirmation && !(await profiles.confirmedUids(sql, input.accepterId)).some((uid) => uid.startsWith('email:'))) {
      if (input.email === undefined) return invalid('email', 'is required: this offer needs a confirmed email address');
      const owner = await profiles.findByUid(sql, `email:${input.email}`);
      if (owner && owner.id !== input.accepterId) return invalid('email', 'belongs to another profile');
      confirmEmail = input.email;
    }
    const { design, plan } = await paying(offer);
    if (offer.design_id && !(design && plan && !design.deleted_at)) return offerFailure('offer_not_available', { description: "The offer's design or distribution plan is gone." });
    return { ok: true, prepared: { input, offer, option, price, design, plan, confirmEmail } };
  }

  /**
   * The accept's command body: both wallets active, within show_limit, the stock taken, the
   * acceptance (dedup_id) and the purchase_offer transfer written, then the cash moved, or for a
   * confirming accept the email queued. A refusal rolls everything back.
   */
  async function acceptIn(unit: Unit<AcceptRefusal>, prepared: PreparedAccept, code: string | null): Promise<{ ok: true; transferId: string }> {
    const { input, offer, option, price, design, plan, confirmEmail } = prepared;
    await ledgerStore.lockBalances(unit.tx, balanceKeys(offer, design, plan, input.accepterId));
    const [snapshot, businessWallet, accepterWallet] = await Promise.all([
      unit.load(offerKind, offer.id), unit.load(wallet, offer.profile_id), unit.load(wallet, input.accepterId),
    ]);
    if (!snapshot || snapshot.value !== 'open') return unit.reject(offerFailure('offer_closed'));
    if (businessWallet?.value !== 'active') return unit.reject(offerFailure('offer_not_available', { description: "The business's wallet is not active." }));
    if (accepterWallet?.value !== 'active') return unit.reject(offerFailure('offer_forbidden', { description: 'Your wallet is not active.' }));
    const already = await store.acceptedQuantity(unit.tx, offer.id, input.accepterId);
    if (already + input.quantity > offer.show_limit) {
      return unit.reject(invalid('quantity', `one person accepts at most ${offer.show_limit} of this offer (${already} already)`));
    }
    if ((await store.takeStock(unit.tx, offer.id, input.quantity, unit.now)) === null) return unit.reject(offerFailure('sold_out'));
    const transferId = await unit.newLongId('transfer');
    const acceptanceId = await unit.newShortId('offer_acceptance');
    const inserted = await store.insertAcceptance(unit.tx, {
      id: acceptanceId, offer_id: offer.id, accepter_id: input.accepterId, option_id: option.option_id, quantity: input.quantity, price,
      transfer_id: transferId, referrer_id: input.referrerId ?? null, dedup_id: input.dedupId ?? null, email: confirmEmail,
      confirmDigest: code ? secretHash(code) : null, state: code ? 'confirming' : 'completed',
    }, unit.now);
    if (!inserted) return unit.reject(duplicate());
    const created = unit.create(transfer, transferId, { workflowType: 'purchase_offer', waitFor: code ? 'invite' : 'none', at: unit.now.toISOString() });
    await transferStore.insertTransfer(unit.tx, {
      // A confirming transfer names the email to confirm, so only following the link (not
      // POST /t/<id>/accept, which needs the UID confirmed already) completes it.
      id: transferId, workflowType: 'purchase_offer', senderId: offer.profile_id, senderUid: `service:${offer.profile_id}`, recipientId: input.accepterId,
      recipientUid: code ? `email:${confirmEmail}` : `service:${input.accepterId}`, senderPersonalId: null, recipientPersonalId: input.accepterId, currency: offer.currency,
      amount: offer.amount * BigInt(input.quantity), at: unit.now, state: stateFields(created.value as TransferStateName), endAt: code ? null : unit.now,
      activityCount: created.context.activityCount, private: input.private, message: null, messageSubject: null, appdata: input.appdata,
      details: {
        offer_id: offer.id, offer_title: offer.title, option_id: option.option_id, payment_type: option.payment_type, quantity: input.quantity,
        referrer_id: input.referrerId ?? null, message_rules: input.messageRules ?? [], price: formatMinor(price * BigInt(input.quantity), offer.currency),
      },
    }, [{ profileId: offer.profile_id, role: 'sender' }, { profileId: input.accepterId, role: 'recipient' }]);
    if (code) {
      const dueAt = new Date(unit.now.getTime() + offerConfirmExpireMs);
      unit.schedule(offerKind, offer.id, `confirm:${acceptanceId}`, dueAt, { type: 'offer.confirm_expire', at: dueAt.toISOString(), acceptanceId });
      const link = `${publicUrl()}/offer-confirm/${code}`;
      messages.queue(unit, {
        channel: 'email', to: confirmEmail!, template: 'transfer-offer-confirm-link', subject: `Confirm your email to receive ${offer.title}`,
        text: `Follow this link to confirm your email address and receive "${offer.title}":\n\n${link}\n\nIf you did not accept this offer, ignore this message.`,
      });
      return { ok: true, transferId };
    }
    const refused = await payoutIn(unit, offer, plan, design, input.accepterId, input.quantity, price, transferId);
    if (refused) return unit.reject(payoutRefused(refused));
    return { ok: true, transferId };
  }

  async function accept(input: AcceptInput): Promise<AcceptResult> {
    if (input.dedupId !== undefined) {
      const existing = await store.selectAcceptanceByDedup(sql, input.accepterId, input.dedupId);
      if (existing) return answer(input.accepterId, existing.transfer_id, existing.state === 'confirming');
    }
    const ready = await prepareAccept(input);
    if (!ready.ok) return ready;
    const { offer, design, confirmEmail } = ready.prepared;
    const lockRefs = [{ kind: offerKind.kind, id: offer.id }, { kind: 'wallet', id: input.accepterId }, { kind: 'wallet', id: offer.profile_id }];
    if (design) lockRefs.push({ kind: designKind.kind, id: design.id });
    const code = confirmEmail ? randomSecret(offerConfirmCodeBytes) : null;
    const outcome = await commands.run('offer.accept', lockRefs, (unit: Unit<AcceptRefusal>) => acceptIn(unit, ready.prepared, code));
    if (outcome.ok) return answer(input.accepterId, outcome.transferId, code !== null);
    if (outcome.error === 'duplicate') {
      const existing = await store.selectAcceptanceByDedup(sql, input.accepterId, input.dedupId!);
      if (!existing) throw new Error('dedup key vanished');
      return answer(input.accepterId, existing.transfer_id, existing.state === 'confirming');
    }
    if (outcome.error === 'payout') return failedTransfer(offer, input.accepterId, input.quantity, outcome.failure);
    return outcome;
  }

  async function confirm(code: string): Promise<OfferResult<{ transfer: Json; offerId: string }> | TransferFailed> {
    const found = /^[A-Za-z0-9_-]{16,64}$/.test(code) ? await store.selectAcceptanceByDigest(sql, secretHash(code)) : null;
    if (!found || found.state === 'canceled') return offerFailure('confirmation_not_found');
    const offer = (await store.selectOffer(sql, found.offer_id))!;
    const detail = async () => {
      const read = await ledger.queries.detail(found.accepter_id, found.transfer_id);
      if (!read.ok) throw new Error(`transfer ${found.transfer_id} not visible to its accepter`);
      return { ok: true as const, transfer: read.transfer, offerId: offer.id };
    };
    if (found.state === 'completed') return detail();
    const { design, plan } = await paying(offer);
    const lockRefs = [{ kind: offerKind.kind, id: offer.id }, { kind: 'wallet', id: found.accepter_id }, { kind: 'wallet', id: offer.profile_id }];
    if (design) lockRefs.push({ kind: designKind.kind, id: design.id });
    const done = await commands.run('offer.confirm', lockRefs, async (unit: Unit<PayoutRefused>) => {
      await ledgerStore.lockBalances(unit.tx, balanceKeys(offer, design, plan, found.accepter_id));
      const row = await store.selectAcceptanceForUpdate(unit.tx, found.id);
      if (!row || row.state === 'canceled') return { ok: false as const, gone: true as const };
      if (row.state === 'completed') return { ok: true as const };
      unit.cancelTimer(offerKind, offer.id, `confirm:${row.id}`);
      const waiting = await unit.load(transfer, row.transfer_id);
      if (waiting?.value !== 'invite') {
        // The business retracted the waiting transfer: the accept ends and its stock goes back.
        await store.returnStock(unit.tx, offer.id, row.quantity, unit.now);
        await store.setAcceptanceState(unit.tx, row.id, 'confirming', 'canceled', unit.now);
        return { ok: false as const, gone: true as const };
      }
      const refused = await payoutIn(unit, offer, plan, design, row.accepter_id, row.quantity, row.price, row.transfer_id);
      if (refused) return unit.reject(payoutRefused(refused));
      if (row.email) await profiles.addConfirmedUid(unit.tx, row.accepter_id, `email:${row.email}`);
      if (!(await ledger.transfers.applyIn(unit, row.transfer_id, { type: 'transfer.invite_accept', at: unit.now.toISOString() }))) {
        throw new Error(`transfer ${row.transfer_id} of a confirming accept was not waiting`);
      }
      await store.setAcceptanceState(unit.tx, row.id, 'confirming', 'completed', unit.now);
      return { ok: true as const };
    });
    if (done.ok) return detail();
    if ('gone' in done) return offerFailure('confirmation_not_found');
    // The business cannot pay: the waiting transfer is canceled and the stock goes back.
    await commands.run('offer.confirm_failed', [{ kind: offerKind.kind, id: offer.id }], async (unit) => {
      const row = await store.selectAcceptanceForUpdate(unit.tx, found.id);
      if (!row || row.state !== 'confirming') return;
      await unit.load(transfer, row.transfer_id);
      await ledger.transfers.applyIn(unit, row.transfer_id, { type: 'transfer.retract', at: unit.now.toISOString(), reason: 'not_available' });
      await store.returnStock(unit.tx, offer.id, row.quantity, unit.now);
      await store.setAcceptanceState(unit.tx, row.id, 'confirming', 'canceled', unit.now);
    });
    const read = await ledger.queries.detail(found.accepter_id, found.transfer_id);
    return { ok: false, error: 'transfer_failed', description: "The offer's transfer could not complete; the offer's stock was given back.", transfer: read.ok ? read.transfer : { id: found.transfer_id } };
  }

  /**
   * Creates the person, keeps the PIN as a hash and accepts, all in one command, so a refused
   * accept leaves no profile behind. When the business cannot pay, the person is created alone
   * and the 503 carries the canceled transfer, as for an accept.
   */
  async function signupAccept(input: SignupAcceptInput): Promise<SignupAcceptResult> {
    const app = await apps.get(input.clientId);
    if (!app) return offerFailure('app_not_found');
    if (!app.isPublic) return offerFailure('app_not_public');
    const checked = await precheck(input.offerId, input.optionId, input.quantity, core.clock.now());
    if (!checked.ok) return checked;
    const { offer, option } = checked;
    if (offer.require_confirmation && input.email === undefined) return invalid('email', 'is required: this offer needs a confirmed email address');
    if (input.email !== undefined && (await profiles.findByUid(sql, `email:${input.email}`))) return invalid('email', 'belongs to another profile; sign in instead');
    if (input.referrerId !== undefined && !(await profiles.get(sql, input.referrerId))) return invalid('referrer_id', 'must name an existing profile');
    const price = BigInt(option.price);
    if (price > 0n) return invalid('option_id', 'a new wallet holds no cash to pay this option with');
    const pinHash = await hashSecret(input.pin);
    const { design, plan } = await paying(offer);
    if (offer.design_id && !(design && plan && !design.deleted_at)) return offerFailure('offer_not_available', { description: "The offer's design or distribution plan is gone." });
    const confirmEmail = offer.require_confirmation ? input.email! : null;
    const code = confirmEmail ? randomSecret(offerConfirmCodeBytes) : null;
    const createIn = async (unit: Unit) => {
      const created = await profiles.createIndividualIn(unit, {
        firstName: input.firstName, lastName: input.lastName, site: app.site, confirmedUids: [], businessName: input.businessName ?? null,
        deviceUuid: input.deviceUuid, deviceName: input.deviceName, weeklyOffers: input.weeklyOffers, acceptedPolicy: false,
      });
      // The PIN is kept only as a hash, as the device password for PIN refreshes of this device.
      await authnStore.upsertDevicePassword(unit.tx, created.profileId, input.deviceUuid, 'pin', pinHash, unit.now);
      return created.profileId;
    };
    const lockRefs = [{ kind: offerKind.kind, id: offer.id }, { kind: 'wallet', id: offer.profile_id }];
    if (design) lockRefs.push({ kind: designKind.kind, id: design.id });
    const outcome = await commands.run('offer.signup_accept', lockRefs, async (unit: Unit<AcceptRefusal>) => {
      const profileId = await createIn(unit);
      const acceptInput: AcceptInput = {
        accepterId: profileId, offerId: offer.id, optionId: option.option_id, quantity: input.quantity, referrerId: input.referrerId, private: input.private,
        email: input.email, appdata: {},
      };
      const done = await acceptIn(unit, { input: acceptInput, offer, option, price, design, plan, confirmEmail }, code);
      return { ...done, profileId };
    });
    if (!outcome.ok && outcome.error === 'payout') {
      const profileId = await commands.run('offer.signup', [{ kind: 'device', id: input.deviceUuid }], createIn);
      return failedTransfer(offer, profileId, input.quantity, outcome.failure);
    }
    // A new profile's accept carries no dedup_id, so it is never a repeat.
    if (!outcome.ok && outcome.error === 'duplicate') throw new Error('a signup accept was refused as a repeat');
    if (!outcome.ok) return outcome;
    const accepted = await answer(outcome.profileId, outcome.transferId, code !== null);
    if (accepted.confirming) return { ok: true, transfer: accepted.transfer, confirming: true, profile: null, token: null };
    const token = await tokens.issue(sql, {
      clientId: app.clientId, profileId: outcome.profileId, personalProfileId: outcome.profileId, permissions: [...signupAcceptPermissions],
      deviceUuid: input.deviceUuid, source: 'authn', now: core.clock.now(),
    });
    return { ok: true, transfer: accepted.transfer, confirming: false, profile: accepted.profile, token: token as unknown as Json };
  }

  // A confirmation link not followed in time: the waiting transfer is canceled (reason expired)
  // and the stock goes back.
  core.sweeper.register(offerKind.kind, async (unit, timer) => {
    const event = timer.event as { type?: string; acceptanceId?: string };
    if (event.type !== 'offer.confirm_expire' || !event.acceptanceId) throw new Error(`offer timer ${timer.name} carries no known event`);
    const row = await store.selectAcceptanceForUpdate(unit.tx, event.acceptanceId);
    if (!row || row.state !== 'confirming') return;
    const waiting = await unit.load(transfer, row.transfer_id);
    if (waiting?.value === 'invite') await ledger.transfers.applyIn(unit, row.transfer_id, { type: 'transfer.invite_expire', at: unit.now.toISOString() });
    await store.returnStock(unit.tx, row.offer_id, row.quantity, unit.now);
    await store.setAcceptanceState(unit.tx, row.id, 'confirming', 'canceled', unit.now);
  });

  return {
    create,
    edit,
    close,

    async info(offerId) {
      const row = /^\d{10}$/.test(offerId) ? await store.selectOffer(sql, offerId) : null;
      if (!row) return offerFailure('offer_not_found');
      return { ok: true, offer: offerJson(row), loopLinks: await loopLinks(sql, [row], false, publicUrl()) };
    },

    async list(caller) {
      const designIds = caller.permissions.has('edit_design') ? await store.selectEditableDesignIds(sql, caller.profileId) : [];
      const rows = await store.selectManagedOffers(sql, caller.profileId, designIds, offersListMax);
      return { offers: rows.map((row) => offerJson(row)), loopLinks: await loopLinks(sql, rows, true, publicUrl()) };
    },

    find: (input) => search.find(input),

    accept,
    confirm,
    signupAccept,

    async adminList(filter) {
      return (await store.selectAllOffers(sql, filter, offersListMax)).map((row) => offerJson(row));
    },
  };
}
