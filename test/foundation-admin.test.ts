// Proves the operator admin API (apps, features, flags, wallets, managers, profile reads) and the CLI that drives it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCliCaptured, type CliRun } from './support/cli.ts';
import { startTestServer, testOperatorKey, type TestServer, assertRefused } from './support/http.ts';
import { addBusiness, addIndividual, countRows, createApp, type TestApp } from './foundation-helpers.ts';

let server: TestServer;
let app: TestApp;
const operator = { auth: { operator: true } } as const;

test.before(async () => {
  server = await startTestServer();
  app = await createApp(server);
});
test.after(async () => server.close());

/** Runs the CLI in-process against the test server, capturing what it prints. */
async function cli(...args: string[]): Promise<CliRun> {
  return cliWith({ CASHLOOP_OPERATOR_KEY: testOperatorKey }, args);
}

async function cliWith(env: Record<string, string>, args: string[]): Promise<CliRun> {
  return runCliCaptured(server.baseUrl, args, env);
}

test('admin calls need the operator key', async () => {
  assertRefused(await server.client.post('/admin/apps', { name: 'x' }), 401, 'invalid_token');
  const wrong = await server.client.post('/admin/apps', { name: 'x' }, { auth: { bearer: 'not-the-operator-key-at-all' } });
  assert.is(wrong.status, 401);
  assert.is(wrong.body.error, 'invalid_token');
});

test('POST /admin/apps creates an app whose secret is stored only as a hash; GET shows it without the secret', async () => {
  const answer = await server.client.post(
    '/admin/apps',
    { name: 'Shop', permissions: ['create_profile'], redirect_uris: ['https://shop.example/cb'], site: 'shop', public: true, implicit_grant: true },
    operator,
  );
  assert.is(answer.status, 200);
  assert.match(answer.body.client_id, /^\d{10}$/);
  assert.match(answer.body.client_secret, /^[A-Za-z0-9_-]{40,}$/);
  const rows = await server.engine.sql<{ secret_hash: string }[]>`select secret_hash from apps where client_id = ${answer.body.client_id}`;
  assert.is.not(rows[0].secret_hash, answer.body.client_secret);
  const shown = await server.client.get(`/admin/apps/${answer.body.client_id}`, undefined, operator);
  assert.equal(shown.body, {
    client_id: answer.body.client_id, name: 'Shop', site: 'shop', permissions: ['create_profile'],
    redirect_uris: ['https://shop.example/cb'], public: true, implicit_grant: true, user_permissions: [],
  });
  assertRefused(await server.client.get('/admin/apps/1000000000', undefined, operator), 404, 'not_found');
  const check = await server.engine.services.apps.authenticate(answer.body.client_id, answer.body.client_secret);
  assert.ok(check.ok && check.app.isPublic);
});

test('POST /admin/apps validates name (100), permissions and redirect URIs and creates nothing when invalid', async () => {
  const before = await countRows(server, 'apps');
  for (const body of [{ name: 'n'.repeat(101) }, { name: '' }, { name: 'x', permissions: ['send_cash'] }, { name: 'x', redirect_uris: ['not a url'] }, { name: 'x', extra: 1 }]) {
    const answer = await server.client.post('/admin/apps', body, operator);
    assert.is(answer.status, 400, JSON.stringify(body));
  }
  assert.is(await countRows(server, 'apps'), before);
  assert.is((await server.client.post('/admin/apps', { name: 'n'.repeat(100) }, operator)).status, 200);
});

test('features: add, list, remove; unknown features and profiles refused', async () => {
  const id = await addIndividual(server, app);
  const added = await server.client.post(`/admin/profiles/${id}/features`, { feature: 'pull_payment' }, operator);
  assert.equal(added.body, { features: ['pull_payment'] });
  assert.is(await server.engine.services.profiles.hasFeature(server.engine.sql, id, 'pull_payment'), true);
  assertRefused(await server.client.post(`/admin/profiles/${id}/features`, { feature: 'flying' }, operator), 400, 'invalid');
  assertRefused(await server.client.post('/admin/profiles/1000000000/features', { feature: 'bill' }, operator), 404, 'not_found');
  const removed = await server.client.request('DELETE', `/admin/profiles/${id}/features/pull_payment`, undefined, operator);
  assert.equal(removed.body, { features: [] });
});

test('flags: support_paycode, preferred_currency and username show on the public profile; a taken username is refused', async () => {
  const id = await addIndividual(server, app);
  const other = await addIndividual(server, app);
  const answer = await server.client.request('PATCH', `/admin/profiles/${id}`, { support_paycode: true, preferred_currency: 'USD', username: 'CornerCafe' }, operator);
  assert.is(answer.status, 200);
  assert.is(answer.body.support_paycode, true);
  assert.is(answer.body.preferred_currency, 'USD');
  assert.is(answer.body.username, 'cornercafe');
  const taken = await server.client.request('PATCH', `/admin/profiles/${other}`, { username: 'cornercafe' }, operator);
  assertRefused(taken, 400, 'invalid');
  assert.ok('username' in taken.body.invalid);
  assertRefused(await server.client.request('PATCH', `/admin/profiles/${id}`, { preferred_currency: 'usd' }, operator), 400, 'invalid');
  const cleared = await server.client.request('PATCH', `/admin/profiles/${id}`, { username: '', preferred_currency: '' }, operator);
  assert.is(cleared.body.username, null);
  assert.is(cleared.body.preferred_currency, '');
  assert.is(cleared.body.support_paycode, true);
});

test('GET /admin/profiles/<id> shows detail, site, features, managers and wallet state; wallets move through their states', async () => {
  const managerId = await addIndividual(server, app);
  const businessId = await addBusiness(server, app, managerId);
  const second = await addIndividual(server, app);
  const added = await server.client.post(`/admin/profiles/${businessId}/managers`, { manager_uid: `service:${second}` }, operator);
  assert.equal([...added.body.managers].sort(), [managerId, second].sort());
  assertRefused(await server.client.post(`/admin/profiles/${businessId}/managers`, { manager_uid: businessId }, operator), 400, 'invalid');
  const shown = await server.client.get(`/admin/profiles/${businessId}`, undefined, operator);
  assert.is(shown.body.profile.id, businessId);
  assert.is(shown.body.site, 'default');
  assert.equal([...shown.body.managers].sort(), [managerId, second].sort());
  assert.is(shown.body.wallet_state, 'active');
  assertRefused(await server.client.post(`/admin/profiles/${businessId}/wallet`, { action: 'unsuspend' }, operator), 400, 'invalid');
  assert.equal((await server.client.post(`/admin/profiles/${businessId}/wallet`, { action: 'suspend' }, operator)).body, { wallet_state: 'suspended' });
  assert.equal((await server.client.post(`/admin/profiles/${businessId}/wallet`, { action: 'unsuspend' }, operator)).body, { wallet_state: 'active' });
  assert.equal((await server.client.post(`/admin/profiles/${businessId}/wallet`, { action: 'close' }, operator)).body, { wallet_state: 'closed' });
  assertRefused(await server.client.post('/admin/profiles/1000000000/wallet', { action: 'close' }, operator), 404, 'not_found');
});

test('CLI: app create --json prints client_id and client_secret that authenticate', async () => {
  const result = await cli('app', 'create', '--name', 'CLI app', '--permissions', 'create_profile,control_profile', '--redirect-uri', 'https://a.example/cb', '--json');
  assert.is(result.code, 0, result.stderr);
  const created = JSON.parse(result.stdout);
  assert.equal(created.permissions, ['create_profile', 'control_profile']);
  assert.equal(created.redirect_uris, ['https://a.example/cb']);
  const check = await server.engine.services.apps.authenticate(created.client_id, created.client_secret);
  assert.ok(check.ok);
  const plain = await cli('app', 'create', '--name', 'Plain');
  assert.match(plain.stdout, /client_id\s+\d{10}/);
});

test('CLI: profile feature add, profile set and profile show', async () => {
  const id = await addIndividual(server, app);
  assert.is((await cli('profile', 'feature', 'add', id, 'design_gl')).code, 0);
  assert.is((await cli('profile', 'set', id, '--support-paycode', 'true', '--preferred-currency', 'USD')).code, 0);
  const shown = JSON.parse((await cli('--json', 'profile', 'show', id)).stdout);
  assert.equal(shown.features, ['design_gl']);
  assert.is(shown.profile.support_paycode, true);
  assert.is(shown.profile.preferred_currency, 'USD');
});

test('CLI: errors are one line on stderr with exit code 1; missing flags without a terminal do not prompt', async () => {
  const missing = await cli('profile', 'show', '1000000000');
  assert.is(missing.code, 1);
  assert.is(missing.stderr.trim(), 'cashloop: <profile> 1000000000: no profile has this UID. A UID is one of: service:<id> or the bare 10-digit id; email:<address> or the address; phone:<number> or +<E.164 number>; username:<name>.');
  const noName = await cli('app', 'create');
  assert.is(noName.code, 1);
  assert.match(noName.stderr, /--name/);
  const badKey = await cliWith({}, ['--operator-key', 'x'.repeat(20), 'app', 'show', app.clientId]);
  assert.is(badKey.code, 1);
  assert.is(badKey.stderr.trim(), 'cashloop: Wrong operator key.');
});

test.run();
