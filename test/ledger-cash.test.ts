// Proves the cash model: issuance, P2P sends that move or split notes, constant-time balances,
// movements, dedup, payment codes, retraction, and an audit that balances after every step.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestEngine, type TestEngine } from './support/harness.ts';
import { assertAudit, balanceOf, business, designateIssuer, fund, individual, ledgerFingerprint } from './ledger-support.ts';
import { parseAmounts } from '../engine/ledger/allocation.ts';
import { wellFormedDecimal } from '../engine/money.ts';

let harness: TestEngine;
let issuerId: string;

test.before(async () => {
  harness = await createTestEngine();
  issuerId = await designateIssuer(harness.engine);
});
test.after(async () => harness.close());

const baseSend = { private: true, nonPayment: false, requireRecipientEmail: false, appdata: {} as Record<string, string>, senderPersonalId: null };

test('issuance creates a note, an issue and a grant movement, and balances the audit', async () => {
  const alice = await individual(harness.engine);
  await fund(harness.engine, alice, '100.00');
  assert.is(await balanceOf(harness.engine, alice), 10000n);
  const movements = await harness.engine.sql`select number, action, from_id, to_id, amount from movements order by number`;
  assert.equal(movements.map((row) => row.action), ['issue', 'grant']);
  assert.is(movements[0].from_id, null);
  assert.is(movements[0].to_id, issuerId);
  await assertAudit(harness.engine);
});

test('a P2P send splits a note, moves it and records a move movement', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  const bob = await individual(harness.engine);
  await fund(harness.engine, alice, '50.00');
  const result = await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: `service:${bob}`, amounts: parseAmounts('0-USD-12.34') });
  assert.ok(result.ok, JSON.stringify(result));
  assert.is(await balanceOf(harness.engine, alice), 5000n - 1234n);
  assert.is(await balanceOf(harness.engine, bob), 1234n);
  const detail = await ledger.queries.detail(alice, (result as { transferId: string }).transferId);
  assert.ok(detail.ok);
  const transfer = (detail as { transfer: any }).transfer;
  assert.is(transfer.completed, true);
  assert.is(transfer.amount, '12.34');
  assert.is(transfer.movements[0].action, 'move');
  assert.is(transfer.movements[0].loops[0].amount, '12.34');
  await assertAudit(harness.engine);
});

test('insufficient funds is a send error and changes nothing', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  const bob = await individual(harness.engine);
  await fund(harness.engine, alice, '5.00');
  const before = await ledgerFingerprint(harness.engine);
  const result = await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: `service:${bob}`, amounts: parseAmounts('any-USD-5.01') });
  assert.is(result.ok, false);
  assert.is((result as any).sendErrors[0].code, 'insufficient_funds');
  assert.is(await ledgerFingerprint(harness.engine), before);
});

test('dedup_id makes one transfer; repeats get the same one', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  const bob = await individual(harness.engine);
  await fund(harness.engine, alice, '10.00');
  const input = { ...baseSend, senderId: alice, recipientUid: `service:${bob}`, amounts: parseAmounts('0-USD-1.00'), dedupId: 'order-1' };
  const answers = await Promise.all(Array.from({ length: 10 }, () => ledger.transfers.send(input)));
  const ids = new Set(answers.map((answer) => (answer as { transferId: string }).transferId));
  assert.is(ids.size, 1);
  assert.is(await balanceOf(harness.engine, bob), 100n);
  harness.clock.advance(24 * 60 * 60 * 1000 + 1000);
  const later = await ledger.transfers.send(input);
  assert.ok(later.ok && !ids.has(later.transferId), 'after 24 hours the id starts a new transfer');
  assert.is(await balanceOf(harness.engine, bob), 200n);
});

test('a payment-code send holds cash; receive moves part and returns the rest; expiry of another releases it', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  const cafe = await business(harness.engine, { supportPaycode: true });
  await fund(harness.engine, alice, '30.00');
  const sent = await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: `service:${cafe}`, amounts: parseAmounts('any-USD-20.00') });
  assert.ok(sent.ok);
  const id = (sent as { transferId: string }).transferId;
  assert.is(await balanceOf(harness.engine, alice), 1000n);
  const detail = (await ledger.queries.detail(alice, id)) as { transfer: any };
  assert.is(detail.transfer.next_activity, 'paycode.wait');
  const code = detail.transfer.payment_codes[0].code;
  assert.ok(code.length >= 4);
  const cafeView = (await ledger.queries.detail(cafe, id)) as { transfer: any };
  assert.equal(cafeView.transfer.payment_codes, [], 'only the sender sees the code');
  await assertAudit(harness.engine);
  const wrong = await ledger.transfers.receive({ recipientId: cafe, paycode: '0000', currency: 'USD', amount: wellFormedDecimal('1.00') });
  assert.is((wrong as any).error, 'code_not_found');
  const tooMuch = await ledger.transfers.receive({ recipientId: cafe, paycode: code, currency: 'USD', amount: wellFormedDecimal('20.01') });
  assert.is((tooMuch as any).error, 'code_limited');
  const received = await ledger.transfers.receive({ recipientId: cafe, paycode: code, currency: 'USD', amount: wellFormedDecimal('15.50'), totalDue: wellFormedDecimal('15.50') });
  assert.ok(received.ok, String((received as any).error));
  assert.is(await balanceOf(harness.engine, cafe), 1550n);
  assert.is(await balanceOf(harness.engine, alice), 3000n - 1550n);
  // Correction period: resubmitting with another amount adjusts what was received.
  const corrected = await ledger.transfers.receive({ recipientId: cafe, paycode: code, currency: 'USD', amount: wellFormedDecimal('15.00') });
  assert.ok(corrected.ok && corrected.amountReceived === 1500n);
  assert.is(await balanceOf(harness.engine, cafe), 1500n);
  harness.clock.advance(11 * 60 * 1000);
  const late = await ledger.transfers.receive({ recipientId: cafe, paycode: code, currency: 'USD', amount: wellFormedDecimal('15.00') });
  assert.is((late as any).error, 'code_already_used');
  await assertAudit(harness.engine);

  const second = await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: `service:${cafe}`, amounts: parseAmounts('any-USD-5.00') });
  assert.ok(second.ok);
  harness.clock.advance(24 * 60 * 60 * 1000 + 1);
  assert.ok((await harness.engine.sweeper.runOnce()) >= 1);
  const expired = (await ledger.queries.detail(alice, (second as { transferId: string }).transferId)) as { transfer: any };
  assert.is(expired.transfer.canceled, true);
  assert.is(await balanceOf(harness.engine, alice), 1500n);
  await assertAudit(harness.engine);
});

test('retract returns held cash; reasons follow the initiator', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  const cafe = await business(harness.engine, { supportPaycode: true });
  await fund(harness.engine, alice, '10.00');
  const sent = (await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: `service:${cafe}`, amounts: parseAmounts('any-USD-4.00') })) as { transferId: string };
  const permissions = new Set(['manage_sent']);
  assert.is((await ledger.transfers.retract({ callerId: alice, permissions, transferId: sent.transferId, reason: 'canceled' }) as any).error, 'invalid_reason');
  assert.is((await ledger.transfers.retract({ callerId: cafe, permissions, transferId: sent.transferId, reason: 'other' }) as any).error, 'not_initiator');
  assert.is((await ledger.transfers.retract({ callerId: alice, permissions: new Set(), transferId: sent.transferId, reason: 'other' }) as any).error, 'wrong_permission');
  const retracted = await ledger.transfers.retract({ callerId: alice, permissions, transferId: sent.transferId, reason: 'wrong_amount' });
  assert.ok(retracted.ok);
  assert.is(await balanceOf(harness.engine, alice), 1000n);
  const again = await ledger.transfers.retract({ callerId: alice, permissions, transferId: sent.transferId, reason: 'wrong_amount' });
  assert.is((again as any).error, 'cannot_retract');
  await assertAudit(harness.engine);
});

test('open loop payments merge into one note of the recipient, which spends it in parts and whole', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  const bob = await individual(harness.engine);
  const carol = await individual(harness.engine);
  await fund(harness.engine, alice, '1.00');
  for (let index = 0; index < 40; index++) {
    assert.ok((await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: `service:${bob}`, amounts: parseAmounts('0-USD-0.01') })).ok);
  }
  const notes = await harness.engine.sql`select count(*)::int as count, sum(amount)::int as amount from notes where holder_kind = 'wallet' and holder_id = ${bob}`;
  assert.equal([notes[0].count, notes[0].amount], [1, 40], 'forty payments, one open loop note (migration 0303)');
  const shop = await business(harness.engine);
  const toShop = await ledger.transfers.send({ ...baseSend, senderId: bob, recipientUid: `service:${shop}`, amounts: parseAmounts('any-USD-0.05') });
  assert.ok(toShop.ok, 'a business recipient takes the running-total path with acceptance');
  const sent = await ledger.transfers.send({ ...baseSend, senderId: bob, recipientUid: `service:${carol}`, amounts: parseAmounts('any-USD-0.35') });
  assert.ok(sent.ok);
  assert.is(await balanceOf(harness.engine, carol), 35n);
  assert.is(await balanceOf(harness.engine, bob), 0n);
  const tooMuch = await ledger.transfers.send({ ...baseSend, senderId: carol, recipientUid: `service:${bob}`, amounts: parseAmounts('0-USD-0.36') });
  assert.is(!tooMuch.ok && tooMuch.sendErrors![0].code, 'insufficient_funds');
  await assertAudit(harness.engine);
});

test('an invitation transfer to an unknown email expires after its days and returns the cash', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  await fund(harness.engine, alice, '5.00');
  const sent = await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: 'email:nobody-yet@example.com', amounts: parseAmounts('0-USD-5.00'), invitationExpireDays: 2 });
  assert.ok(sent.ok);
  assert.is(await balanceOf(harness.engine, alice), 0n);
  harness.clock.advance(2 * 24 * 60 * 60 * 1000 + 1);
  assert.ok((await harness.engine.sweeper.runOnce()) >= 1);
  const detail = (await ledger.queries.detail(alice, (sent as { transferId: string }).transferId)) as { transfer: any };
  assert.equal([detail.transfer.canceled, detail.transfer.reason, detail.transfer.next_activity], [true, 'expired', 'canceled']);
  assert.is(await balanceOf(harness.engine, alice), 500n);
  await assertAudit(harness.engine);
});

test('opposite sends between two wallets queue on their balances instead of deadlocking', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  const bob = await individual(harness.engine);
  await fund(harness.engine, alice, '100.00');
  await fund(harness.engine, bob, '100.00');
  const deadlocks = async () => (await harness.engine.sql`select deadlocks::int as count from pg_stat_database where datname = current_database()`)[0]?.count ?? 0;
  const before = await deadlocks();
  const results = await Promise.all(Array.from({ length: 40 }, (_, index) => {
    const [from, to] = index % 2 === 0 ? [alice, bob] : [bob, alice];
    return ledger.transfers.send({ ...baseSend, senderId: from, recipientUid: `service:${to}`, amounts: parseAmounts('0-USD-1.00') });
  }));
  assert.ok(results.every((result) => result.ok));
  assert.is(await deadlocks(), before);
  assert.is(await balanceOf(harness.engine, alice), 10000n);
  await assertAudit(harness.engine);
});

test('history_sync pages by (sync_ts, transfer_id) with equal timestamps', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  const bob = await individual(harness.engine);
  await fund(harness.engine, alice, '10.00');
  for (let index = 0; index < 7; index++) {
    const sent = await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: `service:${bob}`, amounts: parseAmounts('0-USD-0.01') });
    assert.ok(sent.ok);
  }
  const seen: string[] = [];
  let cursor = { syncTs: new Date(0), transferId: null as string | null };
  for (let page = 0; page < 10; page++) {
    const batch = await ledger.queries.sync({ profileId: bob, syncTs: cursor.syncTs, transferId: cursor.transferId, limit: 3, countRemain: page === 0 });
    seen.push(...batch.results.map((item) => item.id as string));
    if (page === 0) assert.is(batch.remain, 4);
    if (!batch.more) break;
    cursor = { syncTs: new Date(batch.last_sync_ts!), transferId: batch.results[batch.results.length - 1].id as string };
  }
  assert.is(seen.length, 7);
  assert.is(new Set(seen).size, 7);
  const empty = await ledger.queries.sync({ profileId: bob, syncTs: cursor.syncTs, transferId: seen[seen.length - 1], limit: 3, countRemain: false });
  assert.equal(empty, { results: [], more: false, first_sync_ts: null, last_sync_ts: null });
});

test.run();
