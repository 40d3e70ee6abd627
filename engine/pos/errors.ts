// Named outcomes of point-of-sale calls (pull, processor, settlement, report); api/routes/pos-errors.ts maps each once.
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

export interface PosFailure {
  ok: false;
  error: PosError;
  invalid?: Record<string, string>;
  description?: string;
}

export function posFailure(error: PosError, extras: { invalid?: Record<string, string>; description?: string } = {}): PosFailure {
  return { ok: false, error, ...extras };
}

export function invalid(field: string, message: string): PosFailure {
  return posFailure('invalid', { invalid: { [field]: message } });
}
