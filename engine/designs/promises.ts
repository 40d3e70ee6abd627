// The audit's promise check (issue 21): every redemption of brand cash settles by the terms its
// distribution kept (migration 0402): the redeemer and each after-redemption row are paid from the
// reserve or shown as owed (pending, then settled by a settler) at least what those terms promise,
// and any more is only reserve already paid in. It joins `cashloop audit` beside the ledger's checks.
import { owedByDistributorRowsMax } from '../limits.ts';
import { formatMinor } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import * as store from './store.ts';

const brokenPromisesMax = 20;

export async function promiseProblems(db: Queryable): Promise<string[]> {
  const rows = await store.selectBrokenPromises(db, brokenPromisesMax);
  return rows.map((row) => `redemption ${row.redemption_transfer_id} of design ${row.design_id} (distribution ${row.dist_tid}): paid or owed ${row.settled} ` +
    `(redeemer ${row.settled_redeemer}, from the reserve ${row.funded}) but the terms at distribution promise ${row.owed} (redeemer ${row.owed_redeemer})`);
}

/** The reserve each distributor's closed-loop sales left owed, per design: in all, due now (pending) and paid by a settler. */
export async function owedByDistributor(db: Queryable): Promise<{ design_id: string; distributor_id: string; currency: string; reserve_owed: string; pending: string; settled: string }[]> {
  const rows = await store.selectOwedByDistributor(db, owedByDistributorRowsMax);
  return rows.map((row) => ({
    design_id: row.design_id, distributor_id: row.distributor_id, currency: row.currency,
    reserve_owed: formatMinor(row.reserve_owed, row.currency), pending: formatMinor(row.pending, row.currency), settled: formatMinor(row.settled, row.currency),
  }));
}
