// Named outcomes of ledger and transfer calls. Each maps to HTTP once, in api/routes/ledger-errors.ts.
import type { Refusal, SendError } from '../refusals.ts';

export type { SendError } from '../refusals.ts';

export type LedgerError =
  | 'send_failed'
  | 'transfer_not_found'
  | 'not_stakeholder'
  | 'not_waiting'
  | 'cannot_retract'
  | 'invalid_reason'
  | 'wrong_permission'
  | 'not_initiator'
  | 'not_recipient'
  | 'code_not_found'
  | 'code_already_used'
  | 'code_limited'
  | 'paycode_mismatch'
  | 'bank_account_not_found'
  | 'deposit_offer_not_found'
  | 'no_issuer'
  | 'not_issuer'
  | 'named_profile_not_found'
  | 'rate_not_found'
  | 'invalid_amount'
  | 'invitation_code_not_found'
  | 'own_invitation'
  | 'named_plan_not_found'
  | 'agreement_inactive'
  | 'dedup_id_reused';

/** A ledger or transfer refusal: the one Refusal shape (engine/transfers/errors.ts) over the ledger's codes. */
export type Failure = Refusal<LedgerError>;

export function failure(error: LedgerError, detail?: string): Failure {
  return detail === undefined ? { ok: false, error } : { ok: false, error, detail };
}

export function sendFailure(sendErrors: SendError[]): Refusal<'send_failed'> {
  return { ok: false, error: 'send_failed', sendErrors };
}

/** A send's dedup key taken inside its command (a repeat raced it): the command rolls back and answers the first transfer. */
export type Duplicate = { ok: false; error: 'duplicate' };

export function duplicate(): Duplicate {
  return { ok: false, error: 'duplicate' };
}
