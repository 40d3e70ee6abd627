// Named outcomes of ledger and transfer calls. Each maps to HTTP once, in api/routes/ledger-errors.ts.
import type { Refusal } from '../transfers/errors.ts';

/** One entry of InvalidRequest.send_errors (supplement 7.1). */
export interface SendError {
  code: SendErrorCode;
  field_name: string;
  info: Record<string, unknown>;
}

export type SendErrorCode =
  | 'invalid_amounts'
  | 'invalid_serial_numbers'
  | 'mixed_currency'
  | 'insufficient_funds'
  | 'mixed_acceptance'
  | 'cash_not_accepted'
  | 'serial_not_held'
  | 'recipient_not_found'
  | 'recipient_is_sender'
  | 'uid_type_mismatch'
  | 'sender_uid_not_confirmed'
  | 'appdata_too_long'
  | 'currency_not_accepted'
  | 'invalid_fx'
  | 'sender_wallet_not_active'
  | 'open_loop_not_permitted'
  | 'recipient_wallet_closed'
  | 'not_transferable'
  | 'max_per_wallet'
  | 'design_expired'
  | 'cash_expired';

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
