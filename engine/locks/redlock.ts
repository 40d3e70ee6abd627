// Redlock over ioredis: one Redis node, or several independent nodes for a quorum.
import { Redis } from 'ioredis';
import { Redlock, ResourceLockedError, ExecutionError } from '@sesamecare-oss/redlock';
import { lockQuorumWaitMs, lockRetryCount, lockRoundRetryCount, lockRetryDelayMs, lockRetryJitterMs, lockTtlMs } from '../limits.ts';
import { LockUnavailableError, stableOrder, type LockHold, type LockService } from './lock.ts';
import { createMemoryLocks } from './memory.ts';
import type { Logger } from '../logger.ts';

export interface RedlockOptions {
  urls: readonly string[];
  keyPrefix: string;
  ttlMs?: number;
  /** Connection errors go here as JSON log lines (never ioredis's own "Unhandled error event"). */
  logger?: Logger;
}

type Outcome = { settled: false } | { settled: true; value: unknown } | { settled: true; error: unknown };

/** One ioredis client per node; each outage is logged once, when it starts (ioredis reconnects by itself). */
function connectNodes(urls: readonly string[], logger: Logger | undefined): Redis[] {
  // No offline queue: a vote sent to a node that is down fails at once instead of waiting for it.
  const clients = urls.map((url) => new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: false, lazyConnect: false, enableAutoPipelining: true }));
  clients.forEach((client, index) => {
    let reported = false;
    client.on('error', (error: Error) => {
      if (reported) return;
      reported = true;
      logger?.warn('redis unreachable', { node: index, error: error.message });
    });
    client.on('ready', () => {
      if (reported) logger?.info('redis reachable again', { node: index });
      reported = false;
    });
  });
  return clients;
}

/** Waits (briefly, through a restart) until a majority of nodes is connected; else 503 busy. */
async function awaitQuorum(connected: () => boolean, resources: readonly string[]): Promise<void> {
  const deadline = Date.now() + lockQuorumWaitMs;
  while (!connected()) {
    if (Date.now() >= deadline) throw new LockUnavailableError(resources);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** ioredis's errors for a command it could not send, or got no answer for: the server is out of reach. */
const redisUnreachableMessages = new Set(['Connection is closed.', "Stream isn't writeable and enableOfflineQueue options is false", 'Command timed out', 'connect ETIMEDOUT']);
/** Redis's own answers while it cannot serve yet: loading its data, a replica (a failover), a busy script. */
const redisNotServingReply = /^(LOADING|READONLY|MASTERDOWN|BUSY|TRYAGAIN|CLUSTERDOWN) /;

/**
 * Whether an error from a Redis client (the locks' or the rate limits') says Redis is out of reach
 * for the moment rather than that a command was wrong: a retry may succeed, so the edge answers 503.
 */
export function isRedisUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'MaxRetriesPerRequestError') return true;
  if (redisUnreachableMessages.has(error.message)) return true;
  return error.name === 'ReplyError' && redisNotServingReply.test(error.message);
}

export function createRedlockLocks(options: RedlockOptions): LockService & { clients: Redis[] } {
  const clients = connectNodes(options.urls, options.logger);
  const quorum = Math.floor(clients.length / 2) + 1;
  const connected = () => clients.filter((client) => client.status === 'ready').length >= quorum;
  const ttlMs = options.ttlMs ?? lockTtlMs;
  // Its own retries are a short round: an extension or a release on a node that is down gives up
  // within milliseconds (never holding the wallet's local queue or the answer for seconds).
  const redlock = new Redlock(clients, {
    driftFactor: 0.01,
    retryCount: lockRoundRetryCount,
    retryDelay: lockRetryDelayMs,
    retryJitter: lockRetryJitterMs,
    automaticExtensionThreshold: Math.min(500, Math.floor(ttlMs / 3)),
  });
  // Errors surface through using(); the event only reports them.
  redlock.on('error', () => {});
  const roundsMax = Math.ceil(lockRetryCount / (lockRoundRetryCount + 1));

  // Waiters in this process queue in memory, so only the head of each queue polls Redis; the
  // rest wake in order the moment it is done, instead of polling and racing each other.
  const local = createMemoryLocks();

  async function usingRedlock<R>(resources: readonly string[], routine: (hold: LockHold) => Promise<R>): Promise<R> {
    const keys = stableOrder(resources).map((resource) => `${options.keyPrefix}lock:${resource}`);
    // The routine's own outcome wins over a failed release: a command that committed has
    // committed, even if its lock expired a moment later.
    let outcome: Outcome = { settled: false };
    // The acquire goes in rounds: a quorum lost meanwhile answers within lockQuorumWaitMs instead
    // of after lockRetryCount tries that each fail at once on a node that is down.
    for (let round = 1; !outcome.settled; round++) {
      await awaitQuorum(connected, resources);
      try {
        await redlock.using(keys, ttlMs, async (signal, context) => {
          try {
            outcome = { settled: true, value: await routine({ isHeld: () => !signal.aborted && Date.now() < context.lock.expiration }) };
          } catch (error) {
            outcome = { settled: true, error };
          }
        });
      } catch (error) {
        if (outcome.settled) break;
        if (!(error instanceof ResourceLockedError || error instanceof ExecutionError)) throw error;
        if (round >= roundsMax) throw new LockUnavailableError(resources);
      }
    }
    const settled = outcome as Outcome;
    if (!settled.settled) throw new Error('redlock routine did not run');
    if ('error' in settled) throw settled.error;
    return settled.value as R;
  }

  return {
    kind: 'redlock',
    clients,
    using(resources, routine) {
      return local.using(resources, () => usingRedlock(resources, routine));
    },
    async ping() {
      try {
        const answers = await Promise.all(clients.map((client) => client.ping()));
        return answers.filter((answer) => answer === 'PONG').length > clients.length / 2;
      } catch {
        return false;
      }
    },
    async close() {
      await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}
