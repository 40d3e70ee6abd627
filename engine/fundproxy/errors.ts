// Named outcomes of funding proxy calls; api/routes/fundproxy.ts maps each once.
import type { Refusal } from '../refusals.ts';
export type FundProxyError = 'invalid' | 'proxy_account_not_found' | 'recipient_wallet_closed' | 'issuer_not_permitted' | 'trace_number_reused';

export type FundProxyFailure = Refusal<FundProxyError>;

/** The failure naming one invalid field. */
export const invalid = (field: string, message: string): FundProxyFailure => ({ ok: false, error: 'invalid', invalid: { [field]: message } });
