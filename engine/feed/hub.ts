// This process's feed subscriptions. Announcements arrive from the bus; the receipts of profiles
// with subscribers here are read once and written to each subscriber whose token still holds. While
// any subscription is open, the relay claims due feed.receipt outbox rows (from any process) and
// announces them on the bus, so a receipt reaches its subscribers within a relay interval of commit.
import { periodicRun } from '../actors/periodic.ts';
import { feedRelayBatchMax, feedRelayIntervalMs, feedSubscriptionsPerTokenMax, feedTokenCheckIntervalMs } from '../limits.ts';
import type { TokensService } from '../tokens/service.ts';
import type { FeedBus } from './bus.ts';
import type { FeedEnd, FeedFailure } from './errors.ts';
import { toReceipts, type ReceiptJson, type ReceiptsContext } from './receipts.ts';
import * as store from './store.ts';

/** Where a subscription's messages go (the edge's connection). `send` answers false when the subscriber is too far behind. */
export interface FeedSink {
  send(receipt: ReceiptJson): boolean;
  end(reason: FeedEnd): void;
}

interface Subscription {
  profileId: string;
  tokenId: string;
  token: string;
  sink: FeedSink;
  expiryTimer: NodeJS.Timeout | null;
}

export interface FeedHub {
  subscribe(input: { profileId: string; tokenId: string; token: string; hardExpiresAt: Date }, sink: FeedSink): { ok: true; unsubscribe(): void } | FeedFailure;
  /** Local subscriptions (metrics and tests). */
  size(): number;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface HubContext extends ReceiptsContext {
  tokens: TokensService;
  bus: FeedBus;
}

/** setTimeout takes at most about 24.8 days; a later expiry is caught by the periodic token check. */
const timerMsMax = 2 ** 31 - 1;

/** The subscriptions by profile and the count per token; `onFirst` and `onLast` start and stop the background work. */
function createRegistry(hooks: { onFirst(): void; onLast(): void }) {
  const byProfile = new Map<string, Set<Subscription>>();
  const perToken = new Map<string, number>();
  let count = 0;
  return {
    byProfile,
    held: (tokenId: string) => perToken.get(tokenId) ?? 0,
    size: () => count,
    all: () => [...byProfile.values()].flatMap((set) => [...set]),
    add(subscription: Subscription): void {
      byProfile.set(subscription.profileId, (byProfile.get(subscription.profileId) ?? new Set()).add(subscription));
      perToken.set(subscription.tokenId, (perToken.get(subscription.tokenId) ?? 0) + 1);
      count += 1;
      if (count === 1) hooks.onFirst();
    },
    /** False when it was already removed. */
    remove(subscription: Subscription): boolean {
      const set = byProfile.get(subscription.profileId);
      if (!set?.delete(subscription)) return false;
      if (set.size === 0) byProfile.delete(subscription.profileId);
      if (subscription.expiryTimer) clearTimeout(subscription.expiryTimer);
      const held = (perToken.get(subscription.tokenId) ?? 1) - 1;
      if (held === 0) perToken.delete(subscription.tokenId);
      else perToken.set(subscription.tokenId, held);
      count -= 1;
      if (count === 0) hooks.onLast();
      return true;
    },
  };
}

/** Claims due feed.receipt outbox rows (of any process) and announces them on the bus. */
function createRelay(ctx: HubContext) {
  return periodicRun(async () => {
    const items = await store.claimAnnouncements(ctx.core.sql, ctx.core.clock.now(), feedRelayBatchMax);
    if (items.length > 0) await ctx.bus.publish(items);
  }, (error) => ctx.core.logger.error('feed relay failed', { error }));
}

/** The token's hard expiry ends the subscription on time (a logout is caught at the next receipt or check). */
function armExpiry(subscription: Subscription, untilExpiryMs: number, check: () => Promise<unknown>): void {
  if (untilExpiryMs >= timerMsMax) return;
  subscription.expiryTimer = setTimeout(() => void check(), Math.max(untilExpiryMs, 0));
  subscription.expiryTimer.unref();
}

export function createFeedHub(ctx: HubContext): FeedHub {
  const logger = ctx.core.logger;
  const relay = createRelay(ctx);
  const tokenCheck = periodicRun(() => checkTokens(registry.all()), (error) => logger.error('feed token check failed', { error }));
  const registry = createRegistry({
    onFirst() {
      relay.start(feedRelayIntervalMs);
      tokenCheck.start(feedTokenCheckIntervalMs);
    },
    onLast() {
      relay.stop();
      tokenCheck.stop();
    },
  });

  function end(subscription: Subscription, reason: FeedEnd): void {
    if (registry.remove(subscription)) subscription.sink.end(reason);
  }

  /** Ends the subscriptions whose token no longer authenticates; answers those that hold. */
  async function checkTokens(subscriptions: Subscription[]): Promise<Subscription[]> {
    const checks = new Map<string, ReturnType<TokensService['authenticate']>>();
    for (const subscription of subscriptions) if (!checks.has(subscription.token)) checks.set(subscription.token, ctx.tokens.authenticate(subscription.token));
    const holding: Subscription[] = [];
    for (const subscription of subscriptions) {
      const check = await checks.get(subscription.token)!;
      if (check.ok) holding.push(subscription);
      else end(subscription, { error_code: '401', error: check.error });
    }
    return holding;
  }

  async function deliver(items: store.Announcement[]): Promise<void> {
    const wanted = items.filter((item) => registry.byProfile.has(item.profile_id));
    if (wanted.length === 0) return;
    const rows = await store.selectReceiptsOf(ctx.core.sql, [...new Set(wanted.map((item) => item.transfer_id))]);
    const receipts = await toReceipts(ctx, rows);
    for (const [index, row] of rows.entries()) {
      const subscriptions = await checkTokens([...(registry.byProfile.get(row.recipient_id) ?? [])]);
      for (const subscription of subscriptions) {
        if (!subscription.sink.send(receipts[index])) end(subscription, { error_code: '429', error: 'slow_consumer' });
      }
    }
  }

  return {
    subscribe(input, sink) {
      if (registry.held(input.tokenId) >= feedSubscriptionsPerTokenMax) {
        return { ok: false, error: 'too_many_subscriptions', description: `A token may hold at most ${feedSubscriptionsPerTokenMax} feed subscriptions at once.` };
      }
      const subscription: Subscription = { profileId: input.profileId, tokenId: input.tokenId, token: input.token, sink, expiryTimer: null };
      armExpiry(subscription, input.hardExpiresAt.getTime() - ctx.core.clock.now().getTime(), () => checkTokens([subscription]).catch((error) => logger.error('feed token check failed', { error })));
      registry.add(subscription);
      return { ok: true, unsubscribe: () => void registry.remove(subscription) };
    },
    size: () => registry.size(),
    async start() {
      await ctx.bus.listen((items) => void deliver(items).catch((error) => logger.error('feed delivery failed', { error })));
    },
    async close() {
      relay.stop();
      tokenCheck.stop();
      for (const subscription of registry.all()) registry.remove(subscription);
      await ctx.bus.close();
    },
  };
}
