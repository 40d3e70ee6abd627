// This process's feed subscriptions. The relay claims due feed.receipt outbox rows (from any
// process): woken right after each commit of this process's command path, so a receipt is claimed
// as soon as it has committed (never before), and while any subscription is open also every
// feedRelayIntervalMs, for rows no process claimed at once; with none open, every
// feedIdleRelayIntervalMs, so receipts nobody listens for do not pile up pending. Claimed rows are told to this process's
// subscribers directly and announced on the bus for the others; announcements from other processes
// arrive from the bus. The receipts of profiles with subscribers here are read once per batch and
// written to each subscriber whose token still holds.
import { randomUUID } from 'node:crypto';
import { periodicRun } from '../actors/periodic.ts';
import { feedAnnounceBackoffBaseMs, feedIdleRelayIntervalMs, feedRelayBatchMax, feedRelayIntervalMs, feedSubscriptionsPerTokenMax, feedTokenCheckIntervalMs } from '../limits.ts';
import type { TokensService } from '../tokens/service.ts';
import type { FeedBus } from './bus.ts';
import type { FeedEnd, FeedFailure } from './errors.ts';
import { createSenderCache, toReceipts, type ReceiptJson, type ReceiptsContext } from './receipts.ts';
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
  /** Claims and announces due receipts now (called right after each commit of this process). */
  wake(): void;
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

/**
 * Claims due feed.receipt outbox rows (of any process) and announces them on the bus; an announcement
 * that fails goes back to the outbox, which retries it (feedAnnounceAttemptsMax). One claim runs at a
 * time: a wake during a run (another commit) starts one more after it, so none is left waiting.
 */
function createRelay(ctx: HubContext, here: { origin: string; deliver(items: store.Announcement[]): Promise<void> }) {
  const onFailure = (error: unknown) => ctx.core.logger.error('feed relay failed', { error });
  let running: Promise<void> | null = null;
  let again = false;
  let closed = false;
  const delivering = new Set<Promise<void>>();

  /** One claim and its announcement; true when the batch was full (more may be due). */
  async function claimAndAnnounce(): Promise<boolean> {
    const claimed = await store.claimAnnouncements(ctx.core.sql, ctx.core.clock.now(), feedRelayBatchMax);
    if (claimed.length === 0) return false;
    const items = claimed.map((row) => row.payload);
    // This process's subscribers are told at once; the others' through the bus (which this process ignores
    // for its own announcements). On the in-process bus there are no others.
    // The next claim does not wait for this delivery (close does).
    const toldHere: Promise<void> = here.deliver(items).catch((error) => void ctx.core.logger.error('feed delivery failed', { error })).finally(() => delivering.delete(toldHere));
    delivering.add(toldHere);
    try {
      if (ctx.bus.kind !== 'memory') await ctx.bus.publish(items, here.origin);
    } catch (error) {
      const retryAt = new Date(ctx.core.clock.now().getTime() + feedAnnounceBackoffBaseMs);
      await store.releaseAnnouncements(ctx.core.sql, claimed.map((row) => row.id), retryAt, error instanceof Error ? error.message : String(error));
      throw error;
    }
    return claimed.length === feedRelayBatchMax;
  }

  function wake(): Promise<void> {
    if (closed) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        again = (await claimAndAnnounce().catch((error) => void onFailure(error))) === true || again;
      } while (again && !closed);
    })().finally(() => (running = null));
    return running;
  }

  const loop = periodicRun(() => wake(), onFailure);
  return {
    wake,
    /** Runs the relay every intervalMs from now on (replacing the interval it ran at). */
    start(intervalMs: number) {
      if (closed) return;
      loop.stop();
      loop.start(intervalMs);
    },
    async close() {
      closed = true;
      loop.stop();
      await running;
      await Promise.all([...delivering]);
    },
  };
}

/** The token's hard expiry ends the subscription on time (a logout is caught at the next receipt or check). */
function armExpiry(subscription: Subscription, untilExpiryMs: number, check: () => Promise<unknown>): void {
  if (untilExpiryMs >= timerMsMax) return;
  subscription.expiryTimer = setTimeout(() => void check(), Math.max(untilExpiryMs, 0));
  subscription.expiryTimer.unref();
}

/** Ends (through `end`) the subscriptions whose token no longer authenticates, each token checked once; answers those that hold. */
async function holdingTokens(tokens: TokensService, subscriptions: Subscription[], end: (subscription: Subscription, reason: FeedEnd) => void): Promise<Subscription[]> {
  const checks = new Map<string, ReturnType<TokensService['authenticate']>>();
  for (const subscription of subscriptions) if (!checks.has(subscription.token)) checks.set(subscription.token, tokens.authenticate(subscription.token));
  const holding: Subscription[] = [];
  for (const subscription of subscriptions) {
    const check = await checks.get(subscription.token)!;
    if (check.ok) holding.push(subscription);
    else end(subscription, { error_code: '401', error: check.error });
  }
  return holding;
}

export function createFeedHub(ctx: HubContext): FeedHub {
  const logger = ctx.core.logger;
  const origin = randomUUID();
  const senders = createSenderCache(() => Date.now());
  const relay = createRelay(ctx, { origin, deliver: (items) => deliver(items) });
  const tokenCheck = periodicRun(() => checkTokens(registry.all()), (error) => logger.error('feed token check failed', { error }));
  const registry = createRegistry({
    onFirst() {
      relay.start(feedRelayIntervalMs);
      tokenCheck.start(feedTokenCheckIntervalMs);
    },
    onLast() {
      relay.start(feedIdleRelayIntervalMs);
      tokenCheck.stop();
    },
  });

  function end(subscription: Subscription, reason: FeedEnd): void {
    if (registry.remove(subscription)) subscription.sink.end(reason);
  }

  const checkTokens = (subscriptions: Subscription[]) => holdingTokens(ctx.tokens, subscriptions, end);

  /** The receipts of the announced transfers to this process's subscribers of their recipients, tokens checked once per batch. */
  async function deliver(items: store.Announcement[]): Promise<void> {
    const profiles = new Set(items.filter((item) => registry.byProfile.has(item.profile_id)).map((item) => item.profile_id));
    if (profiles.size === 0) return;
    const transferIds = [...new Set(items.filter((item) => profiles.has(item.profile_id)).map((item) => item.transfer_id))];
    const [rows, holding] = await Promise.all([
      store.selectReceiptsOf(ctx.core.database.lookups, transferIds),
      checkTokens([...profiles].flatMap((profileId) => [...(registry.byProfile.get(profileId) ?? [])])).then((held) => new Set(held)),
    ]);
    const receipts = await toReceipts(ctx, rows, senders);
    for (const [index, row] of rows.entries()) {
      // Only those still subscribed: one that ended or left while the receipts were read is told nothing more.
      for (const subscription of registry.byProfile.get(row.recipient_id) ?? []) {
        if (!holding.has(subscription)) continue;
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
      await ctx.bus.listen((items, from) => {
        // This process told its own subscribers when it claimed these.
        if (from !== origin) void deliver(items).catch((error) => logger.error('feed delivery failed', { error }));
      });
      // Claimed with nobody subscribed too (others may be), not left to the poller's outboxBatchMax a run.
      if (registry.size() === 0) relay.start(feedIdleRelayIntervalMs);
    },
    wake: () => void relay.wake(),
    async close() {
      tokenCheck.stop();
      await relay.close();
      for (const subscription of registry.all()) registry.remove(subscription);
      await ctx.bus.close();
    },
  };
}
