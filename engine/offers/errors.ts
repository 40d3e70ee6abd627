// Named outcomes of offer calls; api/routes/offers.ts maps each once.
import type { Refusal } from '../refusals.ts';
import type { Failure } from '../ledger/errors.ts';

export type OfferError =
  | 'invalid'
  | 'offer_not_found'
  | 'offer_forbidden'
  | 'offer_closed'
  | 'offer_not_available'
  | 'sold_out'
  | 'paycard_not_supported'
  | 'confirmation_not_found'
  | 'named_app_not_found'
  | 'app_not_public';

/** The one Refusal shape (engine/transfers/errors.ts) over this domain's codes. */
export type OfferFailure = Refusal<OfferError>;

export function offerFailure(error: OfferError, extras: { invalid?: Record<string, string>; description?: string } = {}): OfferFailure {
  return { ok: false, error, ...extras };
}

export function invalid(field: string, message: string): OfferFailure {
  return offerFailure('invalid', { invalid: { [field]: message } });
}

/**
 * A payout refused by the accepter's own holding rules (max_per_wallet, transferable): the accepter
 * can correct it (a smaller quantity, after spending), so it is a 400 naming quantity, not the 503
 * of a business that cannot pay. Null for any other refusal.
 */
export function holdingRulesRefusal(failure: Failure): OfferFailure | null {
  const problem = failure.sendErrors?.find((error) => error.code === 'max_per_wallet' || error.code === 'not_transferable');
  const overCap = problem?.code === 'max_per_wallet' || /max_per_wallet/.test(failure.invalid?.amount ?? '');
  if (overCap) return invalid('quantity', 'you would hold more of this brand cash than a wallet may (max_per_wallet)');
  if (problem) return invalid('quantity', 'this brand cash cannot be passed to people (not_transferable)');
  return null;
}

/** The offer's transfer could not complete (the business is short of cash): a 503 that carries the canceled transfer, if one was written. */
export interface TransferFailed {
  ok: false;
  error: 'transfer_failed';
  description: string;
  /** Absent for a signup_accept: no profile is made, so there is no canceled transfer to show. */
  transfer?: Record<string, unknown>;
}

/** Inside an accept's command: the business could not pay, so the accept rolls back and answers TransferFailed. */
export interface PayoutRefused {
  ok: false;
  error: 'payout';
  failure: Failure;
}

export function payoutRefused(failure: Failure): PayoutRefused {
  return { ok: false, error: 'payout', failure };
}
