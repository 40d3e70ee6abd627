// The receive feed over the bidirectional API (supplement 4.11, 6.2): /ping, every error, the idle
// close, history with before_timestamp, a receipt per money path told after its commit (and none for
// a refused send), a token's end ending its subscription, and a reconnect that misses nothing; over
// sockjs-client and a raw WebSocket, on the embedded and the real backends.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectFeed, receiptOf, type FeedClient, type FeedTransport } from './support/feed-client.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { startTestServer, type TestServer } from './support/http.ts';
import { issue, ledgerWorld, person, shop, type LedgerWorld, type Person } from './ledger-api-support.ts';

let server: TestServer;
let world: LedgerWorld;
const opened: FeedClient[] = [];

const started = Date.now();
test.before.each((context: any) => { if (process.env.FEED_TIMING) console.log(Date.now() - started, 'start', context.__test__); });
test.before(async () => {
  ({ server, world } = await startLedgerServer());
});

test.after(async () => {
  for (const client of opened) client.close();
  await server.close();
});

async function connect(transport: FeedTransport, on: TestServer = server): Promise<FeedClient> {
  const client = await connectFeed(on.baseUrl, transport);
  opened.push(client);
  return client;
}

const feed = (token: string, fields: Record<string, unknown> = {}) => ({ path: '/wallet/receive-feed', access_token: token, ...fields });

async function send(from: Person, to: Person, amount: string): Promise<string> {
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${to.id}`, amounts: `0-USD-${amount}` }, from.auth);
  assert.is(sent.status, 200, sent.text);
  return sent.body.transfer.id;
}

for (const transport of ['sockjs', 'websocket'] as const) {
  test(`${transport}: /ping answers pong with the request`, async () => {
    const client = await connect(transport);
    const answer = await client.request({ path: '/ping', nonce: 7 });
    assert.equal(answer, { pong: 1, request_message: { path: '/ping', nonce: 7 } });
    client.close();
  });

  test(`${transport}: every error is {error_code, error}`, async () => {
    const client = await connect(transport);
    const alice = await person(server, world);
    const viewer = await person(server, world, { permissions: ['view_wallet'] });
    const expect = async (message: unknown, code: string, error: string) => {
      const answer = client.next((candidate) => candidate.error_code !== undefined);
      client.send(message);
      const got = await answer;
      assert.is(got.error_code, code, JSON.stringify(got));
      assert.is(got.error, error, JSON.stringify(got));
      return got;
    };
    await expect('not json', '400', 'malformed_message');
    await expect([1, 2], '400', 'malformed_message');
    await expect({ access_token: alice.token }, '400', 'missing_path');
    await expect({ path: '/wallet/nowhere' }, '404', 'path_not_found');
    await expect({ path: '/ping', pad: 'x'.repeat(5000) }, '413', 'message_too_large');
    await expect({ path: '/wallet/receive-feed' }, '401', 'missing_token');
    await expect(feed('not-a-token'), '401', 'token_not_recognized');
    await expect(feed(viewer.token), '403', 'insufficient_scope');
    const invalid = await expect(feed(alice.token, { limit: 0, subscribe: 'yes' }), '400', 'invalid');
    assert.ok(invalid.invalid.limit && invalid.invalid.subscribe, JSON.stringify(invalid));
    await expect(feed(alice.token, { before_timestamp: 'yesterday' }), '400', 'invalid');
    await expect(feed(alice.token, { subscribe: true, before_timestamp: '2026-03-01T12:00:00Z' }), '400', 'invalid');
    await expect(feed(alice.token, { surprise: 1 }), '400', 'invalid');
    for (let index = 0; index < 5; index++) assert.is((await client.request(feed(alice.token, { subscribe: true }))).subscribed, true);
    await expect(feed(alice.token, { subscribe: true }), '429', 'too_many_subscriptions');
    assert.ok(client.isOpen(), 'errors leave the connection open');
    client.close();
  });
}

test('idle close and connections per address: idle ones close, a subscribed one stays, one too many is refused', async () => {
  // One server for both (a server start is the slow part): 3 connections per address, 300 ms idle.
  const quick = await startTestServer({ env: { CASHLOOP_FEED_IDLE_MS: '300', CASHLOOP_RATE_LIMIT_SCALE: '0.06' } });
  try {
    const cafe = await shop(quick, await ledgerWorld(quick));
    const subscribed = await connect('websocket', quick);
    assert.is((await subscribed.request(feed(cafe.token, { subscribe: true }))).subscribed, true);
    const idle = await connect('websocket', quick);
    const idleSockjs = await connect('sockjs', quick);
    const refused = await connect('websocket', quick);
    assert.equal(await refused.next(), { error_code: '429', error: 'too_many_connections', error_description: 'At most 3 connections per client address.' });
    assert.is((await refused.closed).code, 4029);
    assert.is((await idle.request({ path: '/ping' })).pong, 1);
    assert.is((await idle.closed).code, 4000);
    assert.is((await idleSockjs.closed).code, 4000);
    assert.ok(subscribed.isOpen(), 'the subscribed connection outlived the idle time');
    assert.is((await subscribed.request({ path: '/ping' })).pong, 1);
    const later = await connect('sockjs', quick);
    assert.is((await later.request({ path: '/ping' })).pong, 1, 'closed connections no longer count');
    subscribed.close();
    later.close();
  } finally {
    await quick.close();
  }
});

test('history: newest first, limit and more, before_timestamp pages back; amounts by loop and the sender', async () => {
  const alice = await person(server, world);
  const cafe = await shop(server, world);
  await issue(server, alice.id, '10.00');
  const ids: string[] = [];
  for (const amount of ['1.00', '2.00', '3.00']) {
    ids.push(await send(alice, cafe, amount));
    server.clock.advance(1000);
  }
  const client = await connect('sockjs');
  const first = await client.request(feed(cafe.token, { limit: 2 }));
  assert.equal(first.receipts.map((receipt: any) => receipt.transfer_id), [ids[2], ids[1]]);
  assert.is(first.more, true);
  assert.is(first.subscribed, false);
  const newest = first.receipts[0];
  assert.is(newest.amount, '3.00');
  assert.equal(newest.loops, [{ loop_id: '0', currency: 'USD', amount: '3.00' }]);
  assert.is(newest.sender.id, alice.id);
  assert.is(newest.workflow_type, 'profile_to_profile');
  const older = await client.request(feed(cafe.token, { before_timestamp: first.receipts[1].timestamp }));
  assert.equal(older.receipts.map((receipt: any) => receipt.transfer_id), [ids[0]]);
  assert.is(older.more, false);
  const senderSide = await client.request(feed(alice.token));
  assert.equal(senderSide.receipts.map((receipt: any) => receipt.transfer_id).filter((id: string) => ids.includes(id)), [], 'a sender receives nothing');
  client.close();
});

for (const transport of ['sockjs', 'websocket'] as const) {
  test(`${transport}: a send is told to the subscriber after its commit; a refused send tells nothing`, async () => {
    const alice = await person(server, world);
    const cafe = await shop(server, world);
    await issue(server, alice.id, '5.00');
    const client = await connect(transport);
    const reply = await client.request(feed(cafe.token, { subscribe: true }));
    assert.is(reply.subscribed, true);
    assert.equal(reply.receipts, []);
    const refused = await server.client.post('/wallet/send', { recipient_uid: `service:${cafe.id}`, amounts: '0-USD-50.00' }, alice.auth);
    assert.is(refused.status, 400, refused.text);
    const id = await send(alice, cafe, '1.25');
    const pushed = await client.next((message) => message.receipt !== undefined);
    assert.is(pushed.receipt.transfer_id, id, 'the first receipt told is the send that went through');
    assert.is(pushed.receipt.amount, '1.25');
    assert.is(pushed.path, '/wallet/receive-feed');
    const seen = await server.client.get(`/t/${id}`, undefined, cafe.auth);
    assert.is(seen.status, 200, 'the transfer is committed when its receipt is told');
    client.close();
  });
}

test('a payment code received at the till is told', async () => {
  const alice = await person(server, world);
  const cafe = await shop(server, world, { supportPaycode: true });
  await issue(server, alice.id, '40.00');
  const client = await connect('websocket');
  await client.request(feed(cafe.token, { subscribe: true }));
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${cafe.id}`, amounts: 'any-USD-30.00' }, alice.auth);
  assert.is(sent.status, 200, sent.text);
  const received = await server.client.post('/wallet/receive', { paycode: sent.body.transfer.payment_codes[0].code, currency: 'USD', amount: '12.00' }, cafe.auth);
  assert.is(received.status, 200, received.text);
  const pushed = await client.next(receiptOf(sent.body.transfer.id));
  assert.is(pushed.receipt.amount, '12.00');
  assert.is(pushed.receipt.sender.id, alice.id);
  assert.equal(client.pending().filter((message) => message.receipt), [], 'the waiting code was not told before it was received');
  client.close();
});

test('cash issued to a wallet is told', async () => {
  const bob = await person(server, world);
  const client = await connect('sockjs');
  await client.request(feed(bob.token, { subscribe: true }));
  await issue(server, bob.id, '7.00');
  const pushed = await client.next((message) => message.receipt !== undefined);
  assert.is(pushed.receipt.amount, '7.00');
  client.close();
});

test('a logged-out token ends its subscription; a soft-expired token still subscribes', async () => {
  const alice = await person(server, world);
  const cafe = await shop(server, world);
  await issue(server, alice.id, '5.00');
  const client = await connect('websocket');
  await client.request(feed(cafe.token, { subscribe: true }));
  const loggedOut = await server.client.post('/token/logout', {}, cafe.auth);
  assert.is(loggedOut.status, 200, loggedOut.text);
  await send(alice, cafe, '1.00');
  const ended = await client.next((message) => message.error_code !== undefined);
  assert.equal({ code: ended.error_code, subscribed: ended.subscribed }, { code: '401', subscribed: false });
  assert.ok(['token_invalid', 'token_not_recognized'].includes(ended.error), ended.error);
  assert.equal(client.pending().filter((message) => message.receipt), [], 'nothing told after the token ended');
  client.close();
});

test('a token past its hard expiry ends its subscription; a soft-expired one still subscribes', async () => {
  const alice = await person(server, world);
  const cafe = await shop(server, world);
  await issue(server, alice.id, '5.00');
  const principal = await server.engine.services.tokens.authenticate(cafe.token);
  assert.ok(principal.ok);
  if (!principal.ok) return;
  const client = await connect('sockjs');
  const { softExpiresAt, hardExpiresAt } = principal.principal;
  // A soft-expired token subscribes (when this kind of token expires softly before it expires hard).
  if (softExpiresAt < hardExpiresAt) server.clock.set(new Date(Math.min(softExpiresAt.getTime() + 1000, hardExpiresAt.getTime() - 1000)));
  const reply = await client.request(feed(cafe.token, { subscribe: true }));
  assert.is(reply.subscribed, true, JSON.stringify(reply));
  server.clock.set(new Date(hardExpiresAt.getTime() + 1000));
  const aliceAgain = await person(server, world);
  await issue(server, aliceAgain.id, '1.00');
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${cafe.id}`, amounts: '0-USD-1.00' }, aliceAgain.auth);
  assert.is(sent.status, 200, sent.text);
  const ended = await client.next((message) => message.error_code !== undefined);
  assert.equal({ code: ended.error_code, error: ended.error, subscribed: ended.subscribed }, { code: '401', error: 'token_expired_hard', subscribed: false });
  client.close();
});

test('a reconnect with the last timestamp gets what it missed', async () => {
  const alice = await person(server, world);
  const cafe = await shop(server, world);
  await issue(server, alice.id, '10.00');
  const first = await connect('sockjs');
  await first.request(feed(cafe.token, { subscribe: true }));
  const seenId = await send(alice, cafe, '1.00');
  const seen = (await first.next(receiptOf(seenId))).receipt;
  first.close();
  await first.closed;
  server.clock.advance(1000);
  const missed = [await send(alice, cafe, '2.00'), await send(alice, cafe, '3.00')];
  const again = await connect('websocket');
  const reply = await again.request(feed(cafe.token, { subscribe: true, after_timestamp: seen.timestamp }));
  const listed = reply.receipts.map((receipt: any) => receipt.transfer_id);
  for (const id of missed) assert.ok(listed.includes(id), `missed ${id} is listed`);
  const next = await send(alice, cafe, '0.50');
  assert.is((await again.next(receiptOf(next))).receipt.amount, '0.50');
  again.close();
});

test.run();
