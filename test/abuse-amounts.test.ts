// Proves amounts are bounded at the edge and on every product (issue 25 finding 4, issue 20 finding 7): an amount past amountUnitsMax, or a JSON number, answers 400 naming the field on design send, PATCH max_per_wallet, /o/create, the admin issue and offer accepts whose price × quantity passes the maximum; none answers 500, and the ledger audit balances.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designPermissions } from '../engine/designs/service.ts';
import { amountUnitsMax } from '../engine/limits.ts';
import type { TestApp } from './foundation-helpers.ts';
import { issue, type LedgerWorld } from './ledger-api-support.ts';
import { type TestServer, assertRefused } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { brandWorld, type Actor, type Auth } from './support/brand-world.ts';

let server: TestServer;
let world: LedgerWorld;
let app: TestApp;
const merchantPermissions = [...designPermissions, 'create_design', 'preview_offer', 'send_cash', 'view_wallet', 'view_history', 'receive_cash', 'manage_sent'];
const { business, customer: person, assertAudit } = brandWorld(() => ({ server, app }), {
  businessPermissions: merchantPermissions,
  customerPermissions: ['accept_offer', 'view_wallet', 'view_history', 'preview_offer', 'send_cash'],
});

const atMax = String(amountUnitsMax);
const pastMax = `${amountUnitsMax}.01`;
const hugeAmount = '99999999999999999.99';
const post = (path: string, body: Record<string, unknown>, auth: Auth | { auth: { operator: true } }) => server.client.post(path, body, auth);

let cafe: Actor;
let designId: string;
let planId: string;

test.before(async () => {
  ({ server, world } = await startLedgerServer());
  app = world.app;
  cafe = await business('Cafe', ['design_gl']);
  await issue(server, cafe.id, '1000.00');
  designId = (await post('/design/create', { title: 'Cafe Gift', currency: 'USD', design_type: 'gl_design' }, cafe.auth)).body.id;
  planId = (await post(`/design/${designId}/plan/create`, { title: 'Gifts' }, cafe.auth)).body.plan_id;
});
test.after(async () => server.close());

function assertInvalid(answer: { status: number; body?: any; text: string }, field: string, label: string): void {
  assertRefused(answer, 400, 'invalid', `${label}: ${answer.text}`);
  assert.ok(answer.body.invalid?.[field], `${label} names ${field}: ${answer.text}`);
}

test('amounts past the maximum answer 400 naming the field, never 500', async () => {
  const pat = await person();
  for (const amount of [pastMax, hugeAmount]) {
    assertInvalid(await post('/admin/ledger/issue', { to_uid: `service:${pat.id}`, amount, currency: 'USD' }, { auth: { operator: true } }), 'amount', `issue ${amount}`);
    assertInvalid(await post(`/design/${designId}/send`, { recipient_uid: `service:${pat.id}`, amount, distribution_plan_id: planId }, cafe.auth), 'amount', `design send ${amount}`);
    assertInvalid(await server.client.request('PATCH', `/design/${designId}`, { max_per_wallet: amount }, cafe.auth), 'max_per_wallet', `max_per_wallet ${amount}`);
    assertInvalid(await post('/o/create', { title: 'Big', amount, quantity: 1 }, cafe.auth), 'amount', `offer amount ${amount}`);
    assertInvalid(await post('/o/create', { title: 'Big', amount: '1.00', quantity: 1, options: [{ payment_type: 'service', price: amount }] }, cafe.auth), 'options.0.price', `offer price ${amount}`);
  }
  // At the maximum the field itself is fine: a design's cap may be the maximum.
  const capped = await server.client.request('PATCH', `/design/${designId}`, { max_per_wallet: atMax }, cafe.auth);
  assert.is(capped.status, 200, capped.text);
  await assertAudit('after the refused amounts');
});

test('a JSON number given as an amount is refused: its digits are already lost', async () => {
  const pat = await person();
  const answer = await server.client.post('/admin/ledger/issue', { to_uid: `service:${pat.id}`, amount: 1234567890123456.78, currency: 'USD' }, { auth: { operator: true } });
  assertInvalid(answer, 'amount', 'a JSON number');
  assert.match(answer.body.invalid.amount, /decimal string/);
  assertInvalid(await post('/o/create', { title: 'Number', amount: 5, quantity: 1 }, cafe.auth), 'amount', 'offer amount as a number');
});

test('an offer accept whose amount × quantity passes the maximum answers 400 naming quantity', async () => {
  const created = await post('/o/create', { title: 'Huge', amount: atMax, quantity: 10, show_limit: 10 }, cafe.auth);
  assert.is(created.status, 200, created.text);
  const sam = await person();
  assertInvalid(await post(`/o/${created.body.id}/accept`, { option_id: 'free', quantity: 2 }, sam.auth), 'quantity', 'accept of two at the maximum');
  await assertAudit('after the refused accept');
});

test.run();
