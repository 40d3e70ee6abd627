// How a receipt committed in one process reaches the subscribers of every process: Redis pub/sub
// when Redis is configured, Postgres LISTEN/NOTIFY on a Postgres server without it, and a plain
// in-process call on the embedded PGlite (which serves one process and delivers no notifications
// through its socket). The bus only announces; the receipts themselves are read from Postgres.
import type { Redis } from 'ioredis';
import { feedBusItemsMax, feedBusListenWaitMs } from '../limits.ts';
import type { Logger } from '../logger.ts';
import type { Database } from '../storage/database.ts';
import type { Announcement } from './store.ts';

/** Hears each announced batch, with the process that announced it (null: the outbox's own delivery). */
export type FeedBusHandler = (items: Announcement[], origin: string | null) => void;

export interface FeedBus {
  kind: 'memory' | 'postgres' | 'redis';
  /** Announces receipts to every process's listener (this one's too); `origin` names the announcing process. */
  publish(items: readonly Announcement[], origin?: string): Promise<void>;
  /** Starts listening; each announced batch reaches `handler`. */
  listen(handler: FeedBusHandler): Promise<void>;
  close(): Promise<void>;
}

const postgresChannel = 'cashloop_feed';

/** The wire form of a batch: {o: origin, i: [[profile_id, transfer_id], ...]}, small enough for a NOTIFY payload. */
function encode(items: readonly Announcement[], origin: string | null): string[] {
  const chunks: string[] = [];
  for (let start = 0; start < items.length; start += feedBusItemsMax) {
    chunks.push(JSON.stringify({ o: origin, i: items.slice(start, start + feedBusItemsMax).map((item) => [item.profile_id, item.transfer_id]) }));
  }
  return chunks;
}

/** Reads a batch (also the bare array of pairs an older process announces). */
function decode(text: string, logger: Logger): { items: Announcement[]; origin: string | null } {
  try {
    const parsed = JSON.parse(text) as [string, string][] | { o: string | null; i: [string, string][] };
    const [pairs, origin] = Array.isArray(parsed) ? [parsed, null] : [parsed.i, parsed.o ?? null];
    return { items: pairs.map(([profileId, transferId]) => ({ profile_id: String(profileId), transfer_id: String(transferId) })), origin };
  } catch (error) {
    logger.error('feed bus message is not a batch of receipts', { error });
    return { items: [], origin: null };
  }
}

function memoryBus(): FeedBus {
  let listener: FeedBusHandler | null = null;
  return {
    kind: 'memory',
    async publish(items, origin) {
      const copy = [...items];
      if (listener && copy.length > 0) queueMicrotask(() => listener?.(copy, origin ?? null));
    },
    async listen(handler) {
      listener = handler;
    },
    async close() {
      listener = null;
    },
  };
}

function postgresBus(database: Database, logger: Logger): FeedBus {
  let unlisten: (() => Promise<void>) | null = null;
  return {
    kind: 'postgres',
    async publish(items, origin) {
      for (const chunk of encode(items, origin ?? null)) await database.sql.notify(postgresChannel, chunk);
    },
    async listen(handler) {
      const listening = await database.sql.listen(postgresChannel, (payload) => {
        const batch = decode(payload, logger);
        handler(batch.items, batch.origin);
      });
      unlisten = () => listening.unlisten();
    },
    async close() {
      await unlisten?.().catch(() => {});
      unlisten = null;
    },
  };
}

function redisBus(redis: Redis, channel: string, logger: Logger): FeedBus {
  // A subscribed ioredis connection takes no other commands: the listener has its own, made when a
  // process first listens (lazyConnect), so a start-up that stops early has no connection to keep it alive.
  const subscriber = redis.duplicate({ enableAutoPipelining: false, enableOfflineQueue: true, lazyConnect: true, maxRetriesPerRequest: null });
  subscriber.on('error', (error: Error) => logger.warn('feed bus (redis) error', { error: error.message }));
  return {
    kind: 'redis',
    async publish(items, origin) {
      for (const chunk of encode(items, origin ?? null)) await redis.publish(channel, chunk);
    },
    async listen(handler) {
      subscriber.on('message', (from: string, text: string) => {
        if (from !== channel) return;
        const batch = decode(text, logger);
        handler(batch.items, batch.origin);
      });
      // The subscription waits for Redis however long it is away (maxRetriesPerRequest: null); start-up
      // waits for it at most feedBusListenWaitMs, so a Redis that is down is reported by the start-up
      // check (api/main.ts) instead of hanging here.
      const subscribed = subscriber.subscribe(channel).catch((error: Error) => logger.warn('feed bus (redis) could not subscribe', { error: error.message }));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([subscribed, new Promise((resolve) => (timer = setTimeout(resolve, feedBusListenWaitMs)))]);
      clearTimeout(timer);
    },
    async close() {
      subscriber.disconnect();
    },
  };
}

/** The bus for this deployment: Redis when configured, else Postgres's own notifications, else in-process. */
export function createFeedBus(options: { database: Database; redis: Redis | null; keyPrefix: string; logger: Logger }): FeedBus {
  if (options.redis) return redisBus(options.redis, `${options.keyPrefix}feed`, options.logger);
  if (options.database.kind === 'postgres') return postgresBus(options.database, options.logger);
  return memoryBus();
}
