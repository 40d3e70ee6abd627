// The receive feed (supplement 4.11, 6.2): a profile's recent receipts, and a subscription told of
// each new one after its commit, in whichever process it committed. The transport is the edge's
// (api/feed); this service knows receipts, subscriptions and the bus.
import type { Redis } from 'ioredis';
import type { Core } from '../core.ts';
import { feedAnnounceAttemptsMax, feedAnnounceBackoffBaseMs, feedCatchUpOverlapMs } from '../limits.ts';
import type { ProfilesService } from '../profiles/service.ts';
import type { TokensService } from '../tokens/service.ts';
import { createFeedBus, type FeedBus } from './bus.ts';
import { createFeedHub, type FeedHub, type FeedSink } from './hub.ts';
import { toReceipts, type ReceiptJson } from './receipts.ts';
import * as store from './store.ts';

export type { FeedSink } from './hub.ts';
export type { ReceiptJson } from './receipts.ts';
export type { FeedEnd, FeedFailure } from './errors.ts';

export const feedEffectKind = 'feed.receipt';

export interface ReceiptsPage {
  receipts: ReceiptJson[];
  /** More receipts lie before the oldest listed (ask again with its timestamp as before_timestamp). */
  more: boolean;
}

export interface FeedService {
  /**
   * A profile's receipts, newest first: before `before` when given; with `after`, those at or after it
   * (and feedCatchUpOverlapMs earlier, so a reconnect misses nothing: skip transfer ids already seen).
   */
  receipts(profileId: string, query: { limit: number; before: Date | null; after: Date | null }): Promise<ReceiptsPage>;
  subscribe: FeedHub['subscribe'];
  /** Open subscriptions in this process. */
  subscriptions(): number;
  bus(): FeedBus['kind'];
  close(): Promise<void>;
}

export async function createFeedService(core: Core, dependencies: { profiles: ProfilesService; tokens: TokensService; redis: Redis | null; keyPrefix: string }): Promise<FeedService> {
  const bus = createFeedBus({ database: core.database, redis: dependencies.redis, keyPrefix: dependencies.keyPrefix, logger: core.logger });
  const ctx = { core, profiles: dependencies.profiles, tokens: dependencies.tokens, bus };
  const hub = createFeedHub(ctx);
  await hub.start();
  // Right after each commit of a process with subscribers, due receipts are claimed from the outbox and
  // announced. A process without subscribers does not claim after its commits (a claim per commit cost
  // its sends about 6%, bench --gate-compare): processes with subscribers claim its rows every
  // feedRelayIntervalMs, and the outbox's poller announces what nobody claimed.
  core.commands.onCommit(() => {
    if (hub.size() > 0) hub.wake();
  });
  // Rows no relay claimed (no process had subscribers) are announced by the outbox's own poller.
  // An announcement is worth most at once: it is retried briefly (about 8 s), then parked, so an outage
  // of the bus cannot hold it for minutes; a till that missed it catches up with after_timestamp.
  core.outbox.register(feedEffectKind, (payload: store.Announcement) => bus.publish([payload]), { attemptsMax: feedAnnounceAttemptsMax, backoffBaseMs: feedAnnounceBackoffBaseMs });
  return {
    async receipts(profileId, query) {
      const after = query.after ? new Date(query.after.getTime() - feedCatchUpOverlapMs) : null;
      const rows = await store.selectReceipts(core.sql, { profileId, before: query.before, after, limit: query.limit });
      return { receipts: await toReceipts(ctx, rows.slice(0, query.limit)), more: rows.length > query.limit };
    },
    subscribe: (input, sink: FeedSink) => hub.subscribe(input, sink),
    subscriptions: () => hub.size(),
    bus: () => bus.kind,
    close: () => hub.close(),
  };
}
