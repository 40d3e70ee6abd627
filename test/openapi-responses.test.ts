// The OpenAPI document describes what the routes really answer: a client drives real routes over
// HTTP (sign-up, profiles, tokens, cash, send, history, admin) and checks every answer body against
// its route's declared response schema (the schema the document is written from), and every error
// body against the Error schema. The server's own check (CASHLOOP_CHECK_RESPONSES) is off here, so
// this file proves it independently; the rest of the suite runs with the check on.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { loadConfig } from '../engine/config.ts';
import { HttpError } from '../api/http/errors.ts';
import { checkError, checkResponse } from '../api/http/response-check.ts';
import type { RouteDefinition } from '../api/http/route.ts';
import { errorBody } from '../api/http/schemas.ts';
import { allRoutes } from '../api/routes/index.ts';
import { startTestServer, TestClient, type Answer, type RequestOptions, type TestServer, assertRefused } from './support/http.ts';
import { createAuthnApp, signUp } from './authn-support.ts';
import { addBusiness, addIndividual, createApp, userToken, type TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld, person, shop } from './ledger-api-support.ts';

const routes = allRoutes();

function patternOf(path: string): RegExp {
  return new RegExp(`^${path.replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`);
}

/** The route a request reaches: a static path before one with parameters, as Express orders them here. */
function routeFor(method: string, path: string): RouteDefinition | undefined {
  const candidates = routes.filter((route) => {
    const methods = route.alsoPost && route.method === 'get' ? ['GET', 'POST'] : [route.method.toUpperCase()];
    return methods.includes(method) && patternOf(route.path).test(path);
  });
  return candidates.find((route) => !route.path.includes(':')) ?? candidates[0];
}

const covered = new Set<string>();
const problems: string[] = [];

/** A TestClient that checks every answer against the declaration of the route it reached. */
class CheckingClient extends TestClient {
  override async request<Body = any>(method: string, path: string, body?: Record<string, unknown>, options: RequestOptions = {}): Promise<Answer<Body>> {
    const answer = await super.request<Body>(method, path, body, options);
    const route = routeFor(method, new URL(path, this.baseUrl).pathname);
    if (!route) return answer;
    const name = `${route.method.toUpperCase()} ${route.path}`;
    if (answer.status === 200 && route.response) {
      const parsed = route.response.safeParse(answer.body);
      if (parsed.success) covered.add(name);
      else problems.push(`${name}: ${z.prettifyError(parsed.error)}\n${answer.text.slice(0, 2000)}`);
    } else if (answer.status === 200 || answer.status === 302) {
      const type = answer.headers.get('content-type')?.split(';')[0].trim();
      if (route.rawResponse && (answer.status === 302 ? route.rawResponse.redirect : type && route.rawResponse.contentTypes.includes(type))) covered.add(name);
      else problems.push(`${name}: answered ${answer.status} ${type ?? ''} without a matching declaration`);
    } else if (answer.status >= 400 && answer.headers.get('content-type')?.startsWith('application/json')) {
      const parsed = errorBody.safeParse(answer.body);
      if (!parsed.success) problems.push(`${name} ${answer.status}: error body is not an Error: ${answer.text}`);
    }
    return answer;
  }
}

let server: TestServer;
let client: CheckingClient;
const operator = { auth: { operator: true as const } };

test.before(async () => {
  server = await startTestServer({ env: { CASHLOOP_CHECK_RESPONSES: '0' } });
  client = new CheckingClient(server.baseUrl);
  // Helpers that take the server use its client: make it this checking one.
  (server as { client: TestClient }).client = client;
});
test.after(async () => server.close());

function ok(answer: Answer, status = 200): Answer {
  assert.is(answer.status, status, answer.text);
  return answer;
}

test('the response check is off unless configured', () => {
  assert.is(loadConfig({}).checkResponses, false);
  assert.is(loadConfig({ CASHLOOP_CHECK_RESPONSES: '1' }).checkResponses, true);
  const route = routes.find((candidate) => candidate.path === '/me')!;
  assert.throws(() => checkResponse(route, { id: 'only an id' }), (error: Error) => /GET \/me answered/.test(error.message));
  // Errors too: a status the route does not declare is a mismatch; a declared one passes through.
  const undeclared = checkError(route, 'get', new HttpError(410, { error: 'unavailable', error_description: 'Gone.' })) as HttpError;
  assert.is(undeclared.status, 500);
  assert.match(String(undeclared.body.error_description), /error 410/);
  const declared = new HttpError(401, { error: 'invalid_token', error_description: 'No.', token_error: 'missing_token' });
  assert.is(checkError(route, 'get', declared), declared);
});

test('direct authentication answers AuthnResult at every step', async () => {
  const app = await createAuthnApp(server);
  const signedUp = await signUp(client, app);
  ok(await client.get('/aa/recaptcha_invisible_sitekey'));
  const bearer = { auth: { bearer: signedUp.token } };
  ok(await client.get('/me', undefined, bearer));
  ok(await client.get('/wallet/info', undefined, bearer));
  ok(await client.post('/wallet/info', {}, bearer));
  ok(await client.post('/wallet/change-name', { first_name: 'Sam', last_name: 'Lee' }, bearer));
  ok(await client.post('/wallet/add-uid', { login: `more-${Date.now()}@example.com` }, bearer));
  // An error answer: a wrong attempt secret.
  assert.is((await client.post('/aa/1234567890/auth-uid', { factor_id: 'x', code: '1' }, { auth: { attemptSecret: 'wrong' } })).status >= 400, true);
});

test('profile access, tokens and the admin API answer their declared shapes', async () => {
  const app: TestApp = await createApp(server);
  ok(await client.get(`/admin/apps/${app.clientId}`, undefined, operator));
  const managerId = await addIndividual(server, app);
  const businessId = await addBusiness(server, app, managerId);
  ok(await client.get('/p/get-by-uid', { uid: `service:${managerId}` }, { auth: app.basic }));
  ok(await client.get('/p/get-by-uid', { uid: 'username:nobody-here' }, { auth: app.basic }));
  const token = ok(await client.post('/p/token', { uid: `service:${businessId}`, manager_uid: `service:${managerId}` }, { auth: app.basic })).body.access_token;
  ok(await client.get(`/p/${businessId}`));
  ok(await client.get(`/p/${businessId}/features`, undefined, { auth: app.basic }));
  ok(await client.request('PATCH', `/p/${businessId}/features`, { bill: true }, { auth: app.basic }));
  ok(await client.get('/wallet/info', undefined, { auth: { bearer: token } }));
  ok(await client.get(`/admin/profiles/${businessId}`, undefined, operator));
  ok(await client.request('PATCH', `/admin/profiles/${businessId}`, { support_paycode: true, username: 'corner-cafe' }, operator));
  ok(await client.post(`/admin/profiles/${businessId}/features`, { feature: 'design_gl' }, operator));
  ok(await client.request('DELETE', `/admin/profiles/${businessId}/features/design_gl`, undefined, operator));
  ok(await client.request('PUT', `/admin/profiles/${businessId}/location`, { latitude: '40.5', longitude: '-89.25' }, operator));
  ok(await client.request('DELETE', `/admin/profiles/${businessId}/location`, undefined, operator));
  ok(await client.post(`/admin/profiles/${businessId}/wallet`, { action: 'suspend' }, operator));
  ok(await client.post(`/admin/profiles/${businessId}/wallet`, { action: 'unsuspend' }, operator));
  const otherManager = await addIndividual(server, app, { first: 'Sam' });
  ok(await client.post(`/admin/profiles/${businessId}/managers`, { manager_uid: `service:${otherManager}` }, operator));
  const personal = { auth: { bearer: await userToken(server, app, managerId) } };
  ok(await client.get(`/token/select/${businessId}`, undefined, personal));
  const managerToken = ok(await client.post('/p/token', { uid: `service:${managerId}` }, { auth: app.basic })).body.access_token;
  ok(await client.post('/token/logout', {}, { auth: { bearer: managerToken } }));
  assertRefused(await client.get('/p/0000000000'), 404, 'not_found');
});

test('cash: issue, presend, send, receive, history, sync, detail, retract, search and the ledger admin', async () => {
  const world = await ledgerWorld(server);
  ok(await client.get('/admin/ledger/issuer', undefined, operator));
  const alice = await person(server, world);
  const bob = await person(server, world);
  const cafe = await shop(server, world, { supportPaycode: true });
  await issue(server, alice.id, '50.00');
  ok(await client.get('/wallet/presend', { recipient_uid: `service:${bob.id}` }, alice.auth));
  const sent = ok(await client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: 'any-USD-5.00', 'appdata.test.order': 'A-1' }, { ...alice.auth, form: true }));
  const transferId = sent.body.transfer.id as string;
  ok(await client.get(`/t/${transferId}`, undefined, bob.auth));
  ok(await client.get('/wallet/history', undefined, alice.auth));
  ok(await client.post('/wallet/history_sync', { sync_ts: '1970-01-01T00:00:00Z', count_remain: true }, alice.auth));
  const paycode = ok(await client.post('/wallet/send', { recipient_uid: `service:${cafe.id}`, amounts: 'any-USD-3.00' }, alice.auth));
  ok(await client.post('/wallet/receive', { paycode: paycode.body.transfer.payment_codes[0].code, currency: 'USD', amount: '2.00' }, cafe.auth));
  const waiting = ok(await client.post('/wallet/send', { recipient_uid: `service:${cafe.id}`, amounts: 'any-USD-1.00' }, alice.auth));
  ok(await client.post(`/t/${waiting.body.transfer.id}/retract`, { reason: 'wrong_amount' }, alice.auth));
  ok(await client.get('/wallet/search', { q: 'Corner' }, alice.auth));
  ok(await client.get('/admin/ledger/audit', undefined, operator));
  ok(await client.get(`/admin/ledger/holdings/${alice.id}`, undefined, operator));
  ok(await client.post('/admin/ledger/fx-rates', { source_currency: 'USD', dest_currency: 'MXN', rate: '18.4' }, operator));
  ok(await client.get('/admin/ledger/fx-rates', undefined, operator));
  const account = ok(await client.post('/admin/ledger/accounts', { uid: `service:${alice.id}`, routing_number: '011000015', account_number: '12345678' }, operator));
  ok(await client.get(`/wallet/account/${account.body.account_id}/presend`, { amount: '1.00' }, alice.auth));
  ok(await client.get('/token/selectable', undefined, alice.auth));
  ok(await client.get('/wallet/info', undefined, alice.auth));
  // Errors carry the Error shape.
  assertRefused(await client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: 'any-USD-5000.00' }, alice.auth), 400, 'invalid');
  assertRefused(await client.get('/wallet/history', undefined, { auth: { bearer: 'nonsense' } }), 401, 'invalid_token');
});

test('every answer matched its declaration, across the routes this file drives', () => {
  assert.equal(problems, []);
  for (const name of [
    'POST /aa/signup', 'POST /aa/:attemptId/auth-uid', 'POST /aa/:attemptId/signup-finish', 'GET /me', 'GET /wallet/info', 'POST /p/add-individual', 'POST /p/token',
    'GET /admin/profiles/:profileId', 'POST /wallet/send', 'GET /wallet/history', 'POST /wallet/history_sync', 'GET /t/:transferId', 'POST /wallet/receive',
    'POST /admin/ledger/issue', 'GET /admin/ledger/audit',
  ]) {
    assert.ok(covered.has(name), `${name} was not checked`);
  }
  assert.ok(covered.size >= 40, `only ${covered.size} routes checked`);
});

test.run();
