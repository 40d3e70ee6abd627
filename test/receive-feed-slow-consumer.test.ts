// A slow consumer at the transport: a raw WebSocket client that stops reading its socket while many
// receipts are told, or while it keeps asking for receipts it never reads, is dropped (a slow_consumer
// message, then close code 4008) instead of having its receipts or answers buffered without bound;
// what the server held for it stayed within the backlog limit, all of its subscriptions ended with it,
// a subscriber that keeps up is told on; and a connection's waiting requests are capped.
import type { Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { feedBacklogBytesMax, feedReceiptsListMax, feedRequestsPendingMax, feedSubscriptionsPerTokenMax, sendMessageCharsMax } from '../engine/limits.ts';
import { userToken } from './foundation-helpers.ts';
import { issue, person, type Person } from './ledger-api-support.ts';
import { connectFeed, receiptOf, type FeedClient } from './support/feed-client.ts';
import type { TestServer } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';

let server: TestServer;
const opened: { close(): void }[] = [];
const servers: TestServer[] = [];

test.after(async () => {
  for (const client of opened) client.close();
  for (const started of servers) await started.close();
});

/** A raw WebSocket whose messages are kept, with its underlying TCP socket (to stop reading it). */
async function rawClient(baseUrl: string) {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/bd/sockjs/websocket`);
  opened.push({ close: () => socket.terminate() });
  const messages: any[] = [];
  let waiter: ((message: any) => void) | null = null;
  socket.on('message', (data) => {
    const message = JSON.parse(data.toString());
    messages.push(message);
    waiter?.(message);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const request = (body: Record<string, unknown>) => new Promise<any>((resolve) => {
    waiter = (message) => {
      if (message.receipt) return;
      waiter = null;
      resolve(message);
    };
    socket.send(JSON.stringify(body));
  });
  return { messages, closed, request, send: (body: Record<string, unknown>) => socket.send(JSON.stringify(body)), tcp: (socket as unknown as { _socket: Socket })._socket };
}

test('a client that stops reading is dropped with slow_consumer; its backlog stayed bounded; a keeping-up subscriber goes on', async () => {
  let world;
  ({ server, world } = await startLedgerServer());
  servers.push(server);
  const alice: Person = await person(server, world);
  const bob: Person = await person(server, world);
  await issue(server, alice.id, '100.00');
  const feed = server.engine.services.feed;

  // The slow client holds many subscriptions to bob's receipts (several tokens, each at its limit), so
  // each send is told many times over and its socket fills after a few sends.
  const slow = await rawClient(server.baseUrl);
  const tokens = 10;
  for (let index = 0; index < tokens; index++) {
    const token = await userToken(server, world.app, bob.id, { concurrent: true });
    for (let held = 0; held < feedSubscriptionsPerTokenMax; held++) {
      const reply = await slow.request({ path: '/wallet/receive-feed', access_token: token, subscribe: true, limit: 1 });
      assert.is(reply.subscribed, true, JSON.stringify(reply));
    }
  }
  const keeping: FeedClient = await connectFeed(server.baseUrl, 'sockjs');
  opened.push(keeping);
  assert.is((await keeping.request({ path: '/wallet/receive-feed', access_token: bob.token, subscribe: true, limit: 1 })).subscribed, true);
  const slowSubscriptions = tokens * feedSubscriptionsPerTokenMax;
  assert.is(feed.subscriptions(), slowSubscriptions + 1);

  // The slow client stops reading; receipts of long-message sends follow until the server drops it.
  slow.tcp.pause();
  const message = 'x'.repeat(sendMessageCharsMax);
  const sendsMax = 200;
  let sends = 0;
  while (server.bidirectional.stats().slowConsumersDropped === 0) {
    assert.ok(sends < sendsMax, `still not dropped after ${sends} sends; backlog so far ${JSON.stringify(server.bidirectional.stats())}`);
    const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-0.01', message }, alice.auth);
    assert.is(sent.status, 200, sent.text);
    sends += 1;
  }
  const stats = server.bidirectional.stats();
  assert.is(stats.slowConsumersDropped, 1);
  // The dropped connection's subscriptions all ended at once (the engine's own count); the keeping-up one holds.
  assert.is(feed.subscriptions(), 1);
  // What waited for the slow client never passed the limit by more than the one receipt written last.
  const receiptBytesMax = sendMessageCharsMax + 4096;
  assert.ok(stats.backlogBytesHighest >= feedBacklogBytesMax, `the backlog reached the limit: ${JSON.stringify(stats)}`);
  assert.ok(stats.backlogBytesHighest < feedBacklogBytesMax + receiptBytesMax, `the backlog stayed bounded: ${JSON.stringify(stats)}`);

  // Reading again, the client finds the receipts that were written, then the reason, then the close.
  slow.tcp.resume();
  const closed = await slow.closed;
  assert.equal(closed, { code: 4008, reason: 'slow consumer' });
  const last = slow.messages[slow.messages.length - 1];
  assert.equal(last, { path: '/wallet/receive-feed', subscribed: false, error_code: '429', error: 'slow_consumer' });
  const told = slow.messages.filter((entry) => entry.receipt).length;
  assert.ok(told < sends * slowSubscriptions, `receipts were dropped, not buffered: ${told} of ${sends * slowSubscriptions}`);

  // Others go on: the keeping-up subscriber is told the next receipt.
  const after = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-0.02' }, alice.auth);
  assert.is(after.status, 200, after.text);
  assert.is((await keeping.next(receiptOf(after.body.transfer.id))).receipt.amount, '0.02');
});

/** Waits (with a deadline, never a fixed sleep) until `condition` holds. */
async function until(condition: () => boolean, what: string, waitMs = 10_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${waitMs} ms: ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

test('a client that sends many requests and never reads the answers is dropped at the backlog limit', async () => {
  let world;
  ({ server, world } = await startLedgerServer());
  servers.push(server);
  const alice: Person = await person(server, world);
  const bob: Person = await person(server, world);
  await issue(server, alice.id, '100.00');
  // Bob's history: receipts with the longest message, so each answer listing them is about 1 MB.
  const receipts = feedReceiptsListMax;
  const message = 'y'.repeat(sendMessageCharsMax);
  for (let index = 0; index < receipts; index++) {
    const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-0.01', message }, alice.auth);
    assert.is(sent.status, 200, sent.text);
  }
  const asking = await rawClient(server.baseUrl);
  const first = await asking.request({ path: '/wallet/receive-feed', access_token: bob.token, limit: receipts });
  const answerBytes = JSON.stringify(first).length;
  assert.ok(answerBytes > receipts * sendMessageCharsMax, `one answer holds ${answerBytes} characters`);

  // As in the report: it stops reading and sends many requests at once (here 200, about 35 KB).
  asking.tcp.pause();
  const requests = 200;
  for (let index = 0; index < requests; index++) asking.send({ path: '/wallet/receive-feed', access_token: bob.token, limit: receipts, request_id: String(index) });
  const stats = () => server.bidirectional.stats();
  await until(() => stats().slowConsumersDropped > 0, `the client was dropped; ${JSON.stringify(stats())}`, 30_000);
  const held = stats();
  assert.is(held.slowConsumersDropped, 1);
  assert.ok(held.backlogBytesHighest >= feedBacklogBytesMax, `the backlog reached the limit: ${JSON.stringify(held)}`);
  assert.ok(held.backlogBytesHighest < feedBacklogBytesMax + answerBytes + 4096, `what waited stayed within one answer of the limit: ${JSON.stringify(held)}`);

  // Reading again, it finds what was written (fewer answers than it asked for), the reason, then the close.
  asking.tcp.resume();
  assert.equal(await asking.closed, { code: 4008, reason: 'slow consumer' });
  const last = asking.messages[asking.messages.length - 1];
  assert.is(last.error, 'slow_consumer', JSON.stringify(last).slice(0, 300));
  const answers = asking.messages.filter((entry) => entry.receipts).length - 1;
  assert.ok(answers < feedRequestsPendingMax, `answers were refused, not kept: ${answers} of ${requests} written`);
  const refused = asking.messages.filter((entry) => entry.error === 'too_many_pending_requests').length;
  assert.ok(answers + refused < requests, `the rest were neither answered nor kept: ${answers} answered, ${refused} refused of ${requests}`);
});

test(`a connection's requests waiting for their answers are capped at ${feedRequestsPendingMax}; more are refused at once`, async () => {
  let world;
  ({ server, world } = await startLedgerServer());
  servers.push(server);
  const bob: Person = await person(server, world);
  // The SockJS WebSocket endpoint: one frame carries many messages, all read at once.
  const socket = new WebSocket(`${server.baseUrl.replace(/^http/, 'ws')}/bd/sockjs/000/pending/websocket`);
  opened.push({ close: () => socket.terminate() });
  const messages: any[] = [];
  socket.on('message', (data) => {
    const frame = data.toString();
    if (frame.startsWith('a')) for (const text of JSON.parse(frame.slice(1)) as string[]) messages.push(JSON.parse(text));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('message', (data) => (data.toString() === 'o' ? resolve() : reject(new Error(`opened with ${data}`))));
    socket.once('error', reject);
  });
  const over = 3;
  const batch = Array.from({ length: feedRequestsPendingMax + over }, (_, index) => JSON.stringify({ path: '/wallet/receive-feed', access_token: bob.token, limit: 1, request_id: String(index) }));
  socket.send(JSON.stringify(batch));
  await until(() => messages.length === batch.length, `${batch.length} answers (${messages.length} so far)`);
  const refused = messages.filter((message) => message.error === 'too_many_pending_requests');
  assert.equal(refused.map((message) => message.request_id), Array.from({ length: over }, (_, index) => String(feedRequestsPendingMax + index)));
  assert.ok(refused.every((message) => message.error_code === '429' && message.path === '/wallet/receive-feed'));
  const answered = messages.filter((message) => message.subscribed === false && message.receipts);
  assert.equal(answered.map((message) => message.request_id), Array.from({ length: feedRequestsPendingMax }, (_, index) => String(index)));
  // Once answered, the connection takes requests again.
  const again = messages.length;
  socket.send(JSON.stringify([JSON.stringify({ path: '/ping', request_id: 'again' })]));
  await until(() => messages.length > again, 'the ping was answered');
  assert.is(messages[again].pong, 1);
  socket.terminate();
});

test.run();
