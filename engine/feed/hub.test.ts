// A subscriber that cannot keep up is dropped, not buffered: when its sink refuses a receipt the
// subscription ends with 429 slow_consumer and is told nothing more; other subscribers go on.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestEngine, type TestEngine } from '../../test/support/harness.ts';
import { designateIssuer, fund, individual } from '../../test/ledger-support.ts';
import type { FeedEnd, FeedSink, ReceiptJson } from './service.ts';

let harness: TestEngine;

test.before(async () => {
  harness = await createTestEngine();
  await designateIssuer(harness.engine);
});

test.after(async () => {
  await harness.close();
});

function recordingSink(accepts: boolean) {
  const told: ReceiptJson[] = [];
  let ended: (reason: FeedEnd) => void = () => {};
  const end = new Promise<FeedEnd>((resolve) => (ended = resolve));
  let next: (receipt: ReceiptJson) => void = () => {};
  const sink: FeedSink = {
    send(receipt) {
      if (!accepts) return false;
      told.push(receipt);
      next(receipt);
      return true;
    },
    end: (reason) => ended(reason),
  };
  return { sink, told, end, nextReceipt: () => new Promise<ReceiptJson>((resolve) => (next = resolve)) };
}

test('a sink that refuses a receipt ends with slow_consumer; a keeping-up one is told', async () => {
  const { feed, tokens } = harness.engine.services;
  const cafe = await individual(harness.engine);
  const far = new Date(harness.clock.now().getTime() + 3_600_000);
  const app = await harness.engine.services.apps.create({ name: 'Feed', permissions: [], redirectUris: [], site: 'default', isPublic: false, implicitGrant: false });
  const token = async () => (await tokens.issue(harness.engine.sql, {
    clientId: app.clientId, profileId: cafe, personalProfileId: cafe, permissions: [...tokens.defaultPermissions], concurrent: true, deviceUuid: null, source: 'authn', now: harness.clock.now(),
  })).access_token;
  const slow = recordingSink(false);
  const keeping = recordingSink(true);
  const first = feed.subscribe({ profileId: cafe, tokenId: 'token-slow', token: await token(), hardExpiresAt: far }, slow.sink);
  const second = feed.subscribe({ profileId: cafe, tokenId: 'token-fast', token: await token(), hardExpiresAt: far }, keeping.sink);
  assert.ok(first.ok && second.ok);
  const told = keeping.nextReceipt();
  await fund(harness.engine, cafe, '2.00');
  assert.equal(await slow.end, { error_code: '429', error: 'slow_consumer' });
  assert.is((await told).amount, '2.00');
  assert.is(feed.subscriptions(), 1, 'only the slow subscription ended');
  if (second.ok) second.unsubscribe();
  assert.is(feed.subscriptions(), 0);
});

test.run();
