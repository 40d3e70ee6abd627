// Named outcomes of offer calls; api/routes/offers.ts maps each once.
import type { Refusal } from '../transfers/errors.ts';
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
