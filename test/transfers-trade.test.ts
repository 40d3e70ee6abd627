// Proves trades (POST /wallet/trade, POST /t/<id>/accept-trade): the exchange completes atomically with numbered movements, a retraction or the accept deadline returns the escrow, and every refusal (funds, permission, plan, closed-loop token) changes nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { createApp, userToken } from './foundation-helpers.ts';
import { issue, person, type LedgerWorld, type Person } from './ledger-api-support.ts';
import { ledgerFingerprint } from './ledger-support.ts';

let server: TestServer;
let world: LedgerWorld;

test.before(async () => {
  ({ server, world } = await startLedgerServer());
});
test.after(async () => server.close());

const tradePermissions = ['send_cash', 'manage_sent', 'manage_received', 'apply_design', 'view_history', 'view_wallet'];

async function trader(): Promise<Person> {
  return person(server, world, { permissions: tradePermissions });
}

async function holding(profileId: string, currency: string): Promise<string> {
  const holdings = await server.engine.services.ledger.cash.holdings(server.engine.sql, profileId);
  return holdings.find((entry) => entry.loop_id === '0' && entry.currency === currency)?.amount ?? '0.00';
}

async function auditOk(): Promise<void> {
  const audit = await server.client.get('/admin/ledger/audit', {}, { auth: { operator: true } });
  assert.is(audit.body.ok, true, JSON.stringify(audit.body.problems));
}

function offer(alice: Person, bob: Person, extra: Record<string, unknown> = {}) {
  return server.client.post('/wallet/trade', {
    recipient_uid: `service:${bob.id}`,
    amounts: [{ loop_id: '0', currency: 'USD', amount: '2.00' }],
    expect_amounts: [{ loop_id: '0', currency: 'EUR', amount: '1.50' }],
    'appdata.fx.quote': 'Q-1',
    ...extra,
  }, alice.auth);
}

test('a trade escrows the offer; accept-trade swaps both sides in one step, with movements 1 and 2', async () => {
  const alice = await trader();
  const bob = await trader();
  await issue(server, alice.id, '5.00', 'USD');
  await issue(server, bob.id, '4.00', 'EUR');
  const started = await offer(alice, bob);
  assert.is(started.status, 200, started.text);
  const trade = started.body.transfer;
  assert.is(trade.workflow_type, 'trade');
  assert.is(trade.next_activity, 'trade.wait');
  assert.is(trade.completed, false);
  assert.is(trade['appdata.fx.quote'], 'Q-1');
  assert.is(await holding(alice.id, 'USD'), '3.00');
  await auditOk();

  const accepted = await server.client.post(`/t/${trade.id}/accept-trade`, { settler_uid: `service:${alice.id}` }, bob.auth);
  assert.is(accepted.status, 200, accepted.text);
  assert.is(accepted.body.transfer.completed, true);
  const movements = accepted.body.transfer.movements;
  assert.equal(movements.map((movement: any) => [movement.number, movement.from_id, movement.to_id, movement.loops[0].currency, movement.loops[0].amount]), [
    [1, alice.id, bob.id, 'USD', '2.00'],
    [2, bob.id, alice.id, 'EUR', '1.50'],
  ]);
  assert.equal([await holding(alice.id, 'USD'), await holding(alice.id, 'EUR'), await holding(bob.id, 'USD'), await holding(bob.id, 'EUR')], ['3.00', '1.50', '2.00', '2.50']);
  const again = await server.client.post(`/t/${trade.id}/accept-trade`, {}, bob.auth);
  assert.is(again.status, 400, again.text);
  await auditOk();
});

test('the sender retracts a waiting trade and gets the escrow back; the deadline does the same', async () => {
  const alice = await trader();
  const bob = await trader();
  await issue(server, alice.id, '5.00', 'USD');
  const first = await offer(alice, bob);
  const retracted = await server.client.post(`/t/${first.body.transfer.id}/retract`, { reason: 'other' }, alice.auth);
  assert.is(retracted.status, 200, retracted.text);
  assert.is(retracted.body.transfer.canceled, true);
  assert.is(await holding(alice.id, 'USD'), '5.00');

  const second = await offer(alice, bob, { accept_expire_seconds: 60 });
  assert.is(await holding(alice.id, 'USD'), '3.00');
  server.clock.advance(61 * 1000);
  assert.ok((await server.engine.sweeper.runOnce()) >= 1);
  const detail = await server.client.get(`/t/${second.body.transfer.id}`, undefined, alice.auth);
  assert.is(detail.body.canceled, true);
  assert.is(detail.body.reason, 'expired');
  assert.is(await holding(alice.id, 'USD'), '5.00');
  await auditOk();
});

test('refusals change nothing: short funds, missing permission, bad plan, not the recipient, closed-loop token, bad entries', async () => {
  const alice = await trader();
  const bob = await trader();
  const carol = await trader();
  await issue(server, alice.id, '5.00', 'USD');
  await issue(server, bob.id, '1.00', 'EUR');
  const started = await offer(alice, bob);
  const id = started.body.transfer.id;
  const before = await ledgerFingerprint(server.engine);

  const short = await server.client.post(`/t/${id}/accept-trade`, {}, bob.auth);
  assert.is(short.status, 400, short.text);
  assert.is(short.body.send_errors[0].code, 'insufficient_funds');
  assert.is(short.body.send_errors[0].field_name, 'expect_amounts');

  const plainToken = { auth: { bearer: await userToken(server, world.app, bob.id, { permissions: ['manage_received'] }) } };
  const scope = await server.client.post(`/t/${id}/accept-trade`, {}, plainToken);
  assert.is(scope.status, 403, scope.text);
  assert.is(scope.body.error, 'insufficient_scope');

  const plan = await server.client.post(`/t/${id}/accept-trade`, { distribution_plan_ids: { '4000000001': '5000000001' } }, bob.auth);
  assert.is(plan.status, 400, plan.text);
  assert.is(plan.body.error, 'invalid');

  const stranger = await server.client.post(`/t/${id}/accept-trade`, {}, carol.auth);
  assert.is(stranger.status, 403, stranger.text);

  const badEntries = await server.client.post('/wallet/trade', { recipient_uid: `service:${bob.id}`, amounts: [{ loop_id: 'any', currency: 'USD', amount: '1.00' }], expect_amounts: [] }, alice.auth);
  assert.is(badEntries.status, 400, badEntries.text);
  assert.ok(badEntries.body.invalid.amounts || badEntries.body.invalid['amounts.0.loop_id']);

  const otherApp = await createApp(server, { permissions: ['control_profile'] });
  const closed = await server.client.post('/p/token', { uid: `service:${alice.id}` }, { auth: otherApp.basic });
  const refusedClosed = await server.client.post('/wallet/trade', {
    recipient_uid: `service:${bob.id}`, amounts: [{ loop_id: '0', currency: 'USD', amount: '1.00' }], expect_amounts: [{ loop_id: '0', currency: 'EUR', amount: '1.00' }],
  }, { auth: { bearer: closed.body.access_token } });
  assert.is(refusedClosed.status, 400, refusedClosed.text);
  assert.is(refusedClosed.body.send_errors[0].code, 'open_loop_not_permitted');
  assert.equal(await ledgerFingerprint(server.engine), before);
  await auditOk();
});

test.run();
