// ACH funding proxies: `getAch` answers (creating once) an account number at the service's bank
// for an issuer, an optional distributor and a recipient; `deposit` is money arriving on the
// simulated ACH rail: one `receive_ach_confirm` transfer that issues open loop cash (movement
// `issue` to the issuer), grants it to the distributor when one is named and passes it on to the
// recipient, whose wallet holds the note, with the proxy's appdata.
import type { Core } from '../core.ts';
import type { ProfilesService } from '../profiles/service.ts';
import { deposit } from './deposit.ts';
import { getAch } from './proxies.ts';
import type { FundProxyService, FundProxyContext } from './types.ts';
export type { FundProxyJson, FundProxyService, FundProxyContext } from './types.ts';

export { routingNumberValid } from './proxies.ts';

export function createFundProxyService(core: Core, dependencies: { profiles: ProfilesService }): FundProxyService {
  const ctx: FundProxyContext = { core, profiles: dependencies.profiles };
  return {
    getAch: (input) => getAch(ctx, input),
    deposit: (input) => deposit(ctx, input),
  };
}
