// Proves issue 20 finding 4's whole class over HTTP: on every path that takes a dedup_id (sends,
// design sends, bills, trades, payouts, offer accepts) the same request answers the same transfer,
// and the key reused with other parties or another amount answers 409 dedup_id_reused and changes
// nothing (the gate's one comparison). The audit balances after each.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { wellFormedDecimal } from '../engine/money.ts';
import type { TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld, usd } from './ledger-api-support.ts';
import { ledgerFingerprint } from './ledger-support.ts';
import { startTestServer, type TestServer } from './support/http.ts';
import { brandPermissions, brandWorld, type Actor, type Auth } from './support/brand-world.ts';

let server: TestServer;
let app: TestApp;
const permissions = [...brandPermissions, 'bill', 'preview_offer', 'manage_sent', 'accept_offer', 'send_to_account'];
const { api, business, customer, assertAudit } = brandWorld(() => ({ server, app }), { businessPermissions: permissions });

let cafe: Actor;
let gift: { id: string; plan: string };

test.before(async () => {
  server = await startTestServer();
  app = (await ledgerWorld(server)).app;
  cafe = await business('Cafe', ['design_gl', 'bill']);
  await issue(server, cafe.id, '2000.00');
  const created = await api.post('/design/create', { title: 'Gift', currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  assert.is(created.status, 200, created.text);
  gift = { id: created.body.id, plan: (await api.post(`/design/${created.body.id}/plan/create`, { title: 'Plan' }, cafe.auth)).body.plan_id };
});

test.after(async () => {
  await server.close();
});

/** Posts `first`, then `first` again (same transfer), then each of `others` (409, nothing changes). */
async function sameOrRefused(path: string, first: Record<string, unknown>, others: Record<string, unknown>[], auth: Auth, state: () => Promise<unknown> = () => ledgerFingerprint(server.engine)): Promise<void> {
  const idOf = (body: any) => body.transfer.id;
  const answered = await api.post(path, first, auth);
  assert.is(answered.status, 200, answered.text);
  const repeat = await api.post(path, first, auth);
  assert.is(repeat.status, 200, repeat.text);
  assert.is(idOf(repeat.body), idOf(answered.body), `${path}: the same request answers the same transfer`);
  const before = await state();
  for (const other of others) {
    const refused = await api.post(path, other, auth);
    assert.is(refused.status, 409, `${path} ${JSON.stringify(other)}: ${refused.text}`);
    assert.is(refused.body.error, 'dedup_id_reused');
  }
  assert.equal(await state(), before, `${path}: a refused reuse changes nothing`);
  await assertAudit(path);
}

test('/wallet/send: a dedup_id reused for another recipient or amount is refused', async () => {
  const [bob, carol] = [await customer(), await customer()];
  const body = { recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00', dedup_id: 'send-1' };
  await sameOrRefused('/wallet/send', body, [{ ...body, recipient_uid: `service:${carol.id}` }, { ...body, amounts: '0-USD-2.00' }], cafe.auth);
});

test('POST /design/<id>/send: a dedup_id reused for another recipient or amount is refused', async () => {
  const [pat, kim] = [await customer(), await customer()];
  const body = { recipient_uid: `service:${pat.id}`, distribution_plan_id: gift.plan, amount: '5.00', dedup_id: 'gift-1' };
  await sameOrRefused(`/design/${gift.id}/send`, body, [{ ...body, recipient_uid: `service:${kim.id}` }, { ...body, amount: '6.00' }], cafe.auth);
});

test('POST /design/<id>/bill: a dedup_id reused for another customer or amount is refused', async () => {
  const [pat, kim] = [await customer(), await customer()];
  const body = { amount: '7.00', distribution_plan_id: gift.plan, sender_uid: `service:${pat.id}`, dedup_id: 'bill-1' };
  await sameOrRefused(`/design/${gift.id}/bill`, body, [{ ...body, sender_uid: `service:${kim.id}` }, { ...body, amount: '8.00' }], cafe.auth);
});

test('/wallet/trade: a dedup_id reused for another recipient or amount is refused', async () => {
  const [bob, carol] = [await customer(), await customer()];
  const body = {
    recipient_uid: `service:${bob.id}`, amounts: [{ loop_id: '0', currency: 'USD', amount: '2.00' }],
    expect_amounts: [{ loop_id: '0', currency: 'USD', amount: '1.00' }], dedup_id: 'trade-1',
  };
  await sameOrRefused('/wallet/trade', body, [
    { ...body, recipient_uid: `service:${carol.id}` }, { ...body, amounts: [{ loop_id: '0', currency: 'USD', amount: '3.00' }] },
  ], cafe.auth);
});

test('/wallet/send-dfi: a dedup_id reused for another amount is refused', async () => {
  const body = { currency: 'USD', amount: '1.00', fee: '0', recipient_about: { name: 'A' }, recipient_account: { routing_number: '011000015', account_number: '5555' }, dedup_id: 'payout-1' };
  // The first payout's bank send runs from the outbox meanwhile: what must not change is the sender's wallet and its transfers.
  const senderState = async () => [await usd(server, cafe.id), (await server.engine.sql<{ count: number }[]>`select count(*)::int as count from transfers where sender_id = ${cafe.id}`)[0].count];
  await sameOrRefused('/wallet/send-dfi', body, [{ ...body, amount: '2.00' }], cafe.auth, senderState);
});

test('POST /o/<id>/accept: a dedup_id reused for another offer or quantity is refused', async () => {
  const offer = async () => {
    const created = await api.post('/o/create', { title: 'Free coffee', amount: '1.00', quantity: 10 }, cafe.auth);
    assert.is(created.status, 200, created.text);
    return created.body.id as string;
  };
  const [first, second] = [await offer(), await offer()];
  const pat = await customer();
  const body = { option_id: 'free', quantity: 1, dedup_id: 'accept-1' };
  const answered = await api.post(`/o/${first}/accept`, body, pat.auth);
  assert.is(answered.status, 200, answered.text);
  const repeat = await api.post(`/o/${first}/accept`, body, pat.auth);
  assert.is(repeat.body.transfer.id, answered.body.transfer.id, 'the same accept answers the same transfer');
  const before = await ledgerFingerprint(server.engine);
  for (const [offerId, quantity] of [[second, 1], [first, 2]] as const) {
    const refused = await api.post(`/o/${offerId}/accept`, { ...body, quantity }, pat.auth);
    assert.is(refused.status, 409, refused.text);
    assert.is(refused.body.error, 'dedup_id_reused');
  }
  assert.equal(await ledgerFingerprint(server.engine), before);
  await assertAudit('offer accept dedup');
});

test('issue 34 item 7: a dedup_id reused with another loop, design, plan or kind of call is refused', async () => {
  const [pat, bob] = [await customer(), await customer()];
  await issue(server, pat.id, '5.00');
  assert.is((await api.post(`/design/${gift.id}/send`, { recipient_uid: `service:${pat.id}`, distribution_plan_id: gift.plan, amount: '5.00' }, cafe.auth)).status, 200);
  // Another loop of the same amount and currency.
  const send = { recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00', dedup_id: 'loop-1' };
  await sameOrRefused('/wallet/send', send, [{ ...send, amounts: `${gift.id}-USD-1.00` }], pat.auth);
  // Another plan of the design, another design, and a design send under a key a wallet send took.
  const otherPlan = (await api.post(`/design/${gift.id}/plan/create`, { title: 'Other plan' }, cafe.auth)).body.plan_id as string;
  const created = await api.post('/design/create', { title: 'Other gift', currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  const other = { id: created.body.id as string, plan: (await api.post(`/design/${created.body.id}/plan/create`, { title: 'Plan' }, cafe.auth)).body.plan_id as string };
  const designSend = { recipient_uid: `service:${bob.id}`, distribution_plan_id: gift.plan, amount: '2.00', dedup_id: 'design-1' };
  await sameOrRefused(`/design/${gift.id}/send`, designSend, [{ ...designSend, distribution_plan_id: otherPlan }], cafe.auth);
  const before = await ledgerFingerprint(server.engine);
  const otherDesign = await api.post(`/design/${other.id}/send`, { ...designSend, distribution_plan_id: other.plan }, cafe.auth);
  assert.is(otherDesign.status, 409, otherDesign.text);
  assert.is(otherDesign.body.error, 'dedup_id_reused');
  const walletSend = await api.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-2.00', dedup_id: 'design-1' }, cafe.auth);
  assert.is(walletSend.status, 409, walletSend.text);
  assert.is(walletSend.body.error, 'dedup_id_reused');
  assert.equal(await ledgerFingerprint(server.engine), before, 'a refused reuse changes nothing');
  await assertAudit('dedup across loops, designs, plans and calls');
});

test('/wallet/send to a payment-code business: a repeat after the terminal took less still answers the same transfer', async () => {
  const shop = await business('Code Shop');
  await server.engine.services.profiles.setFlags(server.engine.sql, shop.id, { supportPaycode: true });
  const body = { recipient_uid: `service:${shop.id}`, amounts: '0-USD-4.00', dedup_id: 'code-1' };
  const sent = await api.post('/wallet/send', body, cafe.auth);
  assert.is(sent.status, 200, sent.text);
  const code = sent.body.transfer.payment_codes[0].code as string;
  const taken = await server.engine.services.ledger.transfers.receive({ recipientId: shop.id, paycode: code, currency: 'USD', amount: wellFormedDecimal('3.50') });
  assert.ok(taken.ok);
  const repeat = await api.post('/wallet/send', body, cafe.auth);
  assert.is(repeat.status, 200, repeat.text);
  assert.is(repeat.body.transfer.id, sent.body.transfer.id);
  const other = await api.post('/wallet/send', { ...body, amounts: '0-USD-3.50' }, cafe.auth);
  assert.is(other.status, 409, other.text);
  await assertAudit('payment code dedup');
});

test.run();
