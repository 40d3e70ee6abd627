// A transfer's row as other domains read it. New transfers are recorded through the gate
// (gate.ts: recordTransfer), dedup keys claimed by it (gate.ts: idempotently). The SQL is
// store.ts, this domain's alone.
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
