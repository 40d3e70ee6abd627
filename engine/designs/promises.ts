// The audit's promise check (issue 21): every redemption of brand cash settles by the terms its
// distribution kept (migration 0402): the redeemer and each after-redemption row are paid from the
// reserve or shown as owed (pending, then settled by a settler) at least what those terms promise,
// and any more is only reserve already paid in. It joins `cashloop audit` beside the ledger's checks.
import type { Queryable } from '../storage/database.ts';
import * as store from './store.ts';

const brokenPromisesMax = 20;

export async function promiseProblems(db: Queryable): Promise<string[]> {
  const rows = await store.selectBrokenPromises(db, brokenPromisesMax);
  return rows.map((row) => `redemption ${row.redemption_transfer_id} of design ${row.design_id} (distribution ${row.dist_tid}): paid or owed ${row.settled} ` +
    `(redeemer ${row.settled_redeemer}, from the reserve ${row.funded}) but the terms at distribution promise ${row.owed} (redeemer ${row.owed_redeemer})`);
}
