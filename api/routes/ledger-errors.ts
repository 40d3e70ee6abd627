// The one mapping of ledger, transfer and payout errors to HTTP.
import type { Failure, LedgerError } from '../../engine/ledger/errors.ts';
import { errorTable, httpError } from '../http/errors.ts';

export const ledgerErrors = errorTable<LedgerError>({
  invitation_code_not_found: { status: 400, error: 'invalid', description: 'No waiting invitation has this code.' },
  named_plan_not_found: { status: 400, error: 'invalid', description: 'A distribution plan id is not a live plan of the design its loop names.' },
  own_invitation: { status: 400, error: 'invalid', description: 'The sender of an invitation cannot accept it.' },
  send_failed: { status: 400, error: 'invalid', description: 'The cash could not be sent; see send_errors.' },
  transfer_not_found: { status: 403, error: 'not_stakeholder', description: 'No such transfer among the transfers this profile takes part in.' },
  not_stakeholder: { status: 403, description: 'Only stakeholders of a transfer may see it.' },
  not_waiting: { status: 400, description: 'The transfer is not waiting.' },
  cannot_retract: { status: 400, description: 'The transfer can no longer be retracted.' },
  invalid_reason: { status: 400, error: 'invalid', description: 'The reason is not valid for this transfer.' },
  wrong_permission: { status: 403, error: 'insufficient_scope', description: 'The access token does not carry the permission this call needs.' },
  not_initiator: { status: 403, description: 'Only the profile that initiated the transfer may do this.' },
  not_recipient: { status: 403, description: 'Only the invited recipient may do this.' },
  code_not_found: { status: 400, description: 'No waiting payment code matches.' },
  code_already_used: { status: 400, description: 'The payment code was already used.' },
  code_limited: { status: 400, description: 'The payment code cannot release this amount.' },
  paycode_mismatch: { status: 400, error: 'invalid', description: 'The payment code does not belong to this transfer.' },
  bank_account_not_found: { status: 400, error: 'invalid', description: 'No such bank account on this profile.' },
  deposit_offer_not_found: { status: 400, error: 'invalid', description: 'No such deposit offer or fee option; call presend first.' },
  no_issuer: { status: 400, error: 'invalid', description: 'No open loop issuer is designated.' },
  not_issuer: { status: 400, error: 'invalid', description: 'The profile lacks the issue_open_loop feature.' },
  named_profile_not_found: { status: 400, error: 'invalid', description: 'No such profile.' },
  rate_not_found: { status: 400, error: 'invalid', description: 'No exchange rate for this pair of currencies.' },
  invalid_amount: { status: 400, error: 'invalid', description: 'The amount is not valid.' },
  agreement_inactive: { status: 409, error: 'agreement_inactive', description: 'The agreement this was made under is no longer active.' },
  dedup_id_reused: { status: 409, description: 'This dedup_id already names another transfer of this caller (other parties or amounts).' },
});

const invalidFields: Partial<Record<LedgerError, string>> = {
  invalid_reason: 'reason',
  paycode_mismatch: 'paycode',
  bank_account_not_found: 'account_id',
  deposit_offer_not_found: 'offer_name',
  invalid_amount: 'amount',
};

/** Throws the mapped HTTP error of a failure. */
export function raise(result: Failure): never {
  const field = invalidFields[result.error];
  throw httpError(ledgerErrors, result.error, {
    description: result.detail,
    invalid: field ? { [field]: result.detail ?? ledgerErrors[result.error].description } : undefined,
    fields: result.sendErrors ? { send_errors: result.sendErrors } : undefined,
  });
}
