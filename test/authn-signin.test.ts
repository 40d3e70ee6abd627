// Proves sign-in with a password and one code, sign-in from a trusted device without a code,
// password reset, and closed-loop sign-in and sign-up with one factor (Basic app auth). Each test
// signs up its own person, so each runs alone: npm test -- authn-signin -t "<name>".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { argonHashesInsideCommands, argonVerificationsInsideCommands } from '../engine/passwords.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { createAuthnApp, must, revealedCode, signUp, type AuthnApp, type SignedUp } from './authn-support.ts';

let server: TestServer;
let app: AuthnApp;
const mobile = ['view_wallet', 'send_cash', 'receive_cash', 'change_settings', 'mobile_device'];

test.before(async () => {
  server = await startTestServer();
  app = await createAuthnApp(server);
});
test.after(async () => server.close());

/** A new person with the password 'robin password': a test trusts its devices or resets its password without touching another's. */
const signUpRobin = (): Promise<SignedUp> => signUp(server.client, app, { password: 'robin password' });

test('sign in with the password and one code sent to the phone', async () => {
  const person = await signUpRobin();
  const { client } = server;
  const start = must(await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'laptop-1', login: person.email, password: 'robin password' }));
  assert.is(start.body.profile_id, person.profileId);
  assert.is(start.body.profile_title, 'Pat Lee');
  assert.is(start.body.completed_mfa, false);
  assert.equal(start.body.authenticated[`email:${person.email}`], { original: person.email, country: null, strong: true, used_password: true });
  assert.is(start.body.code_length, 6);
  assert.equal(Object.keys(start.body.unauthenticated), [`phone:${person.phone}`]);
  const done = must(await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth: { attemptSecret: start.body.secret } }));
  assert.is(done.body.completed_mfa, true);
  assert.is(done.body.profile_id, person.profileId);
  assert.is(done.body.token.token_type, 'bearer');
  assert.is(done.body.profile.id, person.profileId);
  must(await client.get('/wallet/info', {}, { auth: { bearer: done.body.token.access_token } }));
});

test('a wrong password or an unknown login answers the same 400', async () => {
  const person = await signUpRobin();
  const { client } = server;
  const wrong = await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'laptop-1', login: person.email, password: 'nope nope' });
  const unknown = await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'laptop-1', login: 'nobody@example.com', password: 'nope nope' });
  assertRefused(wrong, 400, 'invalid');
  assertRefused(unknown, 400, 'invalid');
  assert.equal(wrong.body, unknown.body);
});

test('a device trusted for 30 days stands in for the code', async () => {
  const person = await signUpRobin();
  const { client } = server;
  const start = must(await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'my-phone', login: person.phone, password: 'robin password', permissions: mobile, trust30: true }));
  assert.is(start.body.trust30, true);
  const done = must(await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth: { attemptSecret: start.body.secret } }));
  assert.is(done.body.completed_mfa, true);
  assert.ok(done.body.token.scope.includes('mobile_device'));

  const trusted = must(await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'my-phone', login: person.email, password: 'robin password', permissions: mobile }));
  assert.is(trusted.body.completed_mfa, true);
  assert.is(trusted.body.factor_id, undefined);
  assert.is(trusted.body.token.token_type, 'bearer');

  // Another device still needs a code; after 30 days the trusted one does too.
  const other = must(await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'other-phone', login: person.email, password: 'robin password' }));
  assert.is(other.body.completed_mfa, false);
  server.clock.advance(30 * 24 * 60 * 60 * 1000 + 1000);
  const later = must(await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'my-phone', login: person.email, password: 'robin password', permissions: mobile }));
  assert.is(later.body.completed_mfa, false);
  assert.ok(later.body.factor_id);
});

test('trust30 is refused for a device the app does not declare a personal mobile device', async () => {
  const person = await signUpRobin();
  const answer = await server.client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'kiosk', login: person.email, password: 'robin password', trust30: true });
  assertRefused(answer, 400, 'invalid');
  assert.ok(answer.body.invalid.trust30);
});

test('set-trust after completion trusts the device at once', async () => {
  const person = await signUpRobin();
  const { client } = server;
  const start = must(await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'tablet', login: person.email, password: 'robin password', permissions: mobile }));
  const auth = { attemptSecret: start.body.secret };
  must(await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth }));
  const trust = must(await client.post(`${start.body.attempt_path}set-trust`, { trust30: true }, { auth }));
  assert.equal(trust.body, {});
  const again = must(await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'tablet', login: person.email, password: 'robin password', permissions: mobile }));
  assert.is(again.body.completed_mfa, true);
});

test('reset a forgotten password with codes to the email and the phone', async () => {
  const person = await signUpRobin();
  const { client } = server;
  const start = must(await client.post('/aa/reset', { client_id: app.clientId, device_uuid: 'laptop-2', login: person.email }));
  assert.is(start.body.code_length, 9);
  const auth = { attemptSecret: start.body.secret };
  const path = start.body.attempt_path;
  const withPassword = await client.post('/aa/reset', { client_id: app.clientId, device_uuid: 'laptop-2', login: person.email, password: 'x' });
  assertRefused(withPassword, 400, 'invalid');
  const first = must(await client.post(`${path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth }));
  assert.is(first.body.completed_mfa, false);
  assert.equal(Object.keys(first.body.unauthenticated), [`phone:${person.phone}`]);
  const early = await client.post(`${path}reset-password`, { password: 'new password 1' }, { auth });
  assertRefused(early, 400, 'invalid');
  const second = must(await client.post(`${path}auth-uid`, { factor_id: first.body.factor_id, code: revealedCode(first) }, { auth }));
  assert.is(second.body.completed_mfa, true);
  const short = await client.post(`${path}reset-password`, { password: 'seven77' }, { auth });
  assertRefused(short, 400, 'invalid');
  const reset = must(await client.post(`${path}reset-password`, { password: 'new password 1' }, { auth }));
  assert.is(reset.body.profile_id, person.profileId);
  assert.is(reset.body.token.token_type, 'bearer');
  const old = await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'laptop-2', login: person.email, password: 'robin password' });
  assertRefused(old, 400, 'invalid');
  must(await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'laptop-2', login: person.email, password: 'new password 1' }));
});

test('a reset for a login without a wallet looks the same but has no code', async () => {
  const start = must(await server.client.post('/aa/reset', { client_id: app.clientId, device_uuid: 'laptop-3', login: 'ghost@example.com' }));
  assert.ok(start.body.factor_id);
  assert.is(start.body.revealed_codes, undefined);
});

test('closed-loop sign-up and sign-in need one factor and Basic app authentication', async () => {
  const { client } = server;
  const noBasic = await client.post('/aa/signup-closed', { device_uuid: 'partner-1', login: 'kim@example.com' });
  assertRefused(noBasic, 401, 'invalid_token');
  const start = must(await client.post('/aa/signup-closed', { device_uuid: 'partner-1', login: 'kim@example.com' }, { auth: app.basic }));
  assert.is(start.body.code_length, 9);
  const auth = { attemptSecret: start.body.secret };
  const proven = must(await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth }));
  assert.is(proven.body.completed_mfa, true);
  assert.is(proven.body.profile_id, null);
  must(await client.post(`${start.body.attempt_path}set-signup-data`, { first_name: 'Kim', last_name: 'Park' }, { auth }));
  // Closed-loop sign-up may skip the password (decision tree 2.2).
  const finished = must(await client.post(`${start.body.attempt_path}signup-finish`, { agreed: true }, { auth }));
  assert.ok(!finished.body.token.scope.includes('send_to_account'));

  const signin = must(await client.post('/aa/signin-closed', { login: 'kim@example.com', device_uuid: 'partner-2' }, { auth: app.basic }));
  assert.is(signin.body.completed_mfa, false);
  assert.equal(Object.keys(signin.body.unauthenticated), ['email:kim@example.com']);
  const done = must(await client.post(`${signin.body.attempt_path}auth-uid`, { factor_id: signin.body.factor_id, code: revealedCode(signin) }, { auth: { attemptSecret: signin.body.secret } }));
  assert.is(done.body.completed_mfa, true);
  assert.is(done.body.profile_id, finished.body.profile_id);
  assert.is(done.body.token.token_type, 'bearer');
});

test('codes are made and hashed, and passwords and codes verified, before the command: argon2 never runs while a sign-up, a sign-in or a code check holds its locks', async () => {
  const { client } = server;
  const before = argonVerificationsInsideCommands();
  const hashesBefore = argonHashesInsideCommands();
  const person = await signUp(client, app, { email: 'ahead@example.com', phone: '+15555550177', password: 'ahead password' });
  const start = must(await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'ahead-1', login: person.email, password: person.password }));
  const auth = { attemptSecret: start.body.secret };
  const wrong = await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: '000000' }, { auth });
  assertRefused(wrong, 400, 'invalid');
  const done = must(await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth }));
  assert.is(done.body.completed_mfa, true);
  assertRefused(await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'ahead-1', login: person.email, password: 'not the password' }), 400, 'invalid');
  // A reset sends a code to the login, then (after it) one to the other type the wallet has.
  const reset = must(await client.post('/aa/reset', { client_id: app.clientId, device_uuid: 'ahead-2', login: person.email }));
  const resetAuth = { attemptSecret: reset.body.secret };
  const second = must(await client.post(`${reset.body.attempt_path}auth-uid`, { factor_id: reset.body.factor_id, code: revealedCode(reset) }, { auth: resetAuth }));
  assert.equal(Object.keys(second.body.unauthenticated), [`phone:${person.phone}`]);
  must(await client.post(`${reset.body.attempt_path}auth-uid`, { factor_id: second.body.factor_id, code: revealedCode(second) }, { auth: resetAuth }));
  assert.is(argonVerificationsInsideCommands(), before);
  assert.is(argonHashesInsideCommands(), hashesBefore);
});

test.run();
