// The checks of an accept that need no lock, in a fixed order: the offer open and in its time,
// the option, the quantity, the accepter and the email to confirm. The command re-checks under locks.
import type { DesignRow, PlanRow } from '../designs/types.ts';
import { amountUnitsMax, appdataCharsMax } from '../limits.ts';
import { amountMinorMax } from '../money.ts';
import { appdataChars } from '../transfers/service.ts';
import type { OffersContext } from './context.ts';
import { invalid, offerFailure, type OfferFailure } from './errors.ts';
import { paying } from './payout.ts';
import * as store from './store.ts';
import type { OfferOption, OfferRow } from './store.ts';
import type { AcceptInput } from './types.ts';

export interface PreparedAccept {
  input: AcceptInput;
  offer: OfferRow;
  option: OfferOption;
  price: bigint;
  design: DesignRow | null;
  plan: PlanRow | null;
  /** The email to confirm, when the offer needs one the accepter has not confirmed. */
  confirmEmail: string | null;
}

/** The checks that need no lock, in a fixed order; the option chosen. */
export async function precheck(ctx: OffersContext, offerId: string, optionId: string, quantity: number, now: Date): Promise<{ ok: true; offer: OfferRow; option: OfferOption } | OfferFailure> {
  const offer = /^\d{10}$/.test(offerId) ? await store.selectOffer(ctx.sql, offerId) : null;
  if (!offer) return offerFailure('offer_not_found');
  if (offer.state !== 'open') return offerFailure('offer_closed');
  if ((offer.starts_at && offer.starts_at > now) || (offer.expires_at && offer.expires_at <= now)) return offerFailure('offer_not_available');
  const option = offer.options.find((candidate) => candidate.option_id === optionId);
  if (!option) return invalid('option_id', 'is not an option of this offer');
  if (option.payment_type === 'paycard') return offerFailure('paycard_not_supported');
  // An offer made before priced options were refused for it: its reserve is owed, so no price is taken.
  if (offer.reserve_owed && BigInt(option.price) > 0n) return offerFailure('offer_not_available', { description: 'This option is not available: the offer takes no price while its reserve is owed.' });
  if (quantity > offer.show_limit) return invalid('quantity', `must be at most the offer's show_limit ${offer.show_limit}`);
  if (offer.remaining < quantity) return offerFailure('sold_out');
  const largest = offer.amount > BigInt(option.price) ? offer.amount : BigInt(option.price);
  if (largest * BigInt(quantity) > amountMinorMax(offer.currency)) return invalid('quantity', `times the offer's amount and price must be at most ${amountUnitsMax} ${offer.currency}`);
  return { ok: true, offer, option };
}

/** The email an accepter must confirm first: none unless the offer needs one and they have none confirmed. */
async function emailToConfirm(ctx: OffersContext, offer: OfferRow, input: AcceptInput): Promise<{ ok: true; email: string | null } | OfferFailure> {
  if (!offer.require_confirmation || (await ctx.profiles.confirmedUids(ctx.sql, input.accepterId)).some((uid) => uid.startsWith('email:'))) return { ok: true, email: null };
  if (input.email === undefined) return invalid('email', 'is required: this offer needs a confirmed email address');
  const owner = await ctx.profiles.findByUid(ctx.sql, `email:${input.email}`);
  if (owner && owner.id !== input.accepterId) return invalid('email', 'belongs to another profile');
  return { ok: true, email: input.email };
}

/** The accept's checks that need no lock, in a fixed order. */
export async function prepareAccept(ctx: OffersContext, input: AcceptInput): Promise<{ ok: true; prepared: PreparedAccept } | OfferFailure> {
  const checked = await precheck(ctx, input.offerId, input.optionId, input.quantity, ctx.core.clock.now());
  if (!checked.ok) return checked;
  const { offer, option } = checked;
  const accepter = await ctx.profiles.get(ctx.sql, input.accepterId);
  if (!accepter || !accepter.isIndividual) return offerFailure('offer_forbidden', { description: 'Offers are accepted by people, not businesses.' });
  if (input.referrerId !== undefined && (input.referrerId === input.accepterId || !(await ctx.profiles.get(ctx.sql, input.referrerId)))) {
    return invalid('referrer_id', 'must name another existing profile');
  }
  if (appdataChars(input.appdata) > appdataCharsMax) return invalid('appdata', `must total at most ${appdataCharsMax} characters`);
  const price = BigInt(option.price);
  if (input.closedLoopOnly && price > 0n) return invalid('option_id', 'this option costs open loop cash, which this token may not move');
  const confirming = await emailToConfirm(ctx, offer, input);
  if (!confirming.ok) return confirming;
  const confirmEmail = confirming.email;
  const { design, plan } = await paying(ctx, offer);
  if (offer.design_id && !(design && plan && !design.deleted_at)) return offerFailure('offer_not_available', { description: "The offer's design or distribution plan is gone." });
  return { ok: true, prepared: { input, offer, option, price, design, plan, confirmEmail } };
}
