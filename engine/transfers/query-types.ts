// The types of queries.ts (re-exported there), in a leaf module: the files queries.ts imports use them
// without importing queries.ts back (no import cycle).
import type { Core } from '../core.ts';
import type { Failure } from '../ledger/errors.ts';
import type { ProfileRecord, ProfilesService } from '../profiles/service.ts';
import type { Queryable } from '../storage/database.ts';
import type { TransfersService } from './service.ts';
import type { PaycodeSecrets } from './paycode-secrets.ts';
import type { PartyInfo } from './views.ts';

export interface HistoryInput {
  profileId: string;
  offset: number;
  limit: number;
  orderColumn: 'start' | 'timestamp';
  orderDirection: 'asc' | 'desc';
  appdata: Record<string, string>;
}

export interface SyncInput {
  profileId: string;
  syncTs: Date;
  transferId: string | null;
  limit: number;
  countRemain: boolean;
}

export interface TransferQueries {
  detail(viewerId: string, transferId: string, db?: Queryable): Promise<{ ok: true; transfer: Record<string, unknown> } | Failure>;
  /** Transfer (list shape) for any stakeholder. */
  summary(transferId: string): Promise<Record<string, unknown>>;
  history(input: HistoryInput): Promise<{ results: Record<string, unknown>[]; more: boolean }>;
  sync(input: SyncInput): Promise<{ results: Record<string, unknown>[]; more: boolean; first_sync_ts: string | null; last_sync_ts: string | null; remain?: number }>;
  presend(input: { senderId: string; recipientUid: string; senderUid?: string; serialNumbers?: string; closedLoopOnly?: boolean }, transfers: TransfersService): Promise<{ ok: true; body: Record<string, unknown> } | Failure>;
  partyInfo(profile: ProfileRecord, uid?: string): PartyInfo;
}

/** What the reads share, built once by createTransferQueries. */
export interface QueriesContext {
  core: Core;
  profiles: ProfilesService;
  paycodeSecrets: PaycodeSecrets;
}
