// Named outcomes of funding proxy calls; api/routes/fundproxy.ts maps each once.
export type FundProxyError = 'invalid' | 'account_not_found';

export type FundProxyFailure = { ok: false; error: FundProxyError; invalid?: Record<string, string>; description?: string };
