// A transfer's row as other domains read it, and a dedup key as they claim it, inside or outside
// their commands. New transfers are recorded through the gate (gate.ts: recordTransfer). The SQL
// is store.ts, this domain's alone.
import { dedupWindowMs } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import * as store from './store.ts';
import type { TransferRow } from './types.ts';

/** The transfer's row; null when there is none. */
export function transferById(db: Queryable, transferId: string): Promise<TransferRow | null> {
  return store.selectTransfer(db, transferId);
}

/** Whether the profile is one of the transfer's stakeholders (it sees the transfer). */
export function isTransferViewer(db: Queryable, transferId: string, profileId: string): Promise<boolean> {
  return store.isViewer(db, transferId, profileId);
}

/** Claims the caller's dedup key for a new transfer; false when a live key of the caller already names another. */
export function claimDedupKey(tx: Queryable, ownerId: string, key: string, transferId: string, at: Date): Promise<boolean> {
  return store.claimDedup(tx, ownerId, key, transferId, at, new Date(at.getTime() - dedupWindowMs));
}
