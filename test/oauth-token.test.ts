// Proves the authorization flow over HTTP: the /authorize pages (CSRF-bound forms, escaping),
// the code grant at POST /token with every error code, single-use codes whose reuse revokes the
// tokens they produced, and the implicit grant's fragment.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from './support/http.ts';
import { createAuthnApp, must, signUp, type AuthnApp, type SignedUp } from './authn-support.ts';

let server: TestServer;
let app: AuthnApp;
let implicitApp: AuthnApp;
let person: SignedUp;
const redirectUri = 'https://client.example/callback';

test.before(async () => {
  server = await startTestServer();
  app = await createAuthnApp(server, { redirectUris: [redirectUri], name: 'Books <&> Co' });
  implicitApp = await createAuthnApp(server, { redirectUris: [redirectUri], implicitGrant: true });
  person = await signUp(server.client, app, { email: 'owner@example.com', phone: '+15555550155', password: 'owner password' });
});
test.after(async () => server.close());

interface Page {
  status: number;
  html: string;
  location: string | null;
  cookie: string | null;
}

async function call(method: string, path: string, form?: Record<string, string>, cookie?: string | null, headers: Record<string, string> = {}): Promise<Page> {
  const response = await fetch(new URL(path, server.baseUrl), {
    method,
    redirect: 'manual',
    headers: { ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...(cookie ? { cookie } : {}), ...headers },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  const setCookie = response.headers.get('set-cookie');
  return { status: response.status, html: await response.text(), location: response.headers.get('location'), cookie: setCookie ? setCookie.split(';')[0] : null };
}

function hidden(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]+)"`).exec(html);
  if (!match) throw new Error(`no ${name} in page: ${html}`);
  return match[1];
}

/** Runs the pages to the redirect back to the app. */
async function authorize(query: Record<string, string>): Promise<URL> {
  const first = await call('GET', `/authorize?${new URLSearchParams(query)}`);
  assert.is(first.status, 200, first.html);
  const flow = hidden(first.html, 'flow');
  const cookie = first.cookie;
  const signin = await call('POST', '/authorize/signin', { flow, login: person.email, password: person.password }, cookie);
  const code = /id="revealed-code">(\d+)</.exec(signin.html)?.[1];
  assert.ok(code, signin.html);
  const consent = await call('POST', '/authorize/code', { flow, code: code! }, cookie);
  assert.ok(consent.html.includes('id="allow"'), consent.html);
  const done = await call('POST', '/authorize/consent', { flow, decision: 'allow' }, cookie);
  assert.is(done.status, 302);
  return new URL(done.location!);
}

const codeQuery = () => ({ response_type: 'code', client_id: app.clientId, redirect_uri: redirectUri, scope: 'offline view_wallet', state: 'xyz', uuid: 'browser-1', name: 'Books' });

test('code grant: pages, code, token; the token works; the code is single use', async () => {
  const back = await authorize(codeQuery());
  assert.is(back.origin + back.pathname, redirectUri);
  assert.is(back.searchParams.get('state'), 'xyz');
  const code = back.searchParams.get('code')!;
  const form = { grant_type: 'authorization_code', code, redirect_uri: redirectUri };
  const token = must(await server.client.post('/token', form, { form: true, auth: app.basic }));
  assert.is(token.body.token_type, 'bearer');
  assert.is(token.body.scope, 'offline view_wallet');
  const bearer = { bearer: token.body.access_token };
  must(await server.client.get('/wallet/info', {}, { auth: bearer }));
  const reuse = await server.client.post('/token', form, { form: true, auth: app.basic });
  assert.is(reuse.status, 400);
  assert.is(reuse.body.error, 'invalid_grant');
  assert.is((await server.client.get('/wallet/info', {}, { auth: bearer })).status, 401);
});

test('POST /token answers every error code of the spec', async () => {
  const code = (await authorize(codeQuery())).searchParams.get('code')!;
  const good = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: app.clientId, client_secret: app.clientSecret };
  const cases: [Record<string, string>, string, object?][] = [
    [{ ...good, grant_type: '' }, 'invalid_request'],
    [{ ...good, grant_type: 'password' }, 'unsupported_grant_type'],
    [{ ...good, code: '' }, 'invalid_request'],
    [{ ...good, code_verifier: 'too-short' }, 'invalid_request'],
    [{ ...good, client_secret: 'wrong' }, 'invalid_client'],
    [{ ...good, client_id: '9999999999' }, 'invalid_client'],
    [{ ...good, client_id: implicitApp.clientId, client_secret: implicitApp.clientSecret }, 'unauthorized_client'],
    [{ ...good, code: 'not-a-code' }, 'invalid_grant'],
    [{ ...good, redirect_uri: 'https://client.example/other' }, 'invalid_grant'],
    [{ ...good, scope: 'send_cash' }, 'invalid_scope'],
  ];
  for (const [form, error] of cases) {
    const answer = await server.client.post('/token', form, { form: true });
    assert.is(answer.status, 400, `${error}: ${answer.text}`);
    assert.is(answer.body.error, error);
    assert.match(answer.body.error_description, /^[\x20-\x7e]+$/);
  }
  const both = await server.client.post('/token', good, { form: true, auth: app.basic });
  assert.is(both.body.error, 'invalid_request');
  // Still unused: the form credentials work, and a narrower scope is allowed.
  const token = must(await server.client.post('/token', { ...good, scope: 'view_wallet' }, { form: true }));
  assert.is(token.body.scope, 'view_wallet');
  server.clock.advance(11 * 60 * 1000);
  const expiredCode = (await authorize(codeQuery())).searchParams.get('code')!;
  server.clock.advance(11 * 60 * 1000);
  const expired = await server.client.post('/token', { ...good, code: expiredCode }, { form: true });
  assert.is(expired.body.error, 'invalid_grant');
});

test('implicit grant returns the token in the fragment; apps without it get unauthorized_client', async () => {
  const back = await authorize({ response_type: 'token', client_id: implicitApp.clientId, redirect_uri: redirectUri, state: 's1', scope: 'view_wallet' });
  const fragment = new URLSearchParams(back.hash.slice(1));
  assert.is(fragment.get('state'), 's1');
  assert.is(fragment.get('token_type'), 'bearer');
  must(await server.client.get('/wallet/info', {}, { auth: { bearer: fragment.get('access_token')! } }));
  const refused = await call('GET', `/authorize?${new URLSearchParams({ response_type: 'token', client_id: app.clientId, redirect_uri: redirectUri, state: 's2' })}`);
  assert.is(refused.status, 302);
  const location = new URL(refused.location!);
  assert.is(location.searchParams.get('error'), 'unauthorized_client');
  assert.is(location.searchParams.get('state'), 's2');
});

test('authorize errors: unknown app and wrong redirect_uri never redirect; bad scope redirects', async () => {
  const unknown = await call('GET', `/authorize?${new URLSearchParams({ response_type: 'code', client_id: '9999999999', redirect_uri: redirectUri })}`);
  assert.is(unknown.status, 400);
  const mismatch = await call('GET', `/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: 'https://evil.example/' })}`);
  assert.is(mismatch.status, 400);
  assert.is(mismatch.location, null);
  const scope = await call('GET', `/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: redirectUri, scope: 'everything' })}`);
  assert.is(new URL(scope.location!).searchParams.get('error'), 'invalid_scope');
});

test('forms without the matching cookie, or from another origin, are refused; output is escaped', async () => {
  const first = await call('GET', `/authorize?${new URLSearchParams(codeQuery())}`);
  assert.ok(first.html.includes('Books &lt;&amp;&gt; Co'));
  assert.not.ok(first.html.includes('Books <&> Co'));
  assert.ok(first.cookie?.startsWith('cashloop_authorize='));
  const flow = hidden(first.html, 'flow');
  const noCookie = await call('POST', '/authorize/signin', { flow, login: person.email, password: person.password });
  assert.is(noCookie.status, 403);
  const crossSite = await call('POST', '/authorize/signin', { flow, login: person.email, password: person.password }, first.cookie, { origin: 'https://evil.example' });
  assert.is(crossSite.status, 403);
  const wrong = await call('POST', '/authorize/signin', { flow, login: person.email, password: 'wrong password' }, first.cookie);
  assert.is(wrong.status, 200);
  assert.ok(wrong.html.includes('id="message"'));
  const denied = await call('POST', '/authorize/consent', { flow, decision: 'allow' }, first.cookie);
  assert.ok(denied.html.includes('id="login"'), 'consent before sign-in shows the sign-in page again');
});

test('deny redirects with access_denied', async () => {
  const first = await call('GET', `/authorize?${new URLSearchParams(codeQuery())}`);
  const flow = hidden(first.html, 'flow');
  const signin = await call('POST', '/authorize/signin', { flow, login: person.email, password: person.password }, first.cookie);
  const code = /id="revealed-code">(\d+)</.exec(signin.html)![1];
  await call('POST', '/authorize/code', { flow, code }, first.cookie);
  const denied = await call('POST', '/authorize/consent', { flow, decision: 'deny' }, first.cookie);
  assert.is(new URL(denied.location!).searchParams.get('error'), 'access_denied');
});

test.run();
