// Proves that real clients of the service work unchanged: their exact request shapes (nulls for unused fields, a doubled slash, form and JSON, the attempt-secret and Bearer header forms) replayed as raw HTTP, with every field they read asserted.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { createAuthnApp, must, revealedCode, type AuthnApp } from './authn-support.ts';
import { issue, person, type LedgerWorld } from './ledger-api-support.ts';
import { tradeAcceptExpireSecondsDefault } from '../engine/limits.ts';
import { captureEmails, type SentEmails } from './support/invitation-codes.ts';

let server: TestServer;
let world: LedgerWorld;
let walletApp: AuthnApp;

let emails: SentEmails;
test.before(async () => {
  ({ server, world } = await startLedgerServer());
  emails = captureEmails(server);
  walletApp = await createAuthnApp(server, { name: 'Gift card wallet backend' });
});
test.after(async () => server.close());

/** The wallet backend's raw request: fetch with its own headers and body, nothing from the test client. */
async function raw(method: string, path: string, options: { json?: unknown; form?: Record<string, string>; authorization?: string } = {}) {
  const headers: Record<string, string> = {};
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  if (options.authorization) headers.authorization = options.authorization;
  const response = await fetch(`${server.client.baseUrl.replace(/\/$/, '')}${path}`, { method, headers, body });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, body: json, text };
}

const basic = (app: AuthnApp) => `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`;

test('closed-loop sign-up and recover as the wallet backend sends them: nulls for unused fields and a doubled slash', async () => {
  // A.3: signup-closed with Basic auth; the backend always sends the captcha field, null when it has none.
  const start = await raw('POST', '/aa/signup-closed', {
    json: { device_uuid: '2f1c7a9e-5b7d-5b8e-9d4e-1f0a3c6b7e21', login: 'gift-buyer@example.com', client_id: walletApp.clientId, 'g-recaptcha-response': null },
    authorization: basic(walletApp),
  });
  assert.is(start.status, 200, start.text);
  assert.ok(start.body.attempt_path.endsWith('/'));
  assert.is(typeof start.body.secret, 'string');
  assert.is(typeof start.body.factor_id, 'string');
  assert.is(start.body.code_length, 9);
  const secretHeader = `service secret="${start.body.secret}"`;
  // The backend builds attempt_path + '/auth-uid': a doubled slash.
  const proven = await raw('POST', `${start.body.attempt_path}/auth-uid`, {
    json: { factor_id: start.body.factor_id, code: revealedCode(start as never), 'g-recaptcha-response': null },
    authorization: secretHeader,
  });
  assert.is(proven.status, 200, proven.text);
  assert.is(proven.body.completed_mfa, true);
  assert.is(proven.body.profile_id, null);
  const named = await raw('POST', `${start.body.attempt_path}/set-signup-data`, { json: { first_name: 'Gift', last_name: 'Buyer', password: null }, authorization: secretHeader });
  assert.is(named.status, 200, named.text);
  assert.is(named.body.signup.name_checked, true);
  const finished = await raw('POST', `${start.body.attempt_path}/signup-finish`, { json: { agreed: true, 'g-recaptcha-response': null }, authorization: secretHeader });
  assert.is(finished.status, 200, finished.text);
  assert.match(finished.body.profile_id, /^\d{10}$/);
  assert.is(finished.body.token.token_type, 'bearer');
  assert.ok(finished.body.token.expires_in > 0);

  // A.4: recover on another device.
  const signin = await raw('POST', '/aa/signin-closed', { json: { login: 'gift-buyer@example.com', device_uuid: 'other-device', 'g-recaptcha-response': null }, authorization: basic(walletApp) });
  assert.is(signin.status, 200, signin.text);
  assert.is(signin.body.completed_mfa, false);
  assert.ok(Object.keys(signin.body.unauthenticated).some((key) => key.startsWith('email:')));
  const done = await raw('POST', `${signin.body.attempt_path}/auth-uid`, {
    json: { factor_id: signin.body.factor_id, code: revealedCode(signin as never), 'g-recaptcha-response': null },
    authorization: `service secret="${signin.body.secret}"`,
  });
  assert.is(done.status, 200, done.text);
  assert.is(done.body.completed_mfa, true);
  assert.is(done.body.profile_id, finished.body.profile_id);
});

test('null counts as absent in JSON bodies of sends and queries, and in appdata', async () => {
  const alice = await person(server, world);
  const bob = await person(server, world);
  await issue(server, alice.id, '5.00');
  const sent = await raw('POST', '/wallet/send', {
    json: {
      recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00', sender_uid: null, serial_numbers: null, message: null, message_subject: null, message_body: null,
      notify_via: null, require_recipient_email: null, private: null, accepted_policy: null, non_payment: null, dedup_id: null, 'appdata.giftapp.note': null, version: null,
    },
    authorization: `Bearer ${alice.token}`,
  });
  assert.is(sent.status, 200, sent.text);
  assert.is(sent.body.transfer.completed, true);
  assert.is(sent.body.transfer['appdata.giftapp.note'], undefined);
  // A required field sent as null is still missing.
  const missing = await raw('POST', '/wallet/send', { json: { recipient_uid: null, amounts: '0-USD-1.00' }, authorization: `Bearer ${alice.token}` });
  assert.is(missing.status, 400);
  assert.is(missing.body.error, 'invalid');
  assert.is(missing.body.invalid.recipient_uid, 'is required');
});

test('a doubled slash never reaches the query string, and collapses anywhere in the path', async () => {
  const alice = await person(server, world);
  const answer = await raw('GET', `//wallet//info?access_token=${encodeURIComponent(alice.token)}`);
  assert.is(answer.status, 200, answer.text);
  assert.is(answer.body.profile.id, alice.id);
  const history = await raw('GET', `/wallet/history?appdata.a=x//y&access_token=${encodeURIComponent(alice.token)}`);
  assert.is(history.status, 200, history.text);
});

test('every transfer carries sender_info and recipient_info; a waiting invitation names the invited address', async () => {
  const alice = await person(server, world);
  await issue(server, alice.id, '5.00');
  const invited = await raw('POST', '/wallet/send', { form: { recipient_uid: 'email:new.friend@example.com', amounts: '0-USD-2.00' }, authorization: `Bearer ${alice.token}` });
  assert.is(invited.status, 200, invited.text);
  assert.is(invited.body.transfer.recipient_info.title, 'new.friend@example.com');
  assert.is(invited.body.transfer.recipient_info.is_individual, true);
  assert.is(invited.body.transfer.recipient_info.original, 'new.friend@example.com');
  assert.is(invited.body.transfer.sender_info.is_individual, true);
  const history = await raw('GET', '/wallet/history', { authorization: `Bearer ${alice.token}` });
  assert.is(history.status, 200, history.text);
  for (const transfer of history.body.results) {
    assert.is(typeof transfer.recipient_info.title, 'string', JSON.stringify(transfer));
    assert.is(typeof transfer.recipient_info.is_individual, 'boolean');
    assert.is(typeof transfer.sender_info.title, 'string');
  }
  const invitation = history.body.results.find((transfer: any) => transfer.id === invited.body.transfer.id);
  assert.is(invitation.recipient_info.title, 'new.friend@example.com');
  const synced = await raw('POST', '/wallet/history_sync', { form: { sync_ts: '1970-01-01T00:00:00Z', count_remain: 'true' }, authorization: `Bearer ${alice.token}` });
  assert.is(synced.status, 200, synced.text);
  assert.ok(synced.body.results.every((transfer: any) => transfer.recipient_info && typeof transfer.recipient_info.is_individual === 'boolean'));
  const phoneInvite = await raw('POST', '/wallet/send', { form: { recipient_uid: 'phone:+15555550142', amounts: '0-USD-1.00' }, authorization: `Bearer ${alice.token}` });
  assert.is(phoneInvite.status, 200, phoneInvite.text);
  assert.is(phoneInvite.body.transfer.recipient_info.is_individual, true);
  assert.is(phoneInvite.body.transfer.recipient_info.uid_type, 'phone');
  assert.match(phoneInvite.body.transfer.recipient_info.title, /555/);
});

test('a /p/token token asked with permissions [] manages its user: add-uid, add-uid-confirm and change-name', async () => {
  const app = await server.engine.services.apps.create({ name: 'Partner server', permissions: ['create_profile', 'get_profile', 'control_profile'], redirectUris: [], site: 'default', isPublic: false, implicitGrant: false });
  const auth = basic({ clientId: app.clientId, clientSecret: app.clientSecret } as AuthnApp);
  const added = await raw('POST', '/p/add-individual', { json: { first_name: 'Kim', last_name: 'Park', agreed_terms_and_privacy: true }, authorization: auth });
  assert.is(added.status, 200, added.text);
  const token = await raw('POST', '/p/token', { json: { uid: `service:${added.body.id}`, concurrent: true, permissions: [], device_uuid: null, device_name: null }, authorization: auth });
  assert.is(token.status, 200, token.text);
  assert.ok(token.body.scope.split(' ').includes('change_settings'), token.body.scope);
  const bearer = `Bearer ${token.body.access_token}`;
  const addUid = await raw('POST', '/wallet/add-uid', { json: { login: 'kim.park@example.com', uid_type: 'email' }, authorization: bearer });
  assert.is(addUid.status, 200, addUid.text);
  assert.ok(addUid.body.attempt_id && addUid.body.secret && addUid.body.code_length);
  const code = revealedCode(addUid as never);
  const confirmed = await raw('POST', '/wallet/add-uid-confirm', { json: { attempt_id: addUid.body.attempt_id, secret: addUid.body.secret, code, replace_uid: null, 'g-recaptcha-response': null }, authorization: bearer });
  assert.is(confirmed.status, 200, confirmed.text);
  const renamed = await raw('POST', '/wallet/change-name', { json: { first_name: 'Kimberly', last_name: 'Park' }, authorization: bearer });
  assert.is(renamed.status, 200, renamed.text);
  const me = must(await server.client.get('/me', undefined, { auth: { bearer: token.body.access_token } }));
  assert.is(me.body.first_name, 'Kimberly');
});

test('POST /wallet/accept-code takes an invitation code typed in any case, with or without dashes, once', async () => {
  const alice = await person(server, world);
  const kim = await person(server, world);
  await issue(server, alice.id, '5.00');
  const invited = await raw('POST', '/wallet/send', { form: { recipient_uid: 'email:code.holder@example.com', amounts: '0-USD-3.00', invitation_type: 'code_shared' }, authorization: `Bearer ${alice.token}` });
  assert.is(invited.status, 200, invited.text);
  const code = await emails.codeSentTo('code.holder@example.com');
  const wrong = await raw('POST', '/wallet/accept-code', { json: { code: 'ZZZZ-ZZZZ' }, authorization: `Bearer ${kim.token}` });
  assert.is(wrong.status, 400, wrong.text);
  assert.is(wrong.body.error, 'invalid');
  const own = await raw('POST', '/wallet/accept-code', { json: { code }, authorization: `Bearer ${alice.token}` });
  assert.is(own.status, 400, own.text);
  const accepted = await raw('POST', '/wallet/accept-code', { json: { code: code.toLowerCase().replace(/-/g, ' ') }, authorization: `Bearer ${kim.token}` });
  assert.is(accepted.status, 200, accepted.text);
  assert.is(accepted.body.transfer.id, invited.body.transfer.id);
  assert.is(accepted.body.transfer.completed, true);
  assert.is(accepted.body.transfer.recipient_id, kim.id);
  assert.equal(accepted.body.profile.holdings, [{ loop_id: '0', currency: 'USD', amount: '3.00', expiring: [] }]);
  const again = await raw('POST', '/wallet/accept-code', { json: { code }, authorization: `Bearer ${kim.token}` });
  assert.is(again.status, 400, again.text);
  const audit = await server.client.get('/admin/ledger/audit', {}, { auth: { operator: true } });
  assert.is(audit.body.ok, true, JSON.stringify(audit.body.problems));
});

test('FerlySite: a code_shared send shows its invitation_code in the send answer and GET /t/<id>, of the length asked', async () => {
  const alice = await person(server, world);
  await issue(server, alice.id, '5.00');
  for (const length of [6, 10]) {
    const address = `shared.${length}@example.com`;
    const sent = await raw('POST', '/wallet/send', {
      form: { recipient_uid: `email:${address}`, amounts: '0-USD-1.00', invitation_type: 'code_shared', invitation_code_length: String(length), invitation_expire_days: '30' },
      authorization: `Bearer ${alice.token}`,
    });
    assert.is(sent.status, 200, sent.text);
    const code: string = sent.body.transfer.invitation_code;
    assert.is(typeof code, 'string', sent.text);
    assert.is(code.replace(/-/g, '').length, length);
    assert.is(code, await emails.codeSentTo(address));
    const read = await raw('GET', `/t/${sent.body.transfer.id}`, { authorization: `Bearer ${alice.token}` });
    assert.is(read.status, 200, read.text);
    assert.is(read.body.invitation_code, code);
  }
  // A link invitation's code stays secret: only the invited address receives it.
  const link = await raw('POST', '/wallet/send', { form: { recipient_uid: 'email:link.only@example.com', amounts: '0-USD-1.00', invitation_type: 'link' }, authorization: `Bearer ${alice.token}` });
  assert.is(link.status, 200, link.text);
  assert.is(link.body.transfer.invitation_code, undefined);
});

test('FerlySite: accept-trade with the accepting business as its own settler; accept_expire_seconds 0 is the default deadline', async () => {
  const permissions = ['send_cash', 'manage_sent', 'manage_received', 'apply_design', 'view_history', 'view_wallet'];
  const buyer = await person(server, world, { permissions });
  const business = await person(server, world, { permissions });
  await issue(server, buyer.id, '5.00', 'USD');
  await issue(server, business.id, '4.00', 'EUR');
  const offered = await raw('POST', '/wallet/trade', {
    json: { recipient_uid: `service:${business.id}`, amounts: [{ loop_id: '0', currency: 'USD', amount: '2.00' }], expect_amounts: [{ loop_id: '0', currency: 'EUR', amount: '1.50' }], accept_expire_seconds: 0 },
    authorization: `Bearer ${buyer.token}`,
  });
  assert.is(offered.status, 200, offered.text);
  const trade = offered.body.transfer;
  const deadline = trade.alarms.find((alarm: { name: string }) => alarm.name === 'alarm.expire_trade');
  assert.is(Date.parse(deadline.timestamp) - Date.parse(trade.start), tradeAcceptExpireSecondsDefault * 1000);
  const accepted = await raw('POST', `/t/${trade.id}/accept-trade`, { json: { settler_uid: `service:${business.id}`, distribution_plan_ids: {} }, authorization: `Bearer ${business.token}` });
  assert.is(accepted.status, 200, accepted.text);
  assert.is(accepted.body.transfer.completed, true);
  const audit = await server.client.get('/admin/ledger/audit', {}, { auth: { operator: true } });
  assert.is(audit.body.ok, true, JSON.stringify(audit.body.problems));
});

test('Wingshare: /me answers display_name and photo50, aliases of title and image48', async () => {
  const kim = await person(server, world);
  const me = await raw('GET', '/me', { authorization: `Bearer ${kim.token}` });
  assert.is(me.status, 200, me.text);
  assert.is(me.body.display_name, me.body.title);
  assert.ok(me.body.display_name.length > 0);
  assert.ok('photo50' in me.body);
  assert.is(me.body.photo50, me.body.image48);
});

test.run();
