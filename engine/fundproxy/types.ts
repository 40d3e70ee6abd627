// The types of engine/fundproxy: the service's interface and what its parts share. A leaf
// module: it imports types only, so the parts import it without importing service.ts (no import cycle).
import type { Core } from '../core.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { Decimal } from '../money.ts';
import type { FundProxyFailure } from './errors.ts';
import type { FundProxyRow } from './store.ts';

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
