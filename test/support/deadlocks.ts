// Postgres's count of deadlocks in a test's database (pg_stat_database.deadlocks), asserted unmoved
// once every backend of the database has flushed its statistics: a state to poll, not a time to sleep.
import type { Sql } from 'postgres';

/**
 * A backend flushes its pending statistics as it goes idle, unless it flushed less than a second
 * before; then at the latest after this long idle (PGSTAT_IDLE_INTERVAL in Postgres 15's pgstat.c).
 */
const statisticsIdleFlushMs = 10_000;
/** A backend flushes at an idle transition unless it flushed less than this before (PGSTAT_MIN_INTERVAL), with a margin. */
const flushMinIntervalMs = 1_500;
/** How long the backends may stay busy before the check gives up. */
const quietWaitMsMax = 60_000;
const pollMs = 250;

/** Postgres's count of deadlocks in this database (statistics flushed so far). */
export async function deadlocks(sql: Sql): Promise<number> {
  const [row] = await sql<{ deadlocks: number }[]>`select deadlocks::int as deadlocks from pg_stat_database where datname = current_database()`;
  return row.deadlocks;
}

/**
 * Throws if the deadlock count moved from `before`: as soon as it does, or once every other client
 * backend of the database has flushed what it counted before this call (the load it checks has
 * ended). A backend has, once it went idle at least flushMinIntervalMs after the call (a report at
 * an idle transition skips the flush only when one ran less than that before, and that one ran
 * after the call), or once it has been idle statisticsIdleFlushMs. Background loops keep a pool's
 * backends busy now and then, so "idle for 10 s" alone may never come. The polls run on one
 * reserved connection, so the check's own queries keep no other backend busy.
 */
export async function assertNoDeadlockSince(sql: Sql, before: number, what: string): Promise<void> {
  const reserved = await sql.reserve();
  try {
    const [{ since }] = await reserved<{ since: Date }[]>`select clock_timestamp() as since`;
    const deadline = Date.now() + quietWaitMsMax;
    for (;;) {
      const [row] = await reserved<{ deadlocks: number; unflushed: number }[]>`
        select (select deadlocks::int from pg_stat_database where datname = current_database()) as deadlocks,
          (select count(*)::int from pg_stat_activity
            where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()
              and not (state = 'idle' and (state_change > ${since}::timestamptz + make_interval(secs => ${flushMinIntervalMs / 1000})
                or state_change < clock_timestamp() - make_interval(secs => ${statisticsIdleFlushMs / 1000})))) as unflushed`;
      if (row.deadlocks !== before) throw new Error(`${what}: Postgres counted ${row.deadlocks - before} deadlock(s)`);
      if (row.unflushed === 0) return;
      if (Date.now() > deadline) throw new Error(`${what}: ${row.unflushed} backend(s) still busy after ${quietWaitMsMax} ms; their deadlock statistics are unknown`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } finally {
    reserved.release();
  }
}
