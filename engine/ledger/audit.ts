// The audit that proves no cash was created or lost: the ledger totals against the notes and the
// movements, balances against notes, reserves against brand cash, plus each domain's own checks.
import { formatMinor } from '../money.ts';
import { auditMismatchesMax } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import type { AuditCheck, AuditReport, LedgerContext } from './service-types.ts';

import * as store from './store.ts';


export function addAuditCheck(ctx: LedgerContext, check: AuditCheck): void {
  ctx.auditChecks.push(check);
}

/** Per loop and currency: issued cash is live, redeemed or expired, and the notes and movements agree. */
export function totalsProblems(rows: store.AuditRow[]): string[] {
  const problems: string[] = [];
  for (const row of rows) {
    const name = `${row.loop_id}/${row.currency}`;
    const live = row.held + row.in_flight + row.reserved;
    if (row.issued !== live + row.redeemed + row.expired) {
      problems.push(`${name}: issued (${row.issued}) != held + in flight + reserved + redeemed + expired (${live + row.redeemed + row.expired})`);
    }
    if (row.notes_live !== live) problems.push(`${name}: live notes (${row.notes_live}) != held + in flight + reserved (${live})`);
    if (row.notes_expired !== row.expired) problems.push(`${name}: expired notes (${row.notes_expired}) != expired total (${row.expired})`);
    if (row.expired_movements !== row.expired) problems.push(`${name}: expire movements (${row.expired_movements}) != expired total (${row.expired})`);
    if (row.notes_redeemed !== row.redeemed) problems.push(`${name}: redeemed notes (${row.notes_redeemed}) != redeemed total (${row.redeemed})`);
    if (row.issued_movements !== row.issued) problems.push(`${name}: issue movements (${row.issued_movements}) != issued total (${row.issued})`);
    if (row.redeemed_movements !== row.redeemed) problems.push(`${name}: deposit movements (${row.redeemed_movements}) != redeemed total (${row.redeemed})`);
  }
  return problems;
}

/** Per wallet and loop: the balance agrees with the notes held (the first auditMismatchesMax that do not). */
async function walletProblems(db: Queryable): Promise<string[]> {
  const problems: string[] = [];
  for (const mismatch of await store.selectBalanceMismatches(db, auditMismatchesMax)) {
    problems.push(`wallet ${mismatch.profile_id} ${mismatch.loop_id}/${mismatch.currency}: balance ${mismatch.balance} != notes ${mismatch.notes}`);
  }
  return problems;
}

export async function audit(ctx: LedgerContext, db: Queryable = ctx.core.sql): Promise<AuditReport> {
  const rows = await store.selectAuditTotals(db);
  const problems = [...totalsProblems(rows), ...(await walletProblems(db))];
  const reserves = await store.selectReserves(db);
  for (const reserve of reserves) {
    if (reserve.reserve !== reserve.needed) problems.push(`design ${reserve.design_id} ${reserve.currency}: reserve (${reserve.reserve}) != what its brand cash needs (${reserve.needed})`);
  }
  const negative = await store.countNegativeBalances(db);
  if (negative > 0) problems.push(`${negative} negative balances`);
  const orphans = await store.countOrphanHeldNotes(db);
  if (orphans > 0) problems.push(`${orphans} notes held by transfers that have ended`);
  for (const check of ctx.auditChecks) problems.push(...(await check(db)));
  return {
    ok: problems.length === 0,
    totals: rows.map((row) => ({
      loop_id: row.loop_id, currency: row.currency, issued: formatMinor(row.issued, row.currency), redeemed: formatMinor(row.redeemed, row.currency),
      held: formatMinor(row.held, row.currency), in_flight: formatMinor(row.in_flight, row.currency),
      reserved: formatMinor(row.reserved, row.currency), expired: formatMinor(row.expired, row.currency),
    })),
    reserves: reserves.map((row) => ({ design_id: row.design_id, currency: row.currency, reserve: formatMinor(row.reserve, row.currency), needed: formatMinor(row.needed, row.currency) })),
    problems,
  };
}
