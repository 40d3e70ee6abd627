// Proves apps the operator allows more than the default permissions: /aa/* permissions and the
// authorize endpoint's scope grant what is requested and allowed (never more), the default set is
// unchanged, a token selected for a business keeps its permissions, and the CLI sets and shows them.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultPermissions } from '../engine/tokens/service.ts';
import { must, revealedCode, signUp, type SignedUp } from './authn-support.ts';
import { addBusiness, createApp, type TestApp } from './foundation-helpers.ts';
import { runOperatorCli } from './support/cli.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';

let server: TestServer;
let designApp: { clientId: string; clientSecret: string };
let plainApp: { clientId: string; clientSecret: string };
let accessApp: TestApp;
let person: SignedUp;
let businessId: string;
const redirectUri = 'https://client.example/callback';
const allowed = ['create_design', 'edit_design', 'view_design'];

async function newApp(userPermissions: string[]): Promise<{ clientId: string; clientSecret: string }> {
  const answer = must(await server.client.post('/admin/apps', { name: 'Design studio', redirect_uris: [redirectUri], user_permissions: userPermissions }, { auth: { operator: true } }));
  return { clientId: answer.body.client_id, clientSecret: answer.body.client_secret };
}

let device = 0;
/** Signs in through /aa/signin (password, then the code) and returns the token. */
async function signIn(clientId: string, permissions?: string[]): Promise<{ access_token: string; scope: string }> {
  device += 1;
  const body: Record<string, unknown> = { client_id: clientId, device_uuid: `laptop-${device}`, login: person.email, password: person.password };
  if (permissions) body.permissions = permissions;
  const start = must(await server.client.post('/aa/signin', body));
  const done = must(await server.client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth: { attemptSecret: start.body.secret } }));
  assert.is(done.body.completed_mfa, true);
  return done.body.token;
}

async function call(method: string, path: string, form?: Record<string, string>, cookie?: string | null) {
  const response = await fetch(new URL(path, server.baseUrl), {
    method,
    redirect: 'manual',
    headers: { ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...(cookie ? { cookie } : {}) },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  const setCookie = response.headers.get('set-cookie');
  return { status: response.status, html: await response.text(), location: response.headers.get('location'), cookie: setCookie ? setCookie.split(';')[0] : null };
}

/** Runs the /authorize pages with this scope and exchanges the code; returns the token. */
async function authorize(app: { clientId: string; clientSecret: string }, scope: string): Promise<{ access_token: string; scope: string }> {
  const query = { response_type: 'code', client_id: app.clientId, redirect_uri: redirectUri, scope, state: 's', uuid: `browser-${++device}`, name: 'Studio' };
  const first = await call('GET', `/authorize?${new URLSearchParams(query)}`);
  assert.is(first.status, 200, first.html);
  const flow = /name="flow" value="([^"]+)"/.exec(first.html)![1];
  const signin = await call('POST', '/authorize/signin', { flow, login: person.email, password: person.password }, first.cookie);
  const code = /id="revealed-code">(\d+)</.exec(signin.html)?.[1];
  assert.ok(code, signin.html);
  await call('POST', '/authorize/code', { flow, code: code! }, first.cookie);
  const done = await call('POST', '/authorize/consent', { flow, decision: 'allow' }, first.cookie);
  assert.is(done.status, 302);
  const grant = new URL(done.location!).searchParams.get('code')!;
  const basic = { basic: { clientId: app.clientId, clientSecret: app.clientSecret } };
  return must(await server.client.post('/token', { grant_type: 'authorization_code', code: grant, redirect_uri: redirectUri }, { form: true, auth: basic })).body;
}

test.before(async () => {
  server = await startTestServer();
  designApp = await newApp(allowed);
  plainApp = await newApp([]);
  accessApp = await createApp(server);
  person = await signUp(server.client, { ...designApp, basic: { basic: designApp } }, { email: 'studio@example.com', phone: '+15555550177', password: 'studio password' });
  businessId = await addBusiness(server, accessApp, person.profileId, 'Studio Shop');
});
test.after(async () => server.close());

test('the admin API keeps user_permissions and refuses names that are not user permissions', async () => {
  const shown = must(await server.client.get(`/admin/apps/${designApp.clientId}`, undefined, { auth: { operator: true } }));
  assert.equal(shown.body.user_permissions, allowed);
  const bad = await server.client.post('/admin/apps', { name: 'x', user_permissions: ['create_profile'] }, { auth: { operator: true } });
  assertRefused(bad, 400, 'invalid');
  assert.ok(bad.body.invalid['user_permissions.0'], bad.text);
});

test('/aa/signin: an allowed extra permission is granted, a not-allowed one is left out, nothing asked gives the default set', async () => {
  const asked = ['view_wallet', 'select_profile', 'create_design', 'edit_design', 'manage_design'];
  const studio = await signIn(designApp.clientId, asked);
  assert.is(studio.scope, 'view_wallet select_profile create_design edit_design', 'manage_design is not allowed to this app');
  const created = await server.client.post('/design/create', { title: 'Overlay', currency: 'USD', design_type: 'overlay_design' }, { auth: { bearer: studio.access_token } });
  assert.is(created.status, 200, created.text);

  const plain = await signIn(plainApp.clientId, asked);
  assert.is(plain.scope, 'view_wallet select_profile');
  const refused = await server.client.post('/design/create', { title: 'Overlay', currency: 'USD', design_type: 'overlay_design' }, { auth: { bearer: plain.access_token } });
  assert.is(refused.status, 403);
  assert.is(refused.body.error, 'insufficient_scope');

  assert.equal((await signIn(designApp.clientId)).scope.split(' '), [...defaultPermissions], 'the default stays the send-and-receive set');
  assert.equal((await signIn(designApp.clientId, [])).scope.split(' '), [...defaultPermissions]);
});

test('/token/select/<business> keeps the selecting token\'s permissions', async () => {
  const studio = await signIn(designApp.clientId, ['select_profile', 'view_wallet', 'create_design', 'view_design']);
  const selected = must(await server.client.get(`/token/select/${businessId}`, undefined, { auth: { bearer: studio.access_token } }));
  assert.is(selected.body.scope, studio.scope);
  const listed = await server.client.get('/design', undefined, { auth: { bearer: selected.body.access_token } });
  assert.is(listed.status, 200, listed.text);
});

test('OAuth authorize: scope grants what is requested and allowed; select keeps it', async () => {
  const studio = await authorize(designApp, 'select_profile view_wallet create_design manage_design offline');
  assert.is(studio.scope, 'select_profile view_wallet create_design offline');
  const plain = await authorize(plainApp, 'select_profile view_wallet create_design manage_design');
  assert.is(plain.scope, 'select_profile view_wallet');
  const defaulted = await authorize(designApp, '');
  assert.equal(defaulted.scope.split(' '), [...defaultPermissions]);
  const selected = must(await server.client.get(`/token/select/${businessId}`, undefined, { auth: { bearer: studio.access_token } }));
  assert.is(selected.body.scope, studio.scope);
});

test('CLI: app create --user-permissions, shown by app show', async () => {
  const cli = (...args: string[]) => runOperatorCli(server.baseUrl, args);
  const created = await cli('app', 'create', '--name', 'CLI studio', '--user-permissions', 'create_design, edit_design,view_design', '--json');
  assert.is(created.code, 0, created.stderr);
  const app = JSON.parse(created.stdout);
  assert.equal(app.user_permissions, allowed);
  const shown = await cli('app', 'show', app.client_id);
  assert.match(shown.stdout, /user_permissions\s+create_design, edit_design, view_design/);
  const plain = await cli('app', 'show', plainApp.clientId);
  assert.match(plain.stdout, /user_permissions\s+\(none\)/);
  const bad = await cli('app', 'create', '--name', 'Bad', '--user-permissions', 'take_everything');
  assert.is(bad.code, 1);
  assert.match(bad.stderr, /user_permissions/);
});

test.run();
