// Named outcomes of point-of-sale calls (pull, processor, settlement, report); api/routes/pos-errors.ts maps each once.
import type { Refusal } from '../refusals.ts';
export type PosError =
  | 'invalid'
  | 'pull_not_enabled'
  | 'pull_not_consented'
  | 'sender_not_found'
  | 'processor_token_required'
  | 'processor_not_granted'
  | 'recipient_not_accepting'
  | 'design_not_found'
  | 'not_settler'
  | 'no_settler'
  | 'report_too_large';

/** The one Refusal shape (engine/transfers/errors.ts) over this domain's codes. */
export type PosFailure = Refusal<PosError>;

export function posFailure(error: PosError, extras: { invalid?: Record<string, string>; description?: string } = {}): PosFailure {
  return { ok: false, error, ...extras };
}

export function invalid(field: string, message: string): PosFailure {
  return posFailure('invalid', { invalid: { [field]: message } });
}
