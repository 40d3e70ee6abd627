// The receive feed on offers and bills: the person who accepts an offer is told the cash the offer
// brings it, and a merchant is told when its customer pays a bill (not when the bill is sent); each
// receipt arrives after its commit (the transfer is completed when the receipt is read).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld } from './ledger-api-support.ts';
import { brandPermissions, brandWorld, type Actor } from './support/brand-world.ts';
import { connectFeed, receiptOf, type FeedClient, type FeedTransport } from './support/feed-client.ts';
import { startTestServer, type TestServer } from './support/http.ts';

let server: TestServer;
let app: TestApp;
const { api, business, customer, assertAudit } = brandWorld(() => ({ server, app }), {
  businessPermissions: [...brandPermissions, 'preview_offer', 'manage_sent', 'manage_received'],
  customerPermissions: [...brandPermissions, 'accept_offer', 'preview_offer', 'manage_received'],
});
const feeds: FeedClient[] = [];
let cafe: Actor;
let designId: string;
let planId: string;

test.before(async () => {
  server = await startTestServer();
  app = (await ledgerWorld(server)).app;
  cafe = await business('Cafe', ['design_gl', 'bill']);
  await issue(server, cafe.id, '100.00');
  designId = (await api.post('/design/create', { title: 'Cafe Card', currency: 'USD', design_type: 'gl_design' }, cafe.auth)).body.id;
  planId = (await api.post(`/design/${designId}/plan/create`, { title: 'Bills and offers' }, cafe.auth)).body.plan_id;
});

test.after(async () => {
  for (const feed of feeds) feed.close();
  await server.close();
});

async function subscribe(actor: Actor, transport: FeedTransport): Promise<FeedClient> {
  const feed = await connectFeed(server.baseUrl, transport);
  feeds.push(feed);
  const reply = await feed.request({ path: '/wallet/receive-feed', access_token: actor.auth.auth.bearer, subscribe: true });
  assert.is(reply.subscribed, true, JSON.stringify(reply));
  return feed;
}

/** The transfer as its recipient reads it over HTTP when the receipt arrives: committed and completed. */
async function assertCompleted(transferId: string, reader: Actor): Promise<void> {
  const seen = await api.get(`/t/${transferId}`, reader.auth);
  assert.is(seen.status, 200, seen.text);
  assert.is(seen.body.completed, true, 'the receipt follows the commit that completed the transfer');
}

test('an accepted offer tells the person who accepted it the cash it brings (open loop and brand cash)', async () => {
  const pat = await customer();
  const feed = await subscribe(pat, 'websocket');
  const openLoop = await api.post('/o/create', { title: 'Five dollars', amount: '5.00', quantity: 10 }, cafe.auth);
  assert.is(openLoop.status, 200, openLoop.text);
  const accepted = await api.post(`/o/${openLoop.body.id}/accept`, { option_id: 'free' }, pat.auth);
  assert.is(accepted.status, 200, accepted.text);
  const told = (await feed.next(receiptOf(accepted.body.transfer.id))).receipt;
  await assertCompleted(told.transfer_id, pat);
  assert.is(told.workflow_type, 'purchase_offer');
  assert.is(told.amount, '5.00');
  assert.equal(told.loops, [{ loop_id: '0', currency: 'USD', amount: '5.00' }]);
  assert.is(told.sender.id, cafe.id);

  const brand = await api.post('/o/create', { title: 'Gift card deal', amount: '20.00', quantity: 10, design_id: designId, distribution_plan_id: planId }, cafe.auth);
  assert.is(brand.status, 200, brand.text);
  const gift = await api.post(`/o/${brand.body.id}/accept`, { option_id: 'free' }, pat.auth);
  assert.is(gift.status, 200, gift.text);
  const giftTold = (await feed.next(receiptOf(gift.body.transfer.id))).receipt;
  await assertCompleted(giftTold.transfer_id, pat);
  assert.equal(giftTold.loops, [{ loop_id: designId, currency: 'USD', amount: '20.00' }]);
  assert.equal(feed.pending().filter((message) => message.receipt), [], 'each accept is told once');
  await assertAudit('offers told');
});

test('a paid bill tells the biller; the bill sent tells nothing', async () => {
  const pat = await customer();
  await issue(server, pat.id, '50.00');
  const feed = await subscribe(cafe, 'sockjs');
  const billed = await api.post(`/design/${designId}/bill`, { amount: '30.00', distribution_plan_id: planId, sender_uid: `service:${pat.id}` }, cafe.auth);
  assert.is(billed.status, 200, billed.text);
  const billId = billed.body.transfer.id;
  assert.is(billed.body.transfer.completed, false);
  const paid = await api.post(`/t/${billId}/accept`, {}, pat.auth);
  assert.is(paid.status, 200, paid.text);
  // The first message about the bill is its payment: a bill waiting for its customer is not a receipt.
  const told = (await feed.next(receiptOf(billId))).receipt;
  await assertCompleted(billId, cafe);
  assert.is(told.workflow_type, 'bill');
  assert.is(told.sender.id, pat.id);
  assert.is(told.amount, '30.00');
  assert.equal(told.loops, [{ loop_id: '0', currency: 'USD', amount: '30.00' }], 'its own brand cash, issued to it and handed to the customer, is not counted');
  assert.equal(feed.pending().filter((message) => message.receipt), [], 'the bill is told once, when paid');
  await assertAudit('bill told');
});

test.run();
