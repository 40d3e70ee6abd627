// Proves a profile sees each of its transfers once, a party through the transfer's columns and a third
// party through transfer_views, across every writer (sends, invitations accepted, retractions, expiry,
// a view added twice), that a P2P send writes no view row, and that history_sync's `remain` is exact
// within the bound of the end of a history and an estimate above it (migration 1060).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAmounts } from '../ledger/allocation.ts';
import { syncRemainExactMax } from '../limits.ts';
import { createTestEngine, type TestEngine } from '../../test/support/harness.ts';
import { assertAudit, designateIssuer, fund, individual } from '../../test/ledger-support.ts';
import { stateFields } from './machine.ts';
import * as store from './store.ts';
import { viewProblems } from './view-checks.ts';

let harness: TestEngine;

test.before(async () => {
  harness = await createTestEngine();
  await designateIssuer(harness.engine);
});
test.after(async () => harness.close());

const baseSend = { private: true, nonPayment: false, requireRecipientEmail: false, appdata: {} as Record<string, string>, senderPersonalId: null };
const permissions = new Set(['manage_sent']);

/** The transfers the profile sees, counted from the columns and rows, and as history_sync pages through them. */
async function counts(profileId: string): Promise<{ counted: number; views: number }> {
  const [row] = await harness.engine.sql<{ counted: number }[]>`
    select (select count(*)::int from transfers where sender_sees and sender_id = ${profileId})
      + (select count(*)::int from transfers where recipient_sees and recipient_id = ${profileId})
      + (select count(*)::int from transfer_views where profile_id = ${profileId}) as counted`;
  const synced = await store.selectSync(harness.engine.sql, profileId, new Date(0), null, 10_000);
  return { counted: row.counted, views: new Set(synced.map((view) => view.id)).size };
}

async function assertCounted(profileId: string, views: number): Promise<void> {
  assert.equal(await counts(profileId), { counted: views, views });
  assert.equal(await viewProblems(harness.engine.sql), []);
}

test('sends, an accepted invitation, retraction and expiry: every profile sees each of its transfers once', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  const bob = await individual(harness.engine);
  await fund(harness.engine, alice, '50.00');
  // The issuance is a transfer alice sees.
  await assertCounted(alice, 1);
  for (let index = 0; index < 3; index++) {
    harness.clock.advance(1000);
    assert.ok((await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: `service:${bob}`, amounts: parseAmounts('0-USD-1.00') })).ok);
  }
  await assertCounted(alice, 4);
  await assertCounted(bob, 3);
  const [rows] = await harness.engine.sql<{ count: number }[]>`select count(*)::int as count from transfer_views`;
  assert.is(rows.count, 0, 'sends and an issuance write no view row: their parties see them through the transfer');
  // Sent to an email nobody has proved yet: only the sender sees it, until the recipient accepts.
  const invited = await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: 'email:counted-later@example.com', amounts: parseAmounts('0-USD-2.00') });
  assert.ok(invited.ok, JSON.stringify(invited));
  await assertCounted(alice, 5);
  const carol = await individual(harness.engine, ['email:counted-later@example.com']);
  await assertCounted(carol, 0);
  const accepted = await ledger.transfers.accept({ callerId: carol, transferId: (invited as { transferId: string }).transferId });
  assert.ok(accepted.ok, JSON.stringify(accepted));
  await assertCounted(carol, 1);
  await assertCounted(alice, 5);
  // A retraction and an expiry change transfers (every viewer's sync_ts) but add no view.
  const waiting = (await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: 'email:nobody@example.com', amounts: parseAmounts('0-USD-1.00') })) as { transferId: string };
  const retracted = await ledger.transfers.retract({ callerId: alice, permissions, transferId: waiting.transferId, reason: 'other' });
  assert.ok(retracted.ok, JSON.stringify(retracted));
  assert.ok((await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: 'email:expires@example.com', amounts: parseAmounts('0-USD-1.00'), invitationExpireDays: 1 })).ok);
  harness.clock.advance(24 * 60 * 60 * 1000 + 1);
  assert.ok((await harness.engine.sweeper.runOnce()) >= 1);
  await assertCounted(alice, 7);
  await assertAudit(harness.engine);
});

test('a view added to a transfer its profile already sees is not added twice; a new one is, as a row', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  const bob = await individual(harness.engine);
  const dave = await individual(harness.engine);
  await fund(harness.engine, alice, '5.00');
  const sent = (await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: `service:${bob}`, amounts: parseAmounts('0-USD-1.00') })) as { transferId: string };
  const change = { state: stateFields('completed'), endAt: harness.clock.now(), activityCount: 1, reason: null };
  await harness.engine.sql.begin((tx) => store.updateTransfer(tx, sent.transferId, { ...change, addViews: [{ profileId: bob, role: 'recipient' }, { profileId: dave, role: 'observer' }] }, harness.clock.now()));
  await assertCounted(bob, 1);
  await assertCounted(dave, 1);
  assert.equal([...await store.selectViewRoles(harness.engine.sql, sent.transferId)], [
    { profile_id: alice, role: 'sender' }, { profile_id: bob, role: 'recipient' }, { profile_id: dave, role: 'observer' },
  ].sort((left, right) => (left.profile_id < right.profile_id ? -1 : 1)));
  assert.ok(await store.isViewer(harness.engine.sql, sent.transferId, dave));
  await assertAudit(harness.engine);
});

/** The profile's views in sync order: the k-th is the end of a page with k views at or before it. */
async function syncOrder(profileId: string): Promise<{ sync_ts: Date; transfer_id: string }[]> {
  return harness.engine.sql<{ sync_ts: Date; transfer_id: string }[]>`
    select updated_at as sync_ts, id as transfer_id from transfers where (sender_sees and sender_id = ${profileId}) or (recipient_sees and recipient_id = ${profileId})
    union all select sync_ts, transfer_id from transfer_views where profile_id = ${profileId}
    order by sync_ts, transfer_id`;
}

test('remain is exact within the bound of the end of the history, and more than the bound above it', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  const bob = await individual(harness.engine);
  await fund(harness.engine, alice, '100.00');
  for (let index = 0; index < 15; index++) {
    harness.clock.advance(1000);
    assert.ok((await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: `service:${bob}`, amounts: parseAmounts('0-USD-1.00') })).ok);
  }
  const order = await syncOrder(bob);
  assert.is(order.length, 15);
  const exactMax = 4;
  for (let through = 1; through <= order.length; through++) {
    const end = order[through - 1];
    const remain = await store.countSyncAfter(harness.engine.sql, bob, end.sync_ts, end.transfer_id, exactMax);
    const exact = order.length - through;
    if (exact <= exactMax) assert.is(remain, exact, `page ending at view ${through}`);
    else assert.ok(Number.isInteger(remain) && remain > exactMax, `page ending at view ${through}: ${remain}`);
  }
  // Through the read: the first page, a page from the middle and the last, at the real bound.
  const first = await ledger.queries.sync({ profileId: bob, syncTs: new Date(0), transferId: null, limit: 4, countRemain: true });
  assert.equal([first.results.length, first.more, first.remain], [4, true, 11]);
  const middle = await ledger.queries.sync({ profileId: bob, syncTs: order[5].sync_ts, transferId: order[5].transfer_id, limit: 3, countRemain: true });
  assert.equal([middle.results.length, middle.more, middle.remain], [3, true, 6]);
  const last = await ledger.queries.sync({ profileId: bob, syncTs: order[10].sync_ts, transferId: order[10].transfer_id, limit: 4, countRemain: true });
  assert.equal([last.results.length, last.more, last.remain], [4, false, 0]);
  assert.ok(syncRemainExactMax >= 15);
});

test('remain counts a transfer that changed after the cursor, and still once', async () => {
  const { ledger } = harness.engine.services;
  const alice = await individual(harness.engine);
  const bob = await individual(harness.engine);
  await fund(harness.engine, alice, '10.00');
  const waiting = (await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: 'email:moves@example.com', amounts: parseAmounts('0-USD-1.00') })) as { transferId: string };
  for (let index = 0; index < 3; index++) {
    harness.clock.advance(1000);
    assert.ok((await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: `service:${bob}`, amounts: parseAmounts('0-USD-1.00') })).ok);
  }
  // alice sees the issuance, the waiting transfer and three sends: a first page of two leaves three.
  const before = await ledger.queries.sync({ profileId: alice, syncTs: new Date(0), transferId: null, limit: 2, countRemain: true });
  assert.equal([before.more, before.remain], [true, 3]);
  // Retracting the waiting transfer moves it after every other: it remains once, at the end.
  harness.clock.advance(1000);
  assert.ok((await ledger.transfers.retract({ callerId: alice, permissions, transferId: waiting.transferId, reason: 'other' })).ok);
  const after = await ledger.queries.sync({ profileId: alice, syncTs: new Date(0), transferId: null, limit: 2, countRemain: true });
  assert.equal([after.more, after.remain], [true, 3]);
  assert.ok(!after.results.some((item) => item.id === waiting.transferId));
});

test.run();
