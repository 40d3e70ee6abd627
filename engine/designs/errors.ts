// Named outcomes of design, plan and agreement calls; api/routes/design-errors.ts maps each once.
import type { Refusal } from '../refusals.ts';

export type DesignError =
  | 'invalid'
  | 'design_not_found'
  | 'design_forbidden'
  | 'feature_required'
  | 'design_published'
  | 'plan_not_found'
  | 'agreement_not_found'
  | 'not_member'
  | 'member_not_found'
  | 'expiry_in_past';

/** The one Refusal shape (engine/transfers/errors.ts) over this domain's codes. */
export type DesignFailure = Refusal<DesignError>;

export function designFailure(error: DesignError, extras: { invalid?: Record<string, string>; description?: string } = {}): DesignFailure {
  return { ok: false, error, ...extras };
}

export function invalid(field: string, message: string): DesignFailure {
  return designFailure('invalid', { invalid: { [field]: message } });
}
