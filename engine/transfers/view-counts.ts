// The transfers domain's check in the ledger audit: every profile's count of views
// (transfer_view_counts, which history_sync's `remain` reads) equals its rows of transfer_views.
import { auditMismatchesMax } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import * as store from './store.ts';

/** The first few profiles whose count of views is wrong; none when every writer of views counted them. */
export async function viewCountProblems(db: Queryable): Promise<string[]> {
  const rows = await store.selectViewCountMismatches(db, auditMismatchesMax);
  return rows.map((row) => `profile ${row.profile_id}: counted views (${row.counted}) != its transfer views (${row.views})`);
}
