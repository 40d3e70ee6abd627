// The one shape of a refusal, whatever the domain: a named code (mapped to its HTTP answer once, in
// the domain's error table under api/routes/), and what the caller needs to correct the request.
// The gate's refusals take it (transfers/errors.ts GateRefusal), and the domains' own failures are
// this shape over their own codes. A leaf module below both ledger/ and transfers/.

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

export interface Refusal<Code extends string> {
  ok: false;
  error: Code;
  /** A send's refused fields (supplement 7.1): each a code, a field_name and its info. */
  sendErrors?: SendError[];
  /** What went wrong, in words (Failure's detail). */
  detail?: string;
  /** What went wrong, in words (the domains' description). */
  description?: string;
  /** Invalid fields, each named with the problem. */
  invalid?: Record<string, string>;
}
