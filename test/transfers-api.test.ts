// Proves the transfer API: GET /t for stakeholders only, retract reasons and permissions per
// initiator, history ordering/paging/appdata filters (128 chars), and history_sync cursors.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { syncRemainExactMax } from '../engine/limits.ts';
import { argonHashesInsideCommands } from '../engine/passwords.ts';
import { countSyncAfter } from '../engine/transfers/store.ts';
import { type TestServer, assertRefused } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { issue, person, shop, type LedgerWorld, type Person } from './ledger-api-support.ts';

let server: TestServer;
let world: LedgerWorld;
let alice: Person;
let bob: Person;
const sentIds: string[] = [];

test.before(async () => {
  ({ server, world } = await startLedgerServer());
  alice = await person(server, world);
  bob = await person(server, world);
  await issue(server, alice.id, '100.00');
  for (let index = 0; index < 5; index++) {
    server.clock.advance(1000);
    const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: `0-USD-1.0${index}`, 'appdata.shop.order': `order-${index}`, 'appdata.shop.kind': index % 2 ? 'odd' : 'even' }, alice.auth);
    assert.is(sent.status, 200, sent.text);
    sentIds.push(sent.body.transfer.id);
  }
});
test.after(async () => server.close());

test('GET /t/<id> shows TransferDetail to stakeholders only; ids may be hyphenated', async () => {
  const id = sentIds[0];
  const detail = await server.client.get(`/t/${id.replace(/(\d{4})(?=\d)/g, '$1-')}`, {}, bob.auth);
  assert.is(detail.status, 200, detail.text);
  for (const key of ['id', 'workflow_type', 'start', 'timestamp', 'movements', 'end', 'run_state', 'activity_count', 'sender_personal_id', 'recipient_personal_id', 'private', 'posts', 'steps_html', 'payment_codes', 'loyalty', 'stakeholders', 'next_activity', 'completed', 'canceled']) {
    assert.ok(key in detail.body, key);
  }
  assert.equal(detail.body.stakeholders.map((s: { roles: string[] }) => s.roles[0]).sort(), ['recipient', 'sender']);
  const carol = await person(server, world);
  assertRefused(await server.client.get(`/t/${id}`, {}, carol.auth), 403, 'not_stakeholder');
  assertRefused(await server.client.get('/t/notanid', {}, bob.auth), 400, 'invalid');
});

test('history: newest first by default, asc, paging with more, appdata filters up to 128 chars', async () => {
  const first = await server.client.get('/wallet/history', { limit: 2 }, alice.auth);
  assert.is(first.status, 200, first.text);
  assert.equal(first.body.results.map((t: { id: string }) => t.id), [sentIds[4], sentIds[3]]);
  assert.is(first.body.more, true);
  const last = await server.client.get('/wallet/history', { limit: 2, offset: 4 }, alice.auth);
  assert.is(last.body.more, false);
  const ascending = await server.client.get('/wallet/history', { order_direction: 'asc', order_column: 'timestamp' }, bob.auth);
  assert.equal(ascending.body.results.map((t: { id: string }) => t.id), sentIds);
  const filtered = await server.client.get('/wallet/history', { 'appdata.shop.kind': 'odd' }, alice.auth);
  assert.equal(filtered.body.results.map((t: { id: string }) => t.id).sort(), [sentIds[1], sentIds[3]].sort());
  const name = 'f';
  assert.is((await server.client.get('/wallet/history', { [`appdata.${name}`]: 'v'.repeat(128 - name.length) }, alice.auth)).status, 200);
  assertRefused(await server.client.get('/wallet/history', { [`appdata.${name}`]: 'v'.repeat(129 - name.length) }, alice.auth), 400, 'invalid');
  assertRefused(await server.client.get('/wallet/history', { limit: 1001 }, alice.auth), 400, 'invalid');
  assertRefused(await server.client.get('/wallet/history', { order_column: 'amount' }, alice.auth), 400, 'invalid');
});

test('history_sync: first batch from 1970, cursor by last_sync_ts and transfer_id, remain, empty batch', async () => {
  const first = await server.client.post('/wallet/history_sync', { sync_ts: '1970-01-01T00:00:00Z', limit: 2, count_remain: true }, { ...bob.auth, form: true });
  assert.is(first.status, 200, first.text);
  assert.is(first.body.results.length, 2);
  assert.is(first.body.more, true);
  assert.is(first.body.remain, 3);
  const seen = first.body.results.map((t: { id: string }) => t.id);
  let cursor = { sync_ts: first.body.last_sync_ts, transfer_id: seen[seen.length - 1] };
  for (;;) {
    const page = await server.client.post('/wallet/history_sync', { ...cursor, limit: 2 }, bob.auth);
    assert.is(page.status, 200, page.text);
    assert.not.ok('remain' in page.body);
    seen.push(...page.body.results.map((t: { id: string }) => t.id));
    if (!page.body.more) break;
    cursor = { sync_ts: page.body.last_sync_ts, transfer_id: page.body.results[page.body.results.length - 1].id };
  }
  assert.equal(seen, sentIds);
  const empty = await server.client.post('/wallet/history_sync', { sync_ts: '2100-01-01T00:00:00Z' }, bob.auth);
  assert.equal(empty.body, { results: [], more: false, first_sync_ts: null, last_sync_ts: null });
  assertRefused(await server.client.post('/wallet/history_sync', { sync_ts: 'yesterday' }, bob.auth), 400, 'invalid');
  assertRefused(await server.client.post('/wallet/history_sync', { sync_ts: '1970-01-01T00:00:00Z', limit: 1001 }, bob.auth), 400, 'invalid');
});

test("history_sync's remain: exact within the bound of the end, Postgres's estimate above it, never within the bound", async () => {
  const order = await server.engine.sql<{ sync_ts: Date; transfer_id: string }[]>`
    select updated_at as sync_ts, id as transfer_id from transfers where (sender_sees and sender_id = ${bob.id}) or (recipient_sees and recipient_id = ${bob.id})
    union all select sync_ts, transfer_id from transfer_views where profile_id = ${bob.id}
    order by sync_ts, transfer_id`;
  assert.is(order.length, 5);
  // Bob sees 5 transfers: after the first, 4 remain (counted); after the fourth, 1.
  assert.is(await countSyncAfter(server.engine.sql, bob.id, order[0].sync_ts, order[0].transfer_id, syncRemainExactMax), 4);
  assert.is(await countSyncAfter(server.engine.sql, bob.id, order[3].sync_ts, order[3].transfer_id, 1), 1);
  // With a bound of 1, after the first or second view more than 1 remain: an estimate, never within the bound, never below what was counted.
  for (const index of [0, 1]) {
    const estimated = await countSyncAfter(server.engine.sql, bob.id, order[index].sync_ts, order[index].transfer_id, 1);
    assert.ok(Number.isInteger(estimated) && estimated >= 2, `estimate ${estimated} after view ${index + 1}`);
  }
});

test('a change moves the transfer to the end of sync for every stakeholder', async () => {
  const cafe = await shop(server, world, { supportPaycode: true });
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${cafe.id}`, amounts: '0-USD-2.00' }, alice.auth);
  const before = await server.client.post('/wallet/history_sync', { sync_ts: '1970-01-01T00:00:00Z' }, cafe.auth);
  server.clock.advance(5000);
  await server.client.post(`/t/${sent.body.transfer.id}/retract`, { reason: 'other' }, alice.auth);
  const after = await server.client.post('/wallet/history_sync', { sync_ts: before.body.last_sync_ts, transfer_id: sent.body.transfer.id }, cafe.auth);
  assert.is(after.body.results.length, 1);
  assert.is(after.body.results[0].canceled, true);
  assert.ok(after.body.last_sync_ts > before.body.last_sync_ts);
});

test('retract: reasons per initiator, manage_sent required, completed transfers cannot be retracted', async () => {
  const cafe = await shop(server, world, { supportPaycode: true });
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${cafe.id}`, amounts: '0-USD-2.00' }, alice.auth);
  const id = sent.body.transfer.id;
  assert.is((await server.client.post(`/t/${id}/retract`, {}, alice.auth)).body.invalid.reason, 'is required');
  assert.is((await server.client.post(`/t/${id}/retract`, { reason: 'canceled' }, alice.auth)).body.invalid.reason !== undefined, true);
  assertRefused(await server.client.post(`/t/${id}/retract`, { reason: 'sender_unable' }, alice.auth), 400, 'invalid');
  assertRefused(await server.client.post(`/t/${id}/retract`, { reason: 'other' }, cafe.auth), 403, 'not_initiator');
  const limited = await person(server, world, { permissions: ['send_cash', 'view_history'] });
  await issue(server, limited.id, '1.00');
  const limitedSend = await server.client.post('/wallet/send', { recipient_uid: `service:${cafe.id}`, amounts: '0-USD-1.00' }, limited.auth);
  const noScope = await server.client.post(`/t/${limitedSend.body.transfer.id}/retract`, { reason: 'other' }, limited.auth);
  assert.is(noScope.status, 403);
  assert.is(noScope.body.error, 'insufficient_scope');
  const ok = await server.client.post(`/t/${id}/retract`, { reason: 'recipient_unable' }, { ...alice.auth, form: true });
  assert.is(ok.status, 200, ok.text);
  assert.is(ok.body.transfer.reason, 'recipient_unable');
  assert.is(ok.body.transfer.run_state, 'ended');
  const done = await server.client.post(`/t/${sentIds[0]}/retract`, { reason: 'other' }, alice.auth);
  assert.is(done.status, 400);
  assert.is(done.body.error, 'cannot_retract');
});

test('accept, refuse and resend: only the invited recipient or the sender, only while waiting', async () => {
  const hashesBefore = argonHashesInsideCommands();
  const sent = await server.client.post('/wallet/send', { recipient_uid: 'email:later@example.com', amounts: '0-USD-1.00' }, alice.auth);
  assert.is(sent.status, 200, sent.text);
  const id = sent.body.transfer.id;
  const invited = await server.engine.sql`select id from invitations where ext_id = ${id}`;
  assert.is(invited.length, 1, 'the send invited the recipient');
  // The invitation's code is hashed before the send's command.
  assert.is(argonHashesInsideCommands(), hashesBefore);
  assertRefused(await server.client.post(`/t/${id}/accept`, {}, bob.auth), 403, 'not_recipient');
  assertRefused(await server.client.post(`/t/${id}/refuse`, {}, bob.auth), 403, 'not_recipient');
  assertRefused(await server.client.post(`/t/${id}/resend`, {}, bob.auth), 403, 'not_stakeholder');
  await server.engine.services.profiles.addConfirmedUid(server.engine.sql, bob.id, 'email:later@example.com');
  const refused = await server.client.post(`/t/${id}/refuse`, {}, bob.auth);
  assert.is(refused.status, 200, refused.text);
  assert.equal([refused.body.transfer.canceled, refused.body.transfer.reason], [true, 'refused']);
  assert.is((await server.client.post(`/t/${id}/accept`, {}, bob.auth)).body.error, 'not_waiting');
  assert.is((await server.client.post(`/t/${id}/resend`, {}, alice.auth)).body.error, 'not_waiting');
  assert.is((await server.client.post(`/t/${sentIds[0]}/accept`, {}, bob.auth)).body.error, 'not_waiting', 'a completed transfer is not waiting');
});

test.run();
