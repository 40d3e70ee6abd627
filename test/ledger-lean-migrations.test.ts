// Proves migrations 0003 and 0303 move a database grown in the old shape (a note per open loop
// payment, an actor row per transfer born final) to the lean one, the audit balanced before and after.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAmounts } from '../engine/ledger/allocation.ts';
import { migrate } from '../engine/storage/migrate.ts';
import { createTestEngine, type TestEngine } from './support/harness.ts';
import { assertAudit, balanceOf, designateIssuer, fund, individual } from './ledger-support.ts';

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

test.run();
