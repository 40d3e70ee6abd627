// Proves invitations end to end: invite, read, accept through an attempt with the invitation
// code, finish-invite (idempotent), reinvite, expire, failures leading to 410, and field limits.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { invitationExpireAfterFailures } from '../engine/limits.ts';
import { argonHashesInsideCommands, argonVerificationsInsideCommands } from '../engine/passwords.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { createAuthnApp, must, revealedCode, signUp, type AuthnApp } from './authn-support.ts';

let server: TestServer;
let app: AuthnApp;
let otherApp: AuthnApp;
test.before(async () => {
  server = await startTestServer();
  app = await createAuthnApp(server);
  otherApp = await createAuthnApp(server, { name: 'Other app' });
});
test.after(async () => server.close());

const base = { first_name: 'Alex', last_name: 'Doe', url_template: 'https://app.example/join?i=INVITE_ID&c=CODE', sender_name: 'Pat Lee' };

async function invite(fields: Record<string, unknown>) {
  return server.client.post('/ai/invite', { ...base, ...fields }, { auth: app.basic });
}

test('invite, read and accept with the invitation code; finish-invite is repeatable', async () => {
  const { client } = server;
  const [verificationsBefore, hashesBefore] = [argonVerificationsInsideCommands(), argonHashesInsideCommands()];
  const sent = must(await invite({ email: 'alex@gmail.com', phone: '+15555550133', ext_id: 'crm-42', org_name: 'Acme' }));
  assert.match(sent.body.id, /^\d{10}$/);
  assert.is(sent.body.revealed_codes.length, 2);
  const code = revealedCode(sent, 'email:alex@gmail.com');
  assert.match(code, /^[0-9A-Z]{8}$/);
  const read = must(await client.get(`/ai/${sent.body.id}`));
  assert.equal(read.body, {
    id: sent.body.id, first_name: 'Alex', last_name: 'Doe', sender_name: 'Pat Lee', sender_url: null, sender_image_url: null,
    org_name: 'Acme', org_url: null, org_image_url: null, failures: 0, email: 'alex@gmail.com', is_personal: true,
  });

  const start = must(await client.post('/aa/accept', { client_id: app.clientId, device_uuid: 'inv-1', login: 'alex@gmail.com', invite_id: sent.body.id }));
  assert.is(start.body.invite_id, sent.body.id);
  assert.is(start.body.code_length, 8);
  assert.is(start.body.revealed_codes, undefined);
  assert.equal(start.body.signup, { first_name: 'Alex', last_name: 'Doe', has_password: false, name_checked: false });
  const auth = { attemptSecret: start.body.secret };
  const path = start.body.attempt_path;
  // Dashes and lower case are ignored.
  const typed = `${code.slice(0, 4)}-${code.slice(4)}`.toLowerCase();
  const proven = must(await client.post(`${path}auth-uid`, { factor_id: start.body.factor_id, code: typed }, { auth }));
  assert.is(proven.body.completed_mfa, false);
  const added = must(await client.post(`${path}add-factor`, { login: '+15555550134' }, { auth }));
  must(await client.post(`${path}auth-uid`, { factor_id: added.body.factor_id, code: revealedCode(added) }, { auth }));
  must(await client.post(`${path}set-signup-data`, { first_name: 'Alex', last_name: 'Doe' }, { auth }));
  must(await client.post(`${path}set-signup-data`, { password: 'alex password' }, { auth }));
  const finished = must(await client.post(`${path}signup-finish`, { agreed: true }, { auth }));
  // The invitation's code and the added factor's were hashed, and each code checked, before the commands.
  assert.equal([argonVerificationsInsideCommands(), argonHashesInsideCommands()], [verificationsBefore, hashesBefore]);
  const bearer = { bearer: finished.body.token.access_token };

  const first = must(await client.get('/wallet/finish-invite', {}, { auth: bearer }));
  assert.is(first.body.invite_id, sent.body.id);
  assert.is(first.body.ext_id, 'crm-42');
  assert.is(first.body.profile.id, finished.body.profile_id);
  const second = must(await client.get('/wallet/finish-invite', {}, { auth: bearer }));
  assert.equal(second.body, first.body);
  assertRefused(await client.get(`/ai/${sent.body.id}`), 410, 'unavailable');
});

test('finish-invite for a wallet without an invitation gives nulls', async () => {
  const person = await signUp(server.client, app);
  const answer = must(await server.client.get('/wallet/finish-invite', {}, { auth: { bearer: person.token } }));
  assert.is(answer.body.invite_id, null);
  assert.is(answer.body.ext_id, null);
});

test('wrong invitation codes count as failures and then the invitation is gone', async () => {
  const { client } = server;
  const sent = must(await invite({ email: 'sales@acme-corp.com' }));
  const read = must(await client.get(`/ai/${sent.body.id}`));
  assert.is(read.body.is_personal, false);
  const start = must(await client.post('/aa/accept', { client_id: app.clientId, device_uuid: 'inv-2', login: 'sales@acme-corp.com', invite_id: sent.body.id }));
  const auth = { attemptSecret: start.body.secret };
  for (let failure = 1; failure < invitationExpireAfterFailures; failure++) {
    const answer = await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: 'WRONG123', 'g-recaptcha-response': (await client.get('/aa/recaptcha_invisible_sitekey')).body.captcha_bypass }, { auth });
    assertRefused(answer, 400, 'invalid');
    assert.is(must(await client.get(`/ai/${sent.body.id}`)).body.failures, failure);
  }
  const bypass = (await client.get('/aa/recaptcha_invisible_sitekey')).body.captcha_bypass;
  await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: 'WRONG123', 'g-recaptcha-response': bypass }, { auth });
  assertRefused(await client.get(`/ai/${sent.body.id}`), 410, 'unavailable');
  const again = await client.post('/aa/accept', { client_id: app.clientId, device_uuid: 'inv-2', login: 'sales@acme-corp.com', invite_id: sent.body.id });
  assertRefused(again, 410, 'unavailable');
});

test('reinvite sends a new code; only the sending app may reinvite or expire', async () => {
  const { client } = server;
  const sent = must(await invite({ phone: '(555) 555-0144' }));
  const oldCode = revealedCode(sent);
  const denied = await client.post(`/ai/${sent.body.id}/reinvite`, {}, { auth: otherApp.basic });
  assertRefused(denied, 403, 'app_denied');
  const resent = must(await client.post(`/ai/${sent.body.id}/reinvite`, {}, { auth: app.basic }));
  assert.is(resent.body.id, sent.body.id);
  assert.equal(resent.body.revealed_codes.map((line: string) => line.split(' => ')[1]), ['phone:+15555550144']);
  assert.is.not(revealedCode(resent), oldCode);
  const toEmail = must(await client.post(`/ai/${sent.body.id}/reinvite`, { email: 'alex2@example.com' }, { auth: app.basic }));
  assert.equal(toEmail.body.revealed_codes.map((line: string) => line.split(' => ')[1]), ['email:alex2@example.com']);
  assertRefused(await client.post(`/ai/${sent.body.id}/expire`, {}, { auth: otherApp.basic }), 403, 'app_denied');
  must(await client.post(`/ai/${sent.body.id}/expire`, {}, { auth: app.basic }));
  assertRefused(await client.get(`/ai/${sent.body.id}`), 410, 'unavailable');
  assertRefused(await client.post(`/ai/${sent.body.id}/reinvite`, {}, { auth: app.basic }), 410, 'unavailable');
  assertRefused(await client.post(`/ai/${sent.body.id}/expire`, {}, { auth: app.basic }), 410, 'unavailable');
});

test('an accept attempt takes the invitation\'s current code: after a reinvite the old one is wrong', async () => {
  const { client } = server;
  const sent = must(await invite({ email: 'renewed@example.com' }));
  const start = must(await client.post('/aa/accept', { client_id: app.clientId, device_uuid: 'inv-4', login: 'renewed@example.com', invite_id: sent.body.id }));
  const resent = must(await client.post(`/ai/${sent.body.id}/reinvite`, {}, { auth: app.basic }));
  const auth = { attemptSecret: start.body.secret };
  assertRefused(await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(sent) }, { auth }), 400, 'invalid');
  assert.is(must(await client.get(`/ai/${sent.body.id}`)).body.failures, 1);
  const proven = must(await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(resent) }, { auth }));
  assert.equal(Object.keys(proven.body.authenticated), ['email:renewed@example.com']);
});

test('an invitation expires after its lifetime', async () => {
  const sent = must(await invite({ email: 'late@example.com' }));
  server.clock.advance(30 * 24 * 60 * 60 * 1000 + 1000);
  await server.engine.sweeper.runOnce();
  assertRefused(await server.client.get(`/ai/${sent.body.id}`), 410, 'unavailable');
});

test('invite field rules and limits at their boundaries', async () => {
  assertRefused(await server.client.post('/ai/invite', { ...base, email: 'a@example.com' }), 401, 'invalid_token');
  const cases: [Record<string, unknown>, number, string?][] = [
    [{ email: 'a@example.com', first_name: 'A'.repeat(50) }, 200],
    [{ email: 'a@example.com', first_name: 'A'.repeat(51) }, 400, 'first_name'],
    [{ email: 'a@example.com', last_name: '1Alex' }, 400, 'last_name'],
    [{ email: 'a@example.com', first_name: 'Al\u2003ex' }, 400, 'first_name'],
    [{ email: 'a@example.com', last_name: 'Widgets LLC' }, 400, 'last_name'],
    [{ email: 'a@example.com', first_name: 'Émile' }, 200],
    [{}, 400, 'email'],
    // 100 characters in all, with DNS labels of at most 63 (an address must be deliverable).
    [{ email: `a@${'b'.repeat(60)}.${'c'.repeat(33)}.com` }, 200],
    [{ email: `a@${'b'.repeat(60)}.${'c'.repeat(34)}.com` }, 400, 'email'],
    [{ phone: `+1555555${'0'.repeat(4)}${' '.repeat(88)}` }, 200],
    [{ phone: `+1555555${'0'.repeat(4)}${' '.repeat(89)}` }, 400, 'phone'],
    [{ email: 'a@example.com', ext_id: 'x'.repeat(1024) }, 200],
    [{ email: 'a@example.com', ext_id: 'x'.repeat(1025) }, 400, 'ext_id'],
    [{ email: 'a@example.com', url_template: undefined }, 400, 'url_template'],
    [{ email: 'a@example.com', sender_name: undefined }, 400, 'sender_name'],
    [{ email: 'not an email' }, 400, 'email'],
    [{ email: 'a@example.com', surprise: 1 }, 400, 'surprise'],
  ];
  for (const [fields, status, field] of cases) {
    const answer = await invite(fields);
    assert.is(answer.status, status, `${JSON.stringify(fields).slice(0, 80)} -> ${answer.text}`);
    if (field) assert.ok(answer.body.invalid?.[field], `${field} in ${answer.text}`);
  }
});

test('accept needs invite_id, refuses a password and answers 410 for an unknown invitation', async () => {
  const { client } = server;
  const noInvite = await client.post('/aa/accept', { client_id: app.clientId, device_uuid: 'inv-3', login: 'x@example.com' });
  assert.ok(noInvite.body.invalid.invite_id);
  const password = await client.post('/aa/accept', { client_id: app.clientId, device_uuid: 'inv-3', login: 'x@example.com', invite_id: '1234567890', password: 'secret secret' });
  assert.ok(password.body.invalid.password);
  const unknown = await client.post('/aa/accept', { client_id: app.clientId, device_uuid: 'inv-3', login: 'x@example.com', invite_id: '1234567890' });
  assertRefused(unknown, 410, 'unavailable');
  assertRefused(await client.get('/ai/1234567890'), 410, 'unavailable');
});

test.run();
