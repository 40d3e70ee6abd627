// Proves every field rule of the direct-authentication calls at its boundary (n passes, n+1
// fails) and the error codes they answer: InvalidRequest with a field map, 401, 410.
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

let counter = 0;
const login = () => `limit${++counter}@example.com`;

async function expectInvalid(answer: { status: number; body: any; text: string }, field: string): Promise<void> {
  assert.is(answer.status, 400, answer.text);
  assert.is(answer.body.error, 'invalid', answer.text);
  assert.ok(answer.body.invalid?.[field], `${field} in ${answer.text}`);
}

test('start calls: device_uuid up to 36 characters of 0-9 a-z A-Z _ -', async () => {
  const { client } = server;
  must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'a'.repeat(36), login: login() }));
  await expectInvalid(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'a'.repeat(37), login: login() }), 'device_uuid');
  await expectInvalid(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'abc.def', login: login() }), 'device_uuid');
  await expectInvalid(await client.post('/aa/signup', { client_id: app.clientId, login: login() }), 'device_uuid');
});

test('start calls: required and refused fields', async () => {
  const { client } = server;
  const base = { client_id: app.clientId, device_uuid: 'dev-1' };
  await expectInvalid(await client.post('/aa/signup', { ...base }), 'login');
  await expectInvalid(await client.post('/aa/signup', { device_uuid: 'dev-1', login: login() }), 'client_id');
  await expectInvalid(await client.post('/aa/signup', { ...base, client_id: '9999999999', login: login() }), 'client_id');
  await expectInvalid(await client.post('/aa/signup', { ...base, login: 'not a login!' }), 'login');
  await expectInvalid(await client.post('/aa/signup', { ...base, login: 'username_only' }), 'login');
  await expectInvalid(await client.post('/aa/signup', { ...base, login: login(), password: 'secret secret' }), 'password');
  await expectInvalid(await client.post('/aa/signin', { ...base, login: login() }), 'password');
  await expectInvalid(await client.post('/aa/signup', { ...base, login: login(), countries: ['us'] }), 'countries.0');
  await expectInvalid(await client.post('/aa/signup', { ...base, login: login(), color: 'blue' }), 'color');
  await expectInvalid(await client.post('/aa/signup', { ...base, login: login(), version: '2' }), 'version');
  must(await client.post('/aa/signup', { ...base, login: login(), version: '1', flow_subtype: 'x', countries: ['GB'], 'g-recaptcha-response': 'ignored' }));
  must(await client.post('/aa/signup', { ...base, login: '020 7946 0000', countries: ['GB'] }));
  // Forms are accepted as well as JSON.
  must(await client.post('/aa/signup', { ...base, login: login() }, { form: true }));
  // __error_ok__ turns the 400 into a 200 with the same body.
  const errorOk = await client.post('/aa/signup', { ...base, login: 'not a login!', __error_ok__: '1' });
  assert.is(errorOk.status, 200);
  assert.is(errorOk.body.error, 'invalid');
});

test('set-signup-data: names up to 50 with the name rules; password 8 to 100', async () => {
  const { client } = server;
  const start = must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'dev-2', login: login() }));
  const auth = { attemptSecret: start.body.secret };
  const call = (body: Record<string, unknown>) => client.post(`${start.body.attempt_path}set-signup-data`, body, { auth });
  await expectInvalid(await call({ first_name: 'A'.repeat(51), last_name: 'Lee' }), 'first_name');
  await expectInvalid(await call({ first_name: 'Pat', last_name: 'L'.repeat(51) }), 'last_name');
  await expectInvalid(await call({ first_name: 'Pat' }), 'last_name');
  await expectInvalid(await call({ first_name: '-Pat', last_name: 'Lee' }), 'first_name');
  await expectInvalid(await call({ first_name: 'Pat', last_name: 'Acme Inc' }), 'last_name');
  await expectInvalid(await call({ first_name: 'Pat\u2fffx', last_name: 'Lee' }), 'first_name');
  must(await call({ first_name: 'A'.repeat(50), last_name: 'L'.repeat(50) }));
  await expectInvalid(await call({ password: 'x'.repeat(7) }), 'password');
  await expectInvalid(await call({ password: 'x'.repeat(101) }), 'password');
  must(await call({ password: 'x'.repeat(8) }));
  must(await call({ password: 'x'.repeat(100) }));
});

test('attempt calls: required fields, 401 without the secret, 410 for unknown attempts', async () => {
  const { client } = server;
  const start = must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'dev-3', login: login() }));
  const auth = { attemptSecret: start.body.secret };
  const path = start.body.attempt_path;
  await expectInvalid(await client.post(`${path}auth-uid`, { code: '1' }, { auth }), 'factor_id');
  await expectInvalid(await client.post(`${path}auth-uid`, { factor_id: start.body.factor_id }, { auth }), 'code');
  await expectInvalid(await client.post(`${path}auth-password`, {}, { auth }), 'password');
  await expectInvalid(await client.post(`${path}add-factor`, {}, { auth }), 'login');
  await expectInvalid(await client.post(`${path}signup-finish`, {}, { auth }), 'agreed');
  await expectInvalid(await client.post(`${path}reset-password`, {}, { auth }), 'password');
  await expectInvalid(await client.post(`${path}set-trust`, {}, { auth }), 'trust30');
  // A signup attempt has no password to check and no password to reset.
  await expectInvalid(await client.post(`${path}auth-password`, { password: 'whatever1' }, { auth }), 'password');
  await expectInvalid(await client.post(`${path}reset-password`, { password: 'whatever1' }, { auth }), 'request');
  assertRefused(await client.post(`${path}set-trust`, { trust30: false }), 401, 'invalid_token');
  assertRefused(await client.post(`${path}set-trust`, { trust30: false }, { auth: { attemptSecret: 'x' } }), 401, 'invalid_token');
  assertRefused(await client.post('/aa/0000000000/set-trust', { trust30: false }, { auth }), 410, 'unavailable');
  // set-trust answers an empty object.
  assert.equal(must(await client.post(`${path}set-trust`, { trust30: false }, { auth })).body, {});
  // A code for a factor other than the pending one counts as wrong.
  const wrongFactor = await client.post(`${path}auth-uid`, { factor_id: 'ffffffff', code: revealedCode(start) }, { auth });
  assert.ok(wrongFactor.body.invalid.code);
});

test.run();
