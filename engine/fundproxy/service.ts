// ACH funding proxies: `getAch` answers (creating once) an account number at the service's bank
// for an issuer, an optional distributor and a recipient; `deposit` is money arriving on the
// simulated ACH rail: one `receive_ach_confirm` transfer that issues open loop cash (movement
// `issue` to the issuer), grants it to the distributor when one is named and passes it on to the
// recipient, whose wallet holds the note, with the proxy's appdata.
import type { Core } from '../core.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { deposit } from './deposit.ts';
import type { Decimal } from '../money.ts';
import type { FundProxyFailure } from './errors.ts';
import type { FundProxyRow } from './store.ts';
import { getAch } from './proxies.ts';

export { routingNumberValid } from './proxies.ts';

/** A proxy on the wire: its row without the app that asked for it, created as an ISO timestamp. */
export type FundProxyJson = Omit<FundProxyRow, 'app_id' | 'created_at'> & { created: string };

export interface FundProxyService {
  getAch(input: { appId: string; appSite: string; routingNumber: string; issuerUid: string; distributorUid?: string; recipientUid: string; appdata: Record<string, string> }): Promise<{ ok: true; proxy: FundProxyJson } | FundProxyFailure>;
  /** ACH money arriving for an account: issued and delivered; a repeated trace number answers the first transfer. */
  deposit(input: { accountNumber: string; amount: Decimal; currency: string; traceNumber?: string }): Promise<{ ok: true; transferId: string; duplicate: boolean } | FundProxyFailure>;
}

export interface FundProxyContext {
  core: Core;
  profiles: ProfilesService;
}

export function createFundProxyService(core: Core, dependencies: { profiles: ProfilesService }): FundProxyService {
  const ctx: FundProxyContext = { core, profiles: dependencies.profiles };
  return {
    getAch: (input) => getAch(ctx, input),
    deposit: (input) => deposit(ctx, input),
  };
}
