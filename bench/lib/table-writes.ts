// Rows written to a database, per table, from Postgres's own counters (pg_stat_user_tables:
// inserted + updated + deleted rows, those of data-modifying CTEs included). A backend hands its
// counts to the shared statistics at most once a second while busy, and within 10 s of going idle
// (PGSTAT_IDLE_INTERVAL) or when it exits, so a reading is taken statsFlushWaitMs after the work.
import postgres from 'postgres';

export type TableWrites = Map<string, number>;

/** Postgres's idle flush of a backend's statistics (10 s) and a second to spare. */
export const statsFlushWaitMs = 11_000;

/** The database's rows written per table, as the shared statistics hold them now. */
export async function tableWrites(databaseUrl: string): Promise<TableWrites> {
  // A new connection per reading: a session keeps its own snapshot of the statistics.
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ relname: string; written: string }[]>`
      select relname, (n_tup_ins + n_tup_upd + n_tup_del)::text as written from pg_stat_user_tables`;
    return new Map(rows.map((row) => [row.relname, Number(row.written)]));
  } finally {
    await sql.end();
  }
}

/** Rows written between two readings, per table (tables that grew only), largest first. */
export function writesBetween(before: TableWrites, after: TableWrites): [string, number][] {
  const delta: [string, number][] = [];
  for (const [table, count] of after) {
    const grown = count - (before.get(table) ?? 0);
    if (grown > 0) delta.push([table, grown]);
  }
  return delta.sort((left, right) => right[1] - left[1]);
}
