// Proves open-loop sign-up end to end over HTTP in sandbox: email code, phone code, name,
// password, agreement, following the supplement's decision tree at every step.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { createAuthnApp, must, revealedCode, type AuthnApp } from './authn-support.ts';

let server: TestServer;
let app: AuthnApp;
test.before(async () => {
  server = await startTestServer();
  app = await createAuthnApp(server);
});
test.after(async () => server.close());

test('sign up with email then phone reaches a token and a profile', async () => {
  const { client } = server;
  const start = must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'phone-1', login: 'Pat@Example.com' }));
  assert.match(start.body.attempt_path, /^\/aa\/\d{10}\/$/);
  assert.is(start.body.secret.length, 27);
  assert.match(start.body.factor_id, /^[0-9a-f]{8}$/);
  assert.is(start.body.code_length, 9);
  assert.equal(start.body.unauthenticated, { 'email:pat@example.com': { original: 'Pat@Example.com', country: null } });
  assert.is(start.body.completed_mfa, false);
  assert.is(start.body.profile_id, null);
  assert.equal(start.body.signup, { first_name: '', last_name: '', has_password: false, name_checked: false });
  const auth = { attemptSecret: start.body.secret };
  const path = start.body.attempt_path;

  const first = must(await client.post(`${path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth }));
  // Tree 1.1: no factor_id and no profile_id -> add-factor.
  assert.is(first.body.completed_mfa, false);
  assert.is(first.body.factor_id, undefined);
  assert.is(first.body.profile_id, null);
  assert.equal(first.body.authenticated['email:pat@example.com'], { original: 'Pat@Example.com', country: null, strong: true, used_password: false });

  const sameType = await client.post(`${path}add-factor`, { login: 'other@example.com' }, { auth });
  assertRefused(sameType, 400, 'invalid');
  assert.ok(sameType.body.invalid.login);

  const added = must(await client.post(`${path}add-factor`, { login: '(555) 555-0100', countries: ['US'] }, { auth }));
  assert.is(added.body.code_length, 6);
  assert.equal(added.body.unauthenticated, { 'phone:+15555550100': { original: '(555) 555-0100', country: 'US' } });
  const second = must(await client.post(`${path}auth-uid`, { factor_id: added.body.factor_id, code: revealedCode(added) }, { auth }));
  assert.is(second.body.completed_mfa, true);
  assert.is(second.body.signup.name_checked, false);

  const early = await client.post(`${path}signup-finish`, { agreed: true }, { auth });
  assertRefused(early, 400, 'invalid');
  assert.ok(early.body.invalid.first_name);

  const named = must(await client.post(`${path}set-signup-data`, { first_name: 'Pat', last_name: 'Lee' }, { auth }));
  assert.equal(named.body.signup, { first_name: 'Pat', last_name: 'Lee', has_password: false, name_checked: true });
  const noPassword = await client.post(`${path}signup-finish`, { agreed: true }, { auth });
  assertRefused(noPassword, 400, 'invalid');
  assert.ok(noPassword.body.invalid.password);
  const withPassword = must(await client.post(`${path}set-signup-data`, { password: 'correct horse' }, { auth }));
  assert.is(withPassword.body.signup.has_password, true);

  const notAgreed = await client.post(`${path}signup-finish`, { agreed: false }, { auth });
  assertRefused(notAgreed, 400, 'invalid');
  const finished = must(await client.post(`${path}signup-finish`, { agreed: true }, { auth }));
  assert.is(finished.body.completed_mfa, true);
  assert.match(finished.body.profile_id, /^\d{10}$/);
  assert.is(finished.body.profile_title, 'Pat Lee');
  assert.is(finished.body.profile.id, finished.body.profile_id);
  assert.is(finished.body.token.token_type, 'bearer');
  assert.ok(finished.body.token.scope.includes('send_cash'));

  const info = must(await client.get('/wallet/info', {}, { auth: { bearer: finished.body.token.access_token } }));
  const uids = info.body.profile.confirmed_uids.map((entry: { uid: string }) => entry.uid).sort();
  assert.equal(uids, ['email:pat@example.com', 'phone:+15555550100']);

  // A finished attempt is gone.
  const again = await client.post(`${path}signup-finish`, { agreed: true }, { auth });
  assertRefused(again, 410, 'unavailable');
});

test('a sign-up started with a login that already has a wallet answers as for a new login, then signs in after the code (issue 25 finding 9)', async () => {
  const { client } = server;
  const start = must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'phone-2', login: 'pat@example.com' }));
  const fresh = must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'phone-2', login: 'nobody-yet@example.com' }));
  const shape = (body: any) => ({ ...body, attempt_path: 'x', secret: 'x', factor_id: 'x', unauthenticated: Object.keys(body.unauthenticated), revealed_codes: body.revealed_codes?.length });
  assert.equal(shape(start.body), { ...shape(fresh.body), unauthenticated: ['email:pat@example.com'] }, 'a registered and a new login answer alike');
  assert.is(start.body.profile_id, null);
  assert.is(start.body.profile_title, null);
  const auth = { attemptSecret: start.body.secret };
  // The code proves the login: now the wallet shows, and tree 1.3 leads to the password.
  const proven = must(await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth }));
  assert.match(proven.body.profile_id, /^\d{10}$/);
  assert.is(proven.body.factor_id, undefined);
  assert.is(proven.body.signup, null);
  const wrong = await client.post(`${start.body.attempt_path}auth-password`, { password: 'not the password' }, { auth });
  assertRefused(wrong, 400, 'invalid');
  const done = must(await client.post(`${start.body.attempt_path}auth-password`, { password: 'correct horse' }, { auth }));
  assert.is(done.body.completed_mfa, true);
  assert.is(done.body.token.token_type, 'bearer');
});

test('attempt calls need the attempt secret', async () => {
  const { client } = server;
  const start = must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'phone-3', login: 'sam@example.com' }));
  const missing = await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: '1' });
  assertRefused(missing, 401, 'invalid_token');
  const wrong = await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: '1' }, { auth: { attemptSecret: 'not-the-secret' } });
  assertRefused(wrong, 401, 'invalid_token');
  const unknown = await client.post('/aa/1234567890/auth-uid', { factor_id: 'x', code: '1' }, { auth: { attemptSecret: 'whatever' } });
  assertRefused(unknown, 410, 'unavailable');
});

test.run();
