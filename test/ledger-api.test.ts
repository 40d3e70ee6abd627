// Proves the wallet API over HTTP: presend, send (with every limit at n and n+1), receive with a
// payment code, the admin issue and audit calls, and that rejected input changes nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type TestServer, assertRefused } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { issue, person, shop, usd, type LedgerWorld } from './ledger-api-support.ts';
import { assertAudit, ledgerFingerprint } from './ledger-support.ts';

let server: TestServer;
let world: LedgerWorld;

test.before(async () => {
  ({ server, world } = await startLedgerServer());
});
test.after(async () => server.close());

test('issue through the admin API, send, and see both wallets in ProfileDetail', async () => {
  const alice = await person(server, world);
  const bob = await person(server, world);
  await issue(server, alice.id, '100.00');
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-25.50', message: 'lunch', 'appdata.shop.order': 'A-17' }, { ...alice.auth, form: true });
  assert.is(sent.status, 200, sent.text);
  assert.is(sent.body.transfer.completed, true);
  assert.is(sent.body.transfer.workflow_type, 'profile_to_profile');
  assert.is(sent.body.transfer['appdata.shop.order'], 'A-17');
  assert.is(sent.body.transfer.movements[0].number, 1);
  assert.is(sent.body.transfer.message, 'lunch');
  assert.equal(sent.body.profile.holdings, [{ loop_id: '0', currency: 'USD', amount: '74.50', expiring: [] }]);
  assert.is(await usd(server, bob.id), '25.50');
  const audit = await server.client.get('/admin/ledger/audit', {}, { auth: { operator: true } });
  assert.is(audit.status, 200);
  assert.is(audit.body.ok, true, JSON.stringify(audit.body.problems));
});

test('presend shows every field of the spec table', async () => {
  const alice = await person(server, world);
  const cafe = await shop(server, world, { supportPaycode: true });
  await issue(server, alice.id, '10.00');
  const answer = await server.client.get('/wallet/presend', { recipient_uid: `service:${cafe.id}` }, alice.auth);
  assert.is(answer.status, 200, answer.text);
  for (const field of ['must_accept_policy', 'loops', 'any_accepted', 'force_private', 'support_paycode', 'message_split', 'recipient_info', 'sender_can_send_direct', 'recipient_can_send_direct']) {
    assert.ok(field in answer.body, field);
  }
  assert.is(answer.body.support_paycode, true);
  assert.is(answer.body.loops[0].amount, '10.00');
  assert.is(answer.body.loops[0].max_sendable, '10.00');
  assert.is(answer.body.recipient_info.is_individual, false);
  const serial = await server.engine.sql`select serial from notes where holder_kind = 'wallet' and holder_id = ${alice.id}`;
  const chosen = await server.client.get('/wallet/presend', { recipient_uid: `service:${cafe.id}`, serial_numbers: String(serial[0].serial) }, alice.auth);
  assert.is(chosen.body.loops[0].amount, '10.00');
  const none = await server.client.get('/wallet/presend', { recipient_uid: `service:${cafe.id}`, serial_numbers: '1' }, alice.auth);
  assert.equal(none.body.loops, []);
  const missing = await server.client.get('/wallet/presend', { recipient_uid: 'username:nobody-here' }, alice.auth);
  assertRefused(missing, 400, 'invalid');
  assert.is(missing.body.send_errors[0].code, 'recipient_not_found');
});

test('send errors: insufficient funds, bad amounts, unknown recipient; none changes anything', async () => {
  const alice = await person(server, world);
  const bob = await person(server, world);
  await issue(server, alice.id, '5.00');
  const before = await ledgerFingerprint(server.engine);
  const cases: [Record<string, unknown>, string][] = [
    [{ recipient_uid: `service:${bob.id}`, amounts: '0-USD-5.01' }, 'insufficient_funds'],
    [{ recipient_uid: `service:${bob.id}`, amounts: 'any-USD-5.01' }, 'insufficient_funds'],
    [{ recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.001' }, 'invalid_amounts'],
    [{ recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00 0-EUR-1.00' }, 'mixed_currency'],
    [{ recipient_uid: `service:${bob.id}`, amounts: 'USD-1.00' }, 'invalid_amounts'],
    [{ recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00', serial_numbers: '999999999' }, 'serial_not_held'],
    [{ recipient_uid: 'service:1234567890', amounts: '0-USD-1.00' }, 'recipient_not_found'],
    [{ recipient_uid: `service:${alice.id}`, amounts: '0-USD-1.00' }, 'recipient_is_sender'],
  ];
  for (const [body, code] of cases) {
    const answer = await server.client.post('/wallet/send', body, alice.auth);
    assert.is(answer.status, 400, `${code}: ${answer.text}`);
    assert.is(answer.body.error, 'invalid');
    assert.is(answer.body.send_errors[0].code, code);
    assert.ok('field_name' in answer.body.send_errors[0] && 'info' in answer.body.send_errors[0]);
  }
  const errorOk = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-9.00', __error_ok__: '1' }, alice.auth);
  assert.is(errorOk.status, 200);
  assert.is(errorOk.body.send_errors[0].code, 'insufficient_funds');
  assert.is(await ledgerFingerprint(server.engine), before);
});

test('limits: appdata 10,000, dedup_id 128, message 10,000, subject 100 (n passes, n+1 fails)', async () => {
  const alice = await person(server, world);
  const bob = await person(server, world);
  await issue(server, alice.id, '10.00');
  const base = { recipient_uid: `service:${bob.id}`, amounts: '0-USD-0.01' };
  const name = 'x';
  const ok = (extra: Record<string, unknown>) => server.client.post('/wallet/send', { ...base, ...extra }, alice.auth);
  assert.is((await ok({ [`appdata.${name}`]: 'v'.repeat(10_000 - name.length) })).status, 200);
  const tooMuch = await ok({ [`appdata.${name}`]: 'v'.repeat(10_001 - name.length) });
  assertRefused(tooMuch, 400, 'invalid');
  assert.is(tooMuch.body.send_errors[0].code, 'appdata_too_long');
  assert.is((await ok({ dedup_id: 'd'.repeat(128) })).status, 200);
  assert.is((await ok({ dedup_id: 'd'.repeat(129) })).body.invalid.dedup_id !== undefined, true);
  assert.is((await ok({ message: 'm'.repeat(10_000) })).status, 200);
  assertRefused(await ok({ message: 'm'.repeat(10_001) }), 400, 'invalid');
  assert.is((await ok({ message_subject: 's'.repeat(100), message_body: 'b' })).status, 200);
  assertRefused(await ok({ message_subject: 's'.repeat(101) }), 400, 'invalid');
  assert.is((await ok({ unknown_field: 'x' })).body.invalid.unknown_field, 'is not a field of this call');
});

test('dedup_id: every repeat answers with the same transfer', async () => {
  const alice = await person(server, world);
  const bob = await person(server, world);
  await issue(server, alice.id, '10.00');
  const body = { recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00', dedup_id: 'pay-42' };
  const answers = await Promise.all(Array.from({ length: 8 }, () => server.client.post('/wallet/send', body, alice.auth)));
  assert.ok(answers.every((answer) => answer.status === 200));
  assert.is(new Set(answers.map((answer) => answer.body.transfer.id)).size, 1);
  assert.is(await usd(server, bob.id), '1.00');
});

test('payment codes over HTTP: send waits, receive with total_due/total_tax, codes and errors', async () => {
  const alice = await person(server, world);
  const cafe = await shop(server, world, { supportPaycode: true });
  await issue(server, alice.id, '40.00');
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${cafe.id}`, amounts: 'any-USD-30.00' }, alice.auth);
  assert.is(sent.status, 200, sent.text);
  const transfer = sent.body.transfer;
  assert.is(transfer.next_activity, 'paycode.wait');
  assert.is(transfer.run_state, 'paused');
  assert.is(transfer.recipient_personal_id, null);
  const code = transfer.payment_codes[0].code as string;
  assert.match(code, /^\d{4,}$/);
  assert.is(transfer.payment_codes[0].amount, '30.00');
  const receive = (body: Record<string, unknown>) => server.client.post('/wallet/receive', { currency: 'USD', ...body }, { ...cafe.auth, form: true });
  assert.is((await receive({ paycode: '00000000', amount: '1.00' })).body.error, 'code_not_found');
  assert.is((await receive({ paycode: code, amount: '30.01' })).body.error, 'code_limited');
  assert.is((await receive({ paycode: code, amount: '10.00', total_due: '9.99' })).body.invalid.amount !== undefined, true);
  assertRefused(await receive({ paycode: code, amount: '10.00', total_due: '12.00', total_tax: '12.01' }), 400, 'invalid');
  const other = await person(server, world);
  const stranger = await server.client.post('/wallet/receive', { paycode: code, currency: 'USD', amount: '1.00' }, other.auth);
  assert.is(stranger.body.error, 'code_not_found', 'a code only works for its recipient');
  const received = await receive({ paycode: code, amount: '12.00', total_due: '12.00', total_tax: '1.00' });
  assert.is(received.status, 200, received.text);
  assert.is(received.body.amount_received, '12.00');
  assert.is(received.body.transfer.completed, true);
  assert.is(received.body.sender.id, alice.id);
  assert.is(await usd(server, cafe.id), '12.00');
  assert.is(await usd(server, alice.id), '28.00');
  server.clock.advance(11 * 60 * 1000);
  assert.is((await receive({ paycode: code, amount: '12.00' })).body.error, 'code_already_used');
  await assertAudit(server.engine);
});

test('change_paycode_expiration: 10 years pass, more fails, not_waiting after receipt; skip sends at once', async () => {
  const alice = await person(server, world);
  const cafe = await shop(server, world, { supportPaycode: true });
  await issue(server, alice.id, '20.00');
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${cafe.id}`, amounts: 'any-USD-5.00' }, alice.auth);
  const id = sent.body.transfer.id as string;
  const code = sent.body.transfer.payment_codes[0].code as string;
  const tenYears = 10 * 365 * 24 * 60 * 60 + 3 * 24 * 60 * 60;
  const change = (seconds: number, paycode = code) => server.client.post(`/t/${id}/change_paycode_expiration`, { paycode, expire_seconds: seconds }, alice.auth);
  const extended = await change(tenYears);
  assert.is(extended.status, 200, extended.text);
  assert.is(new Date(extended.body.transfer.payment_codes[0].expires).getTime(), server.clock.now().getTime() + tenYears * 1000);
  assertRefused(await change(tenYears + 1), 400, 'invalid');
  assertRefused(await change(60, '99999999'), 400, 'invalid');
  const skipped = await server.client.post(`/t/${id}/skip`, {}, alice.auth);
  assert.is(skipped.status, 200, skipped.text);
  assert.is(skipped.body.transfer.completed, true);
  assert.is(await usd(server, cafe.id), '5.00');
  const late = await change(60);
  assert.is(late.status, 400);
  assert.is(late.body.error, 'not_waiting');
  assert.is((await server.client.post(`/t/${id}/skip`, {}, alice.auth)).body.error, 'not_waiting');
});

test('a send to an unknown email waits as an invitation; the owner of that email accepts it', async () => {
  const alice = await person(server, world);
  await issue(server, alice.id, '10.00');
  const sent = await server.client.post('/wallet/send', { recipient_uid: 'email:newcomer@example.com', amounts: '0-USD-3.00' }, alice.auth);
  assert.is(sent.status, 200, sent.text);
  assert.is(sent.body.transfer.next_activity, 'invite.wait');
  assert.is(sent.body.transfer.sent_count, 1);
  assert.is(await usd(server, alice.id), '7.00');
  const invitations = await server.engine.sql`select count(*)::int as count from actors where kind = 'invitation'`;
  assert.ok(invitations[0].count >= 1, 'an invitation was created with the transfer');
  const resent = await server.client.post(`/t/${sent.body.transfer.id}/resend`, {}, alice.auth);
  assert.is(resent.body.transfer.sent_count, 2);
  const bob = await person(server, world);
  const refused = await server.client.post(`/t/${sent.body.transfer.id}/accept`, {}, bob.auth);
  assert.is(refused.status, 403, 'only the owner of the UID may accept');
  await server.engine.services.profiles.addConfirmedUid(server.engine.sql, bob.id, 'email:newcomer@example.com');
  const accepted = await server.client.post(`/t/${sent.body.transfer.id}/accept`, {}, bob.auth);
  assert.is(accepted.status, 200, accepted.text);
  assert.is(accepted.body.transfer.completed, true);
  assert.is(await usd(server, bob.id), '3.00');
  await assertAudit(server.engine);
});

test('require_recipient_email invites a recipient without a confirmed email', async () => {
  const alice = await person(server, world);
  const bob = await person(server, world);
  await issue(server, alice.id, '10.00');
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00', require_recipient_email: true }, alice.auth);
  assert.is(sent.status, 200, sent.text);
  assert.is(sent.body.transfer.next_activity, 'invite.wait');
  const retracted = await server.client.post(`/t/${sent.body.transfer.id}/retract`, { reason: 'never_got_invitation' }, alice.auth);
  assert.is(retracted.status, 200, retracted.text);
  assert.is(retracted.body.transfer.canceled, true);
  assert.is(await usd(server, alice.id), '10.00');
});

test('the operator API rejects bad issuance and needs the operator key', async () => {
  const alice = await person(server, world);
  const operator = { auth: { operator: true as const } };
  assertRefused(await server.client.post('/admin/ledger/issue', { to_uid: `service:${alice.id}`, amount: '1.00', currency: 'USD' }), 401, 'invalid_token');
  assertRefused(await server.client.post('/admin/ledger/issue', { to_uid: `service:${alice.id}`, amount: '0', currency: 'USD' }, operator), 400, 'invalid');
  assertRefused(await server.client.post('/admin/ledger/issue', { to_uid: `service:${alice.id}`, amount: '1.001', currency: 'USD' }, operator), 400, 'invalid');
  assertRefused(await server.client.post('/admin/ledger/issue', { to_uid: 'service:1234567899', amount: '1.00', currency: 'USD' }, operator), 400, 'invalid');
  const notIssuer = await server.client.post('/admin/ledger/issuer', { uid: `service:${alice.id}` }, operator);
  assertRefused(notIssuer, 400, 'invalid');
});

test('receive accepts a soft-expired token; send does not', async () => {
  const alice = await person(server, world);
  await issue(server, alice.id, '10.00');
  const managerId = (await person(server, world)).id;
  const cafeId = (await shop(server, world, { supportPaycode: true })).id;
  const { userToken } = await import('./foundation-helpers.ts');
  const cafeToken = { auth: { bearer: await userToken(server, world.app, cafeId, { personalProfileId: managerId }) } };
  const aliceToken = { auth: { bearer: await userToken(server, world.app, alice.id) } };
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${cafeId}`, amounts: 'any-USD-2.00' }, aliceToken);
  assert.is(sent.status, 200, sent.text);
  server.clock.advance(16 * 60 * 1000);
  const refused = await server.client.post('/wallet/send', { recipient_uid: `service:${cafeId}`, amounts: 'any-USD-1.00' }, aliceToken);
  assertRefused(refused, 401, 'invalid_token');
  assert.is(refused.body.token_error, 'token_expired_soft');
  const received = await server.client.post('/wallet/receive', { paycode: sent.body.transfer.payment_codes[0].code, currency: 'USD', amount: '2.00' }, cafeToken);
  assert.is(received.status, 200, received.text);
});

test('the token of a suspended wallet does not authenticate (401 token_invalid) until it is unsuspended; a closed wallet cannot receive', async () => {
  const alice = await person(server, world);
  const bob = await person(server, world);
  await issue(server, alice.id, '10.00');
  const operator = { auth: { operator: true as const } };
  const before = await ledgerFingerprint(server.engine);
  assert.is((await server.client.post(`/admin/profiles/${alice.id}/wallet`, { action: 'suspend' }, operator)).status, 200);
  const suspended = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00' }, alice.auth);
  assert.is(suspended.status, 401);
  assert.is(suspended.body.error, 'invalid_token');
  const payout = await server.client.post('/wallet/send-dfi', { currency: 'USD', amount: '1.00', fee: '0', recipient_about: { name: 'A' }, recipient_account: { routing_number: '011000015', account_number: '5555' } }, alice.auth);
  assert.is(payout.body.error, 'invalid_token');
  assert.is(await ledgerFingerprint(server.engine), before);
  assert.is((await server.client.post(`/admin/profiles/${alice.id}/wallet`, { action: 'unsuspend' }, operator)).status, 200);
  assert.is((await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00' }, alice.auth)).status, 200);
  assert.is((await server.client.post(`/admin/profiles/${bob.id}/wallet`, { action: 'close' }, operator)).status, 200);
  const closed = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00' }, alice.auth);
  assert.is(closed.body.send_errors[0].code, 'recipient_wallet_closed');
});

test('search: by name, filters, paging with more, geo sort for businesses, limits', async () => {
  const alice = await person(server, world);
  const near = await shop(server, world);
  const far = await shop(server, world);
  const place = async (id: string, latitude: string, longitude: string) => {
    const located = await server.client.request('PUT', `/admin/profiles/${id}/location`, { latitude, longitude }, { auth: { operator: true } });
    assert.is(located.status, 200, located.text);
  };
  await place(near.id, '40.0', '-75.0');
  await place(far.id, '10.0', '10.0');
  const search = (query: Record<string, unknown>) => server.client.get('/wallet/search', query, alice.auth);
  const cafes = await search({ q: 'Corner Cafe', filters: 'business', latitude: '40.1', longitude: '-75.1', limit: '50' });
  assert.is(cafes.status, 200, cafes.text);
  assert.ok(cafes.body.results.every((result: { is_individual: boolean }) => !result.is_individual));
  assert.is(cafes.body.results[0].id, near.id);
  assert.ok(cafes.body.results.findIndex((result: { id: string }) => result.id === far.id) > 0);
  const paged = await search({ q: 'Pat', filters: 'individual exclude_self', limit: '2' });
  assert.is(paged.body.results.length, 2);
  assert.is(paged.body.more, true);
  assert.ok(paged.body.results.every((result: { id: string }) => result.id !== alice.id));
  const exact = await search({ q: `service:${near.id}` });
  assert.is(exact.body.results[0].id, near.id);
  assert.is((await search({ q: 'x'.repeat(1000) })).status, 200);
  assertRefused(await search({ q: 'x'.repeat(1001) }), 400, 'invalid');
  assert.is((await search({ q: 'se:' })).status, 200);
  assertRefused(await search({ q: 'Pat', latitude: '40' }), 400, 'invalid');
  assertRefused(await search({ q: 'Pat', uid: 'email:pat@example.com' }), 400, 'invalid');
  assertRefused(await search({ q: 'Pat', filters: 'everyone' }), 400, 'invalid');
  assertRefused(await search({ q: 'Pat', limit: '101' }), 400, 'invalid');
});

test.run();
