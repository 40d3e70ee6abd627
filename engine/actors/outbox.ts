// Effects after commit. Each outbox row is delivered by the handler for its kind, at least once,
// retried with exponential backoff up to a bounded number of attempts, then parked as failed.
import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import {
  outboxAttemptsMax, outboxBackoffBaseMs, outboxBatchMax, outboxDeliveredRetentionMs, outboxLeaseMs, outboxPruneBatchMax, outboxPruneIntervalMs,
  outboxPruneRoundsMax, outboxRecordRetentionMs,
} from '../limits.ts';
import type { Metrics } from '../metrics.ts';
import type { Sql } from '../storage/database.ts';
import { periodicRun } from './periodic.ts';
import * as store from './store.ts';

/** Delivers one effect. Throwing means "try again later". */
export type EffectHandler = (payload: any, context: { outboxId: bigint; attempt: number }) => Promise<void>;

/** How often and how far apart a kind's deliveries are tried (the outbox defaults otherwise). */
export interface RetryPolicy {
  attemptsMax: number;
  backoffBaseMs: number;
}

export interface Outbox {
  register(kind: string, handler: EffectHandler, policy?: RetryPolicy): void;
  /** Tries the given rows now (called right after their commit). */
  kick(ids: bigint[]): void;
  /** Delivers every due row once; returns how many were attempted. */
  runOnce(): Promise<number>;
  /** Deletes rows past their retention (outboxDeliveredRetentionMs, outboxRecordRetentionMs); answers how many. */
  prune(): Promise<number>;
  /** Delivers until nothing is due (tests and shutdown). */
  drain(roundsMax?: number): Promise<void>;
  start(intervalMs: number): void;
  stop(): Promise<void>;
}

/** A failed delivery: retried after an exponential backoff, or parked as failed after the last attempt. */
async function recordFailure(deps: { sql: Sql; clock: Clock; logger: Logger; metrics: Metrics }, row: store.OutboxRow, policy: RetryPolicy, message: string): Promise<void> {
  const { sql, clock, logger, metrics } = deps;
  if (row.attempts >= policy.attemptsMax) {
    await store.markOutboxFailed(sql, row.id, clock.now(), message);
    metrics.outboxDeliveries.inc({ kind: row.kind, outcome: 'failed' });
    logger.error('outbox delivery gave up', { outboxId: String(row.id), kind: row.kind, attempts: row.attempts, error: message });
    return;
  }
  const backoffMs = policy.backoffBaseMs * 2 ** (row.attempts - 1);
  await store.markOutboxRetry(sql, row.id, new Date(clock.now().getTime() + backoffMs), message);
  metrics.outboxDeliveries.inc({ kind: row.kind, outcome: 'retry' });
  logger.warn('outbox delivery failed; will retry', { outboxId: String(row.id), kind: row.kind, attempts: row.attempts, error: message });
}

/** Keeps a delivery run in `inFlight` until it settles (stop and drain wait for it); logs its failure. */
function track(inFlight: Set<Promise<unknown>>, logger: Logger, promise: Promise<unknown>): void {
  const tracked = promise.catch((error) => logger.error('outbox run failed', { error })).finally(() => inFlight.delete(tracked));
  inFlight.add(tracked);
}

/** Rows past their retention, a batch per statement, at most outboxPruneRoundsMax batches; answers how many. */
async function pruneOutbox(sql: Sql, clock: Clock): Promise<number> {
  const now = clock.now().getTime();
  const deliveredBefore = new Date(now - outboxDeliveredRetentionMs);
  const recordsBefore = new Date(now - outboxRecordRetentionMs);
  let deleted = 0;
  for (let round = 0; round < outboxPruneRoundsMax; round++) {
    const count = await store.pruneOutbox(sql, deliveredBefore, recordsBefore, outboxPruneBatchMax);
    deleted += count;
    if (count < outboxPruneBatchMax) break;
  }
  return deleted;
}

/** `job`, run at most once per intervalMs of the clock (the first time intervalMs after this call). */
function throttled(clock: Clock, intervalMs: number, job: () => Promise<unknown>): () => Promise<void> {
  let lastAt = clock.now().getTime();
  return async () => {
    if (clock.now().getTime() - lastAt < intervalMs) return;
    lastAt = clock.now().getTime();
    await job();
  };
}

export function createOutbox(options: { sql: Sql; clock: Clock; logger: Logger; metrics: Metrics }): Outbox {
  const { sql, clock, logger, metrics } = options;
  const handlers = new Map<string, EffectHandler>();
  const policies = new Map<string, RetryPolicy>();
  const defaultPolicy: RetryPolicy = { attemptsMax: outboxAttemptsMax, backoffBaseMs: outboxBackoffBaseMs };
  const inFlight = new Set<Promise<unknown>>();

  async function deliver(row: store.OutboxRow): Promise<void> {
    const handler = handlers.get(row.kind);
    const now = () => clock.now();
    if (!handler) {
      await store.markOutboxFailed(sql, row.id, now(), `no handler for ${row.kind}`);
      logger.error('outbox row has no handler', { outboxId: String(row.id), kind: row.kind });
      return;
    }
    try {
      await handler(row.payload, { outboxId: row.id, attempt: row.attempts });
      await store.markOutboxDelivered(sql, row.id, now());
      metrics.outboxDeliveries.inc({ kind: row.kind, outcome: 'delivered' });
    } catch (error) {
      await recordFailure(options, row, policies.get(row.kind) ?? defaultPolicy, error instanceof Error ? error.message : String(error));
    }
  }

  async function leaseAndDeliver(ids?: bigint[]): Promise<number> {
    const now = clock.now();
    const rows = await store.leaseOutbox(sql, now, new Date(now.getTime() + outboxLeaseMs), outboxBatchMax, ids);
    // A batch is delivered concurrently: one slow handler (a webhook timing out after 10 s) neither
    // holds up the codes and payouts leased with it nor outlives the batch's lease.
    await Promise.all(rows.map(deliver));
    return rows.length;
  }

  // The loop delivers what is due each run and prunes every outboxPruneIntervalMs.
  const pruneWhenDue = throttled(clock, outboxPruneIntervalMs, () => pruneOutbox(sql, clock));
  const loop = periodicRun(async () => {
    await leaseAndDeliver();
    await pruneWhenDue();
  }, (error) => logger.error('outbox run failed', { error }));

  const outbox: Outbox = {
    register(kind, handler, policy) {
      handlers.set(kind, handler);
      if (policy) policies.set(kind, policy);
    },
    kick(ids) {
      track(inFlight, logger, leaseAndDeliver(ids));
    },
    runOnce() {
      return leaseAndDeliver();
    },
    prune: () => pruneOutbox(sql, clock),
    async drain(roundsMax = 50) {
      await Promise.all([...inFlight]);
      for (let round = 0; round < roundsMax; round++) {
        if ((await leaseAndDeliver()) === 0) return;
      }
    },
    start(intervalMs) {
      loop.start(intervalMs);
    },
    async stop() {
      loop.stop();
      await Promise.all([...inFlight]);
    },
  };
  return outbox;
}
