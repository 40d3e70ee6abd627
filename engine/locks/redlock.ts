// Redlock over ioredis: one Redis node, or several independent nodes for a quorum.
import { Redis } from 'ioredis';
import { Redlock, ResourceLockedError, ExecutionError } from '@sesamecare-oss/redlock';
import { lockRetryCount, lockRetryDelayMs, lockRetryJitterMs, lockTtlMs } from '../limits.ts';
import { LockUnavailableError, stableOrder, type LockService } from './lock.ts';

export interface RedlockOptions {
  urls: readonly string[];
  keyPrefix: string;
  ttlMs?: number;
}

export function createRedlockLocks(options: RedlockOptions): LockService & { clients: Redis[] } {
  const clients = options.urls.map((url) => new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false }));
  const ttlMs = options.ttlMs ?? lockTtlMs;
  const redlock = new Redlock(clients, {
    driftFactor: 0.01,
    retryCount: lockRetryCount,
    retryDelay: lockRetryDelayMs,
    retryJitter: lockRetryJitterMs,
    automaticExtensionThreshold: Math.min(500, Math.floor(ttlMs / 3)),
  });
  // Errors surface through using(); the event only reports them.
  redlock.on('error', () => {});

  return {
    kind: 'redlock',
    clients,
    async using(resources, routine) {
      const keys = stableOrder(resources).map((resource) => `${options.keyPrefix}lock:${resource}`);
      // The routine's own outcome wins over a failed release: a command that committed has
      // committed, even if its lock expired a moment later.
      let outcome: { done: true; value: unknown } | { done: true; error: unknown } | { done: false } = { done: false };
      try {
        await redlock.using(keys, ttlMs, async (signal, context) => {
          try {
            outcome = { done: true, value: await routine({ isHeld: () => !signal.aborted && Date.now() < context.lock.expiration }) };
          } catch (error) {
            outcome = { done: true, error };
          }
        });
      } catch (error) {
        if (!outcome.done) {
          if (error instanceof ResourceLockedError || error instanceof ExecutionError) throw new LockUnavailableError(resources);
          throw error;
        }
      }
      const settled = outcome as unknown as { done: true; value?: unknown; error?: unknown };
      if ('error' in settled) throw settled.error;
      return settled.value as never;
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
