// The transfers domain's check in the ledger audit: a transfer's sender and recipient see it through
// its columns (sender_sees, recipient_sees; migration 1060) and no row of transfer_views repeats one.
import { auditMismatchesMax } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import * as store from './store.ts';

/** The first few views a profile holds twice (a party's column and a row); none when every writer of views kept them apart. */
export async function viewProblems(db: Queryable): Promise<string[]> {
  const rows = await store.selectViewProblems(db, auditMismatchesMax);
  return rows.map((row) => `profile ${row.profile_id} sees transfer ${row.transfer_id} as a party and in transfer_views`);
}
