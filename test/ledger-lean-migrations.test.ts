// Proves migrations 0003 and 0303 move a database grown in the old shape (a note per open loop
// payment, an actor row per transfer born final) to the lean one, the audit balanced before and after;
// and 1060 (a party's view as the transfer's columns) keeps every history and sync answer identical.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAmounts } from '../engine/ledger/allocation.ts';
import { listMigrations, migrate } from '../engine/storage/migrate.ts';
import { wellFormedDecimal } from '../engine/money.ts';
import { stateFields } from '../engine/transfers/machine.ts';
import * as transferStore from '../engine/transfers/store.ts';
import { createTestEngine, type TestEngine } from './support/harness.ts';
import { assertAudit, balanceOf, business, designateIssuer, fund, individual } from './ledger-support.ts';

let harness: TestEngine;

test.before(async () => {
  harness = await createTestEngine();
  await designateIssuer(harness.engine);
});
test.after(async () => harness.close());

const baseSend = { private: true, nonPayment: false, requireRecipientEmail: false, appdata: {} as Record<string, string>, senderPersonalId: null };
const payments = 25;

/** Undoes what 0003 and 0303 did, as a database of the shape before them holds it. */
async function backToTheOldShape(): Promise<void> {
  const { sql } = harness.engine;
  await sql`drop index notes_open_loop_merged`;
  // Every open loop note of more than one cent becomes notes of one cent each (new serials), as payments left them.
  const notes = await sql<{ serial: string; amount: string }[]>`select serial::text, amount::text from notes where holder_kind = 'wallet' and loop_id = '0' and amount > 1`;
  for (const note of notes) {
    await sql`
      insert into notes (serial, holder_kind, holder_id, loop_id, currency, issuer_id, amount, expires_at, parent_serial, created_at, reserve, plan_id, dist_transfer_id)
      select nextval('note_serials'), holder_kind, holder_id, loop_id, currency, issuer_id, 1, null, serial, created_at, 0, null, null
      from notes, generate_series(1, ${Number(note.amount) - 1}) where serial = ${note.serial}::bigint`;
    await sql`update notes set amount = 1 where serial = ${note.serial}::bigint`;
  }
  await sql`
    insert into actors (kind, id, version, state, snapshot, created_at, updated_at)
    select 'transfer', t.id, 1, 'completed', jsonb_build_object('value', 'completed', 'status', 'active', 'context', jsonb_build_object(
        'workflowType', t.workflow_type, 'waitFor', 'none', 'activityCount', t.activity_count, 'endAt', t.end_at, 'reason', t.reason, 'sentCount', 0,
        'paycodeExpiresAt', null, 'holdingUntil', null, 'dfiError', null, 'dfiResult', null)), t.start_at, t.start_at
    from transfers t where t.completed and not exists (select 1 from actors a where a.kind = 'transfer' and a.id = t.id)`;
  await sql`delete from schema_migrations where number in (3, 303)`;
}

async function walletNotes(profileId: string): Promise<number> {
  const rows = await harness.engine.sql<{ count: number }[]>`select count(*)::int as count from notes where holder_kind = 'wallet' and holder_id = ${profileId}`;
  return rows[0].count;
}

async function transferActors(): Promise<number> {
  const rows = await harness.engine.sql<{ count: number }[]>`select count(*)::int as count from actors where kind = 'transfer'`;
  return rows[0].count;
}

test('the lean shape: payments merge into one note and transfers born final keep no actor row', async () => {
  const { ledger } = harness.engine.services;
  const [alice, bob] = [await individual(harness.engine), await individual(harness.engine)];
  await fund(harness.engine, alice, '10.00');
  for (let index = 0; index < payments; index++) {
    assert.ok((await ledger.transfers.send({ ...baseSend, senderId: alice, recipientUid: `service:${bob}`, amounts: parseAmounts('0-USD-0.01') })).ok);
  }
  assert.is(await walletNotes(bob), 1);
  assert.is(await transferActors(), 0, 'a send born final and an issuance keep no actor row');
  await assertAudit(harness.engine);
});

test('0003 and 0303 move a database of the old shape to the lean one, the audit balanced before and after', async () => {
  const { ledger } = harness.engine.services;
  const [carol, dave, erin] = [await individual(harness.engine), await individual(harness.engine), await individual(harness.engine)];
  await fund(harness.engine, carol, '5.00');
  const sends: string[] = [];
  for (let index = 0; index < payments; index++) {
    const sent = await ledger.transfers.send({ ...baseSend, senderId: carol, recipientUid: `service:${dave}`, amounts: parseAmounts('0-USD-0.02') });
    assert.ok(sent.ok);
    sends.push((sent as { transferId: string }).transferId);
  }
  const refusalBefore = await ledger.transfers.retract({ callerId: carol, permissions: new Set(['manage_sent']), transferId: sends[0], reason: 'test' });
  await backToTheOldShape();
  assert.is(await walletNotes(dave), 2 * payments, 'the old shape: a note per cent');
  assert.ok((await transferActors()) > payments);
  await assertAudit(harness.engine);
  const balanceBefore = await balanceOf(harness.engine, dave);

  assert.equal(await migrate(harness.engine.sql), ['0003_transfers_born_final_rowless.sql', '0303_open_loop_notes_merged.sql']);
  assert.is(await walletNotes(dave), 1);
  assert.is(await transferActors(), 0);
  assert.is(await balanceOf(harness.engine, dave), balanceBefore);
  await assertAudit(harness.engine);
  // A transfer born final answers as it did with its actor row; the merged note pays a whole balance.
  assert.equal(await ledger.transfers.retract({ callerId: carol, permissions: new Set(['manage_sent']), transferId: sends[0], reason: 'test' }), refusalBefore);
  const whole = await ledger.transfers.send({ ...baseSend, senderId: dave, recipientUid: `service:${erin}`, amounts: parseAmounts(`0-USD-${(Number(balanceBefore) / 100).toFixed(2)}`) });
  assert.ok(whole.ok, JSON.stringify(whole));
  assert.is(await walletNotes(dave), 0);
  assert.is(await balanceOf(harness.engine, erin), balanceBefore);
  await assertAudit(harness.engine);
});

/** Undoes 1060: every party's view back as a row of transfer_views, counted in transfer_view_counts (migration 1040). */
async function viewsBackToRows(): Promise<void> {
  const { sql } = harness.engine;
  await sql`
    insert into transfer_views (profile_id, transfer_id, role, start_at, sync_ts)
    select sender_id, id, 'sender', start_at, updated_at from transfers where sender_sees
    union all select recipient_id, id, 'recipient', start_at, updated_at from transfers where recipient_sees`;
  await sql`alter table transfers drop column sender_sees, drop column recipient_sees`;
  await sql.unsafe(listMigrations().find((migration) => migration.number === 1040)!.text);
  await sql`delete from schema_migrations where number = 1060`;
}

/** Every profile's answers: history in both orders and directions (paged, filtered), sync pages with remain, and each transfer's stakeholders. */
async function answers(profileIds: readonly string[]): Promise<string> {
  const { queries } = harness.engine.services.ledger;
  const all: unknown[] = [];
  for (const profileId of profileIds) {
    for (const orderColumn of ['start', 'timestamp'] as const) {
      for (const orderDirection of ['asc', 'desc'] as const) {
        for (const [offset, limit] of [[0, 100], [1, 2], [3, 3]]) all.push(await queries.history({ profileId, orderColumn, orderDirection, offset, limit, appdata: {} }));
      }
    }
    all.push(await queries.history({ profileId, orderColumn: 'start', orderDirection: 'desc', offset: 0, limit: 100, appdata: { order: 'seven' } }));
    let cursor: { syncTs: Date; transferId: string | null } = { syncTs: new Date(0), transferId: null };
    for (;;) {
      const page = await queries.sync({ profileId, ...cursor, limit: 2, countRemain: true });
      all.push(page);
      if (!page.more) break;
      cursor = { syncTs: new Date(page.last_sync_ts!), transferId: String(page.results[page.results.length - 1].id) };
    }
  }
  const transfers = await harness.engine.sql<{ id: string }[]>`select id from transfers order by id`;
  for (const { id } of transfers) {
    all.push([...await transferStore.selectViewRoles(harness.engine.sql, id)]);
    for (const profileId of profileIds) all.push(await transferStore.isViewer(harness.engine.sql, id, profileId));
  }
  return JSON.stringify(all);
}

test('1060 moves the parties\' views to the transfers\' columns, every history and sync answer identical before and after', async () => {
  const { ledger, designs, circulation } = harness.engine.services;
  const [ann, ben, cid, owner] = [await individual(harness.engine), await individual(harness.engine), await individual(harness.engine), await individual(harness.engine)];
  const shop = await business(harness.engine, { supportPaycode: true });
  const merchant = await business(harness.engine);
  await fund(harness.engine, ann, '50.00');
  await fund(harness.engine, shop, '20.00');
  const clock = () => harness.clock.advance(1000);
  for (let index = 0; index < 4; index++) {
    clock();
    assert.ok((await ledger.transfers.send({ ...baseSend, senderId: ann, recipientUid: `service:${ben}`, amounts: parseAmounts('0-USD-1.00'), appdata: index === 2 ? { order: 'seven' } : {} })).ok);
  }
  // A business paying with its owner's personal profile acting for it.
  clock();
  assert.ok((await ledger.transfers.send({ ...baseSend, senderId: shop, senderPersonalId: owner, recipientUid: `service:${ann}`, amounts: parseAmounts('0-USD-2.00') })).ok);
  // A payment code, taken; an invitation accepted, one retracted and one still waiting.
  clock();
  const coded = (await ledger.transfers.send({ ...baseSend, senderId: ann, recipientUid: `service:${shop}`, amounts: parseAmounts('any-USD-3.00') })) as { ok: true; transferId: string };
  assert.ok(coded.ok);
  const detail = (await ledger.queries.detail(ann, coded.transferId)) as unknown as { transfer: { payment_codes: { code: string }[] } };
  clock();
  assert.ok((await ledger.transfers.receive({ recipientId: shop, paycode: detail.transfer.payment_codes[0].code, currency: 'USD', amount: wellFormedDecimal('3.00') })).ok);
  clock();
  const invited = (await ledger.transfers.send({ ...baseSend, senderId: ann, recipientUid: 'email:lean-views@example.com', amounts: parseAmounts('0-USD-2.00') })) as { transferId: string };
  const retracted = (await ledger.transfers.send({ ...baseSend, senderId: ann, recipientUid: 'email:lean-retracted@example.com', amounts: parseAmounts('0-USD-1.00') })) as { transferId: string };
  assert.ok((await ledger.transfers.send({ ...baseSend, senderId: ann, recipientUid: 'email:lean-waiting@example.com', amounts: parseAmounts('0-USD-1.00') })).ok);
  const dee = await individual(harness.engine, ['email:lean-views@example.com']);
  clock();
  assert.ok((await ledger.transfers.accept({ callerId: dee, transferId: invited.transferId })).ok);
  clock();
  assert.ok((await ledger.transfers.retract({ callerId: ann, permissions: new Set(['manage_sent']), transferId: retracted.transferId, reason: 'other' })).ok);
  // Brand cash: the merchant's design, distributed to cid under a plan.
  await harness.engine.services.profiles.addFeature(harness.engine.sql, merchant, 'design_gl');
  const created = await designs.create({ profileId: merchant }, { title: 'Lean views', currency: 'USD', designType: 'gl_design' });
  assert.ok(created.ok);
  const designId = String((created as unknown as { design: { id: string } }).design.id);
  const plan = await designs.createPlan({ profileId: merchant }, designId, 'Plan');
  assert.ok(plan.ok);
  await fund(harness.engine, merchant, '10.00');
  clock();
  const distributed = await circulation.send({
    callerId: merchant, designId, recipientUid: `service:${cid}`, planId: (plan as { planId: string }).planId, amount: wellFormedDecimal('1.50'),
    private: true, requireRecipientEmail: false, appdata: {}, closedLoopOnly: false,
  });
  assert.ok(distributed.ok, JSON.stringify(distributed));
  // A third party who sees a transfer: a row of transfer_views, kept by the migration.
  clock();
  const observed = (await ledger.transfers.send({ ...baseSend, senderId: ann, recipientUid: `service:${cid}`, amounts: parseAmounts('0-USD-1.00') })) as { transferId: string };
  await harness.engine.sql.begin((tx) => transferStore.updateTransfer(tx, observed.transferId, {
    state: stateFields('completed'), endAt: harness.clock.now(), activityCount: 1, reason: null, addViews: [{ profileId: owner, role: 'observer' }],
  }, harness.clock.now()));
  const profiles = [ann, ben, cid, dee, owner, shop, merchant];
  const after = await answers(profiles);
  await assertAudit(harness.engine);

  await viewsBackToRows();
  const [rows] = await harness.engine.sql<{ count: number }[]>`select count(*)::int as count from transfer_views`;
  assert.ok(rows.count > 20, `the old shape: a row per view (${rows.count})`);
  // What the reads before 1060 answered from the rows: each profile's views in sync and in start order.
  const inOrder = async (profileId: string, column: 'sync_ts' | 'start_at') => (await harness.engine.sql<{ transfer_id: string; at: Date }[]>`
    select transfer_id, ${harness.engine.sql(column)} as at from transfer_views where profile_id = ${profileId} order by ${harness.engine.sql(column)}, transfer_id`)
    .map((row) => [row.transfer_id, row.at.toISOString()]);
  const before = [];
  for (const profileId of profiles) before.push(await inOrder(profileId, 'sync_ts'), await inOrder(profileId, 'start_at'));
  assert.equal(await migrate(harness.engine.sql), ['1060_party_views_from_transfers.sql']);
  const kept = await harness.engine.sql<{ profile_id: string; role: string }[]>`select profile_id, role from transfer_views`;
  assert.equal(kept.map((row) => [row.profile_id, row.role]), [[owner, 'observer']], 'only the third party keeps a row');
  assert.is(await answers(profiles), after);
  const now = [];
  for (const profileId of profiles) {
    const synced = await transferStore.selectSync(harness.engine.sql, profileId, new Date(0), null, 1000);
    const started = await transferStore.selectHistory(harness.engine.sql, { profileId, orderColumn: 'start', descending: false, offset: 0, limit: 1000, appdata: {} });
    now.push(synced.map((row) => [row.id, row.sync_ts.toISOString()]), started.map((row) => [row.id, row.start_at.toISOString()]));
  }
  assert.equal(now, before);
  await assertAudit(harness.engine);
});

test.run();
