// The receive feed on the brand cash money paths: a design send tells its recipient, a pull at a
// merchant's terminal and a processor send tell the merchant (amounts by loop: the brand cash it
// redeemed settles as open loop cash), each after its commit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld } from './ledger-api-support.ts';
import { brandWorld, type Actor } from './support/brand-world.ts';
import { connectFeed, receiptOf, type FeedClient } from './support/feed-client.ts';
import { startTestServer, type TestServer } from './support/http.ts';

let server: TestServer;
let app: TestApp;
const { api, business, customer } = brandWorld(() => ({ server, app }));
const feeds: FeedClient[] = [];
let cafe: Actor;
let books: Actor;
let pat: Actor;
let designId: string;
let giftPlan: string;

test.before(async () => {
  server = await startTestServer();
  app = (await ledgerWorld(server)).app;
  cafe = await business('Cafe', ['design_gl']);
  books = await business('Book Nook', ['pull_payment'], ['pull_payment']);
  pat = await customer();
  const created = await api.post('/design/create', { title: 'Cafe Gift', currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  assert.is(created.status, 200, created.text);
  designId = created.body.id;
  giftPlan = (await api.post(`/design/${designId}/plan/create`, { title: 'Gift cards' }, cafe.auth)).body.plan_id;
  const added = await api.post(`/design/${designId}/agreement/add`, { uid: `service:${books.id}`, redeemer: true, terms_text: 'Standard terms' }, cafe.auth);
  assert.is(added.status, 200, added.text);
  assert.is((await api.post(`/design/${designId}/agreement/${added.body.agreement.id}/activate`, {}, books.auth)).status, 200);
  await issue(server, cafe.id, '100.00');
});

test.after(async () => {
  for (const feed of feeds) feed.close();
  await server.close();
});

async function subscribe(actor: Actor): Promise<FeedClient> {
  const feed = await connectFeed(server.baseUrl, feeds.length % 2 === 0 ? 'sockjs' : 'websocket');
  feeds.push(feed);
  const reply = await feed.request({ path: '/wallet/receive-feed', access_token: actor.auth.auth.bearer, subscribe: true });
  assert.is(reply.subscribed, true, JSON.stringify(reply));
  return feed;
}

test('a design send tells its recipient the brand cash by loop', async () => {
  const feed = await subscribe(pat);
  const sent = await api.post(`/design/${designId}/send`, { recipient_uid: `service:${pat.id}`, distribution_plan_id: giftPlan, amount: '50.00' }, cafe.auth);
  assert.is(sent.status, 200, sent.text);
  const told = (await feed.next(receiptOf(sent.body.transfer.id))).receipt;
  assert.equal(told.loops, [{ loop_id: designId, currency: 'USD', amount: '50.00' }]);
  assert.is(told.sender.id, cafe.id);
});

test('a pull at the terminal and a processor send tell the merchant', async () => {
  const feed = await subscribe(books);
  assert.is((await api.post('/wallet/pull-consent', { merchant_uid: `service:${books.id}` }, pat.auth)).status, 200);
  const pulled = await api.post('/pull/redeem', { sender_uid: `service:${pat.id}`, amounts: `${designId}-USD-20.00` }, books.auth);
  assert.is(pulled.status, 200, pulled.text);
  const pull = (await feed.next(receiptOf(pulled.body.transfer.id))).receipt;
  assert.is(pull.workflow_type, 'pull_redeem');
  assert.is(pull.sender.id, pat.id);
  assert.ok(pull.loops.length > 0, JSON.stringify(pull));

  const processor = await server.engine.services.tokens.issue(server.engine.sql, {
    clientId: app.clientId, profileId: pat.id, personalProfileId: pat.id, permissions: ['offline', 'process_payment'], concurrent: true, deviceUuid: null, source: 'oauth', now: server.clock.now(),
  });
  const procSent = await api.post('/proc/send', { sender_id: pat.id, recipient_id: books.id, amounts: `${designId}-USD-5.00` }, { auth: { bearer: processor.access_token } });
  assert.is(procSent.status, 200, procSent.text);
  const proc = (await feed.next(receiptOf(procSent.body.transfer.id))).receipt;
  assert.is(proc.sender.id, pat.id);
});

test.run();
