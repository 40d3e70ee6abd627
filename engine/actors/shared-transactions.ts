// Shared transactions: commands that hold their locks queue here; a transaction (at most
// sharedTransactionsInFlightMax at a time) runs the queued commands' bodies on one connection
// (their statements pipeline together) after locking their shared rows in order, writes all
// their snapshots and commits once. If any body rejects or fails, the shared
// transaction rolls back and each command runs alone, still holding its locks, so every command
// keeps its own answer. Commands in one queue hold different locks (a lock is held once).
import type { Clock } from '../clock.ts';
import { sharedTransactionCommandsMax, sharedTransactionsInFlightMax } from '../limits.ts';
import type { LockHold } from '../locks/lock.ts';
import type { Metrics } from '../metrics.ts';
import { pipelinedTransaction, type Sql, type TransactionSql } from '../storage/database.ts';

/** Rows of one table that shared transactions lock up front (see RunOptions.shared). */
export interface SharedRowLocks {
  /** The table; tables are taken in the order of their names. */
  readonly table: string;
  /** Locks the rows of every key in one statement, in the table's one global order. */
  take(tx: TransactionSql, keys: readonly string[]): Promise<void>;
}

/** The rows a shared command locks that others may lock too. */
export interface SharedRows {
  rows: SharedRowLocks;
  keys: readonly string[];
  /**
   * The body locks these rows itself, in the same order, before it changes any (a send's first
   * statement does). Otherwise a command that runs alone takes them first, as a shared transaction
   * does, so every path holding them takes them in the one order.
   */
  takenByBody?: boolean;
}

/** A command that holds its locks and waits for a place in the next shared transaction. */
interface Waiting<U> {
  name: string;
  rows: SharedRows;
  hold: LockHold;
  body: (unit: U) => Promise<unknown>;
  startedAt: number;
  settle(outcome: { ok: true; value: unknown } | { ok: false; error: unknown }): void;
}

/** Thrown inside a shared transaction when one of its commands did not succeed: everything rolls back. */
class SharedTransactionAborted extends Error {
  constructor() {
    super('a command of a shared transaction did not succeed; each runs alone');
  }
}

export interface SharedTransactionOptions<U> {
  sql: Sql;
  clock: Clock;
  metrics: Metrics;
  /** Opens a command's unit over the shared transaction, and the writes that end it. */
  openUnit(tx: TransactionSql, now: Date): { unit: U; finish(): Promise<bigint[]> };
  /** Runs one command alone in its own transaction (its locks still held). */
  runAlone(name: string, body: (unit: U) => Promise<unknown>, hold: LockHold, startedAt: number): Promise<unknown>;
  /** The transaction a unit runs in. */
  txOf(unit: U): TransactionSql;
  /** Runs after every commit: delivers its effects (if any) and tells the commit listeners. */
  afterCommit(outboxIds: bigint[]): void;
}

export interface SharedTransactions<U> {
  /** Queues a command whose locks are held for the next shared transaction; answers what the command answers (its result or its rejection). */
  enqueue(name: string, rows: SharedRows, hold: LockHold, body: (unit: U) => Promise<unknown>, startedAt: number): Promise<unknown>;
}

/** Locks every command's shared rows: one ordered statement per table, tables in name order. */
function takeSharedRows<U>(tx: TransactionSql, batch: readonly Waiting<U>[]): Promise<void[]> {
  const keysByTable = new Map<SharedRowLocks, Set<string>>();
  for (const entry of batch) {
    const keys = keysByTable.get(entry.rows.rows) ?? new Set<string>();
    for (const key of entry.rows.keys) keys.add(key);
    keysByTable.set(entry.rows.rows, keys);
  }
  const tables = [...keysByTable].sort(([left], [right]) => (left.table < right.table ? -1 : left.table > right.table ? 1 : 0));
  return Promise.all(tables.map(([rows, keys]) => rows.take(tx, [...keys].sort())));
}

/** One transaction for the whole batch; throws SharedTransactionAborted (rolling back) unless every command succeeded. */
async function runBatch<U>(options: SharedTransactionOptions<U>, batch: readonly Waiting<U>[]): Promise<{ results: unknown[]; outboxIds: bigint[] }> {
  return (await pipelinedTransaction(options.sql, async (tx) => {
    const now = options.clock.now();
    // The shared rows are locked first, sent ahead of the bodies.
    const rowsTaken = takeSharedRows(tx, batch);
    rowsTaken.catch(() => {});
    const units = batch.map(() => options.openUnit(tx, now));
    const outcomes = await Promise.allSettled(batch.map((entry, index) => entry.body(units[index].unit)));
    await rowsTaken;
    if (outcomes.some((outcome) => outcome.status === 'rejected')) throw new SharedTransactionAborted();
    const written = await Promise.allSettled(units.map((entry) => entry.finish()));
    if (written.some((outcome) => outcome.status === 'rejected')) throw new SharedTransactionAborted();
    if (batch.some((entry) => !entry.hold.isHeld())) throw new SharedTransactionAborted();
    return {
      results: outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value),
      outboxIds: written.flatMap((outcome) => (outcome as PromiseFulfilledResult<bigint[]>).value),
    };
  })) as { results: unknown[]; outboxIds: bigint[] };
}

export function createSharedTransactions<U>(options: SharedTransactionOptions<U>): SharedTransactions<U> {
  const { metrics } = options;
  const waiting: Waiting<U>[] = [];
  let sharing = 0;

  async function runShared(batch: Waiting<U>[]): Promise<void> {
    if (batch.length === 1) {
      const [only] = batch;
      const body = only.rows.takenByBody ? only.body : async (unit: U) => {
        await only.rows.rows.take(options.txOf(unit), [...only.rows.keys].sort());
        return only.body(unit);
      };
      await options.runAlone(only.name, body, only.hold, only.startedAt).then(
        (value) => only.settle({ ok: true, value }),
        (error) => only.settle({ ok: false, error }),
      );
      return;
    }
    let committed: { results: unknown[]; outboxIds: bigint[] } | null = null;
    const begunAt = performance.now();
    const observe = (outcome: 'committed' | 'alone') => {
      metrics.sharedTransactionCommands.observe({ outcome }, batch.length);
      metrics.sharedTransactionDuration.observe({ outcome }, (performance.now() - begunAt) / 1000);
    };
    try {
      committed = await runBatch(options, batch);
    } catch {
      // Rolled back (a rejection, a conflict, a lost lock, a deadlock): each command alone.
      observe('alone');
      await Promise.all(batch.map((entry) => runShared([entry])));
      return;
    }
    observe('committed');
    const finishedAt = performance.now();
    batch.forEach((entry, index) => {
      metrics.commandDuration.observe({ command: entry.name, outcome: 'committed' }, (finishedAt - entry.startedAt) / 1000);
      entry.settle({ ok: true, value: committed!.results[index] });
    });
    options.afterCommit(committed.outboxIds);
  }

  function drain(): void {
    while (sharing < sharedTransactionsInFlightMax && waiting.length > 0) {
      sharing += 1;
      const batch = waiting.splice(0, sharedTransactionCommandsMax);
      runShared(batch).finally(() => {
        sharing -= 1;
        drain();
      });
    }
  }

  return {
    enqueue(name, rows, hold, body, startedAt) {
      return new Promise((resolve, reject) => {
        waiting.push({
          name, rows, hold, body, startedAt,
          settle: (outcome) => (outcome.ok ? resolve(outcome.value) : reject(outcome.error)),
        });
        // Commands that arrive in the same turn of the event loop start together.
        if (sharing < sharedTransactionsInFlightMax && waiting.length === 1) setImmediate(drain);
      });
    },
  };
}
