// Proves bank payouts: registered accounts in ProfileDetail, presend offers with add/subtract fees,
// deposits that redeem cash, failed deposits that return it with dfi_error, send-dfi, and send-fx
// with exchange rates and a durable hold; the audit balances throughout. Each test has its own
// customer, account and bank answer, so each runs alone: npm test -- payouts-api -t "<name>".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PayoutOutcome, PayoutRequest } from '../engine/payouts/connector.ts';
import { exchange } from '../engine/payouts/service.ts';
import { type TestServer, assertRefused } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { issue, person, usd, type LedgerWorld, type Person } from './ledger-api-support.ts';
import { assertAudit } from './ledger-support.ts';

let server: TestServer;
let world: LedgerWorld;
/** The requests the bank answered. */
const requests: PayoutRequest[] = [];
/** The bank's answer to the next request: a test sets its own. */
let bank: (request: PayoutRequest) => Promise<PayoutOutcome>;
const operator = { auth: { operator: true as const } };
const cents = (amount: string): bigint => BigInt(amount.replace('.', ''));

test.before(async () => {
  ({ server, world } = await startLedgerServer());
  server.engine.services.ledger.payouts.setConnector({
    async send(request) {
      const outcome = await bank(request);
      requests.push(request);
      return outcome;
    },
  });
});
test.before.each(() => {
  bank = async () => ({ ok: true, result: { trace: 'T1' } });
});
test.after(async () => server.close());

/** A new customer holding 500.00 with a registered bank account. */
async function customerWithAccount(): Promise<{ alice: Person; accountId: string }> {
  const alice = await person(server, world);
  await issue(server, alice.id, '500.00');
  const added = await server.client.post('/admin/ledger/accounts', { uid: `service:${alice.id}`, routing_number: '021000021', account_number: '123456789', ach_type: 'checking', rdfi_name: 'First Bank', holder_name: 'Pat Lee' }, operator);
  assert.is(added.status, 200, added.text);
  return { alice, accountId: added.body.account_id };
}

function redeemedUsd(audit: { totals: { currency: string; redeemed: string }[] }): bigint {
  return cents(audit.totals.find((total) => total.currency === 'USD')?.redeemed ?? '0.00');
}

test('registered accounts appear in ProfileDetail.accounts, redacted', async () => {
  const { alice, accountId } = await customerWithAccount();
  const detail = await server.engine.services.profiles.detail(server.engine.sql, alice.id);
  assert.equal(detail.accounts, [{ id: accountId, redacted_account_num: 'XXXXXXX89', rdfi_name: 'First Bank', alias: '', ach_type: 'checking', currency: 'USD' }]);
});

test('account presend offers add and subtract options; amount at most the cash held', async () => {
  const { alice, accountId } = await customerWithAccount();
  const answer = await server.client.get(`/wallet/account/${accountId}/presend`, { amount: '100.00' }, alice.auth);
  assert.is(answer.status, 200, answer.text);
  const express = answer.body.offers.find((offer: { name: string }) => offer.name === 'express');
  assert.equal(express.options.map((option: { name: string }) => option.name), ['add', 'subtract']);
  assert.equal(express.options[0], { name: 'add', fee: '1.00', send_amount: '101.00', deposit_amount: '100.00', currency: 'USD' });
  assert.equal(express.options[1], { name: 'subtract', fee: '1.00', send_amount: '100.00', deposit_amount: '99.00', currency: 'USD' });
  assert.is((await server.client.get(`/wallet/account/${accountId}/presend`, { amount: '500.01' }, alice.auth)).body.send_errors[0].code, 'insufficient_funds');
  assertRefused(await server.client.get('/wallet/account/1234567890/presend', { amount: '1.00' }, alice.auth), 400, 'invalid');
  const other = await person(server, world);
  assert.is((await server.client.get(`/wallet/account/${accountId}/presend`, { amount: '1.00' }, other.auth)).status, 400, 'another profile\'s account');
});

test('a successful deposit redeems the cash, pays the fee, and records a deposit movement', async () => {
  const { alice, accountId } = await customerWithAccount();
  const issuerBefore = cents(await usd(server, world.issuerId));
  const redeemedBefore = redeemedUsd(await server.engine.services.ledger.cash.audit());
  const sent = await server.client.post(`/wallet/account/${accountId}/send`, { amount: '100.00', offer_name: 'express', fee_option_name: 'add' }, { ...alice.auth, form: true });
  assert.is(sent.status, 200, sent.text);
  assert.is(sent.body.transfer.workflow_type, 'redeem');
  assert.is(sent.body.transfer.next_activity, 'send_to_dfi');
  assert.is(sent.body.transfer.redeem_amount, '100.00');
  assert.is(sent.body.transfer.fee_amount, '1.00');
  assert.is(await usd(server, alice.id), '399.00');
  await assertAudit(server.engine);
  await server.engine.outbox.drain();
  assert.is(requests.at(-1)!.amount, '100.00');
  const detail = await server.client.get(`/t/${sent.body.transfer.id}`, {}, alice.auth);
  assert.is(detail.body.completed, true);
  assert.equal(detail.body.dfi_result, { trace: 'T1' });
  assert.equal(detail.body.movements.map((movement: { action: string }) => movement.action), ['deposit', 'move']);
  assert.is(detail.body.movements[0].to_id, accountId);
  assert.is(cents(await usd(server, world.issuerId)) - issuerBefore, 100n, 'the issuer got the 1.00 fee');
  assert.is(redeemedUsd(await server.engine.services.ledger.cash.audit()) - redeemedBefore, 100_00n);
  await assertAudit(server.engine);
  const bad = await server.client.post(`/wallet/account/${accountId}/send`, { amount: '1.00', offer_name: 'overnight', fee_option_name: 'add' }, alice.auth);
  assertRefused(bad, 400, 'invalid');
  assertRefused(await server.client.post(`/wallet/account/${accountId}/send`, { amount: '1.00', offer_name: 'standard', fee_option_name: 'both' }, alice.auth), 400, 'invalid');
});

test('a failed deposit returns the cash to the sender and says why (dfi_error)', async () => {
  const { alice } = await customerWithAccount();
  bank = async () => ({ ok: false, error: 'account_closed', message: 'The account is closed.' });
  const before = await usd(server, alice.id);
  const sent = await server.client.post('/wallet/send-dfi', {
    currency: 'USD', amount: '50.00', fee: '0', recipient_about: { name: 'Sam Doe' }, recipient_account: { routing_number: '011000015', account_number: '5555' },
  }, alice.auth);
  assert.is(sent.status, 200, sent.text);
  await server.engine.outbox.drain();
  const detail = await server.client.get(`/t/${sent.body.transfer.id}`, {}, alice.auth);
  assert.is(detail.body.canceled, true);
  assert.equal(detail.body.dfi_error, { error: 'account_closed', message: 'The account is closed.' });
  assert.is(await usd(server, alice.id), before);
  await assertAudit(server.engine);
});

test('send-dfi validates its body; bank outages are retried by the outbox', async () => {
  const { alice } = await customerWithAccount();
  const body = { currency: 'USD', amount: '5.00', fee: '0.00', recipient_about: { name: 'Sam' }, recipient_account: { routing_number: '011000015', account_number: '5555' } };
  assert.is((await server.client.post('/wallet/send-dfi', { ...body, amount: '5000.00' }, alice.auth)).body.send_errors[0].code, 'insufficient_funds');
  assertRefused(await server.client.post('/wallet/send-dfi', { ...body, recipient_account: { routing_number: '123', account_number: '5555' } }, alice.auth), 400, 'invalid');
  assert.is((await server.client.post('/wallet/send-dfi', { ...body, recipient_account: { ...body.recipient_account, currency: 'EUR' } }, alice.auth)).body.send_errors[0].code, 'currency_not_accepted');
  assertRefused(await server.client.post('/wallet/send-dfi', { ...body, fee: '5.00' }, alice.auth), 400, 'invalid');
  let outages = 1;
  bank = async () => {
    if (outages-- > 0) throw new Error('bank unreachable');
    return { ok: true, result: {} };
  };
  const sent = await server.client.post('/wallet/send-dfi', body, alice.auth);
  assert.is(sent.status, 200, sent.text);
  await server.engine.outbox.drain();
  server.clock.advance(5_000);
  await server.engine.outbox.drain();
  const detail = await server.client.get(`/t/${sent.body.transfer.id}`, {}, alice.auth);
  assert.is(detail.body.completed, true);
  await assertAudit(server.engine);
});

test('send-fx exchanges at the table rate exactly and holds for hold_seconds', async () => {
  let { alice } = await customerWithAccount();
  assert.is(exchange(10000n, 'USD', '18.4', 'MXN'), 184000n);
  assert.is(exchange(333n, 'USD', '0.333333', 'JPY'), 1n);
  const rate = await server.client.post('/admin/ledger/fx-rates', { source_currency: 'USD', dest_currency: 'MXN', rate: '18.40' }, operator);
  assert.is(rate.status, 200, rate.text);
  const body = {
    currency: 'USD', amount: '101.00', fee: '1.00', recipient_about: { name: 'Ana' }, recipient_account: { routing_number: '011000015', account_number: '7777' },
    fx: { currency: 'MXN', amount: '1840.00', rate: '18.4', holder_uid: `service:${world.issuerId}`, quote_id: 'Q-1' }, hold_seconds: 1800,
  };
  assert.is((await server.client.post('/wallet/send-fx', { ...body, fx: { ...body.fx, amount: '1840.01' } }, alice.auth)).body.send_errors[0].code, 'invalid_fx');
  assertRefused(await server.client.post('/wallet/send-fx', { ...body, fx: { ...body.fx, currency: 'EUR' } }, alice.auth), 400, 'invalid');
  const sent = await server.client.post('/wallet/send-fx', body, alice.auth);
  assert.is(sent.status, 200, sent.text);
  const transfer = sent.body.transfer;
  assert.is(transfer.workflow_type, 'fxdeposit');
  assert.is(transfer.next_activity, 'hold');
  assert.is(transfer.hold_seconds, 1800);
  assert.is(transfer.dest_amount, '1840.00');
  assert.is(transfer.fx_rate, '18.4');
  assert.is(transfer.source_amount_without_fee, '100.00');
  await server.engine.outbox.drain();
  assert.is((await server.client.get(`/t/${transfer.id}`, {}, alice.auth)).body.next_activity, 'hold');
  server.clock.advance(1800 * 1000);
  assert.ok((await server.engine.sweeper.runOnce()) >= 1);
  await server.engine.outbox.drain();
  // Concurrent test tokens last 15 minutes; the hold outlived this one, so read through the engine.
  const detail = (await server.engine.services.ledger.queries.detail(alice.id, transfer.id)) as { transfer: Record<string, unknown> };
  assert.is(detail.transfer.completed, true);
  assert.is(requests.at(-1)!.currency, 'MXN');
  assert.is(requests.at(-1)!.amount, '1840.00');
  alice = await person(server, world);
  assertRefused(await server.client.post('/wallet/send-fx', { ...body, hold_seconds: 7 * 24 * 3600 + 1 }, alice.auth), 400, 'invalid');
  await assertAudit(server.engine);
});

test.run();
