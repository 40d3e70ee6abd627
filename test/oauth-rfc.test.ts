// Proves the OAuth endpoints keep the RFCs standard clients rely on, over plain HTTP: PKCE S256
// (plain refused, the verifier checked at /token, required of a client without a secret),
// form-encoded Basic credentials, unknown parameters ignored, no-store token answers, 401 with a
// challenge for a bad Basic secret, the standard error codes, and RFC 8414 metadata.
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from './support/http.ts';
import { authorizePages, authorizeRedirect, call } from './support/oauth-pages.ts';
import { createAuthnApp, must, signUp, type AuthnApp, type SignedUp } from './authn-support.ts';

let server: TestServer;
let app: AuthnApp;
let person: SignedUp;
const redirectUri = 'https://client.example/callback';

test.before(async () => {
  server = await startTestServer();
  app = await createAuthnApp(server, { redirectUris: [redirectUri], name: 'RFC client' });
  person = await signUp(server.client, app, { email: 'rfc@example.com', phone: '+15555550177', password: 'rfc password' });
});
test.after(async () => server.close());

const base = () => ({ response_type: 'code', client_id: app.clientId, redirect_uri: redirectUri, scope: 'view_wallet', state: 'st' });

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Form-encodes every character, as RFC 6749 2.3.1 allows (oauth4webapi encodes `-` and `_` this way). */
function formEncodeAll(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

function basicHeader(clientId: string, clientSecret: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` };
}

async function codeWith(extra: Record<string, string>): Promise<string> {
  return (await authorizePages(server.baseUrl, person, { ...base(), ...extra })).searchParams.get('code')!;
}

test('PKCE S256: the verifier is checked at /token; a wrong or missing one is invalid_grant and leaves the code usable', async () => {
  const { verifier, challenge } = pkcePair();
  const code = await codeWith({ code_challenge: challenge, code_challenge_method: 'S256' });
  const form = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: app.clientId, client_secret: app.clientSecret };
  const missing = await server.client.post('/token', form, { form: true });
  assert.is(missing.status, 400);
  assert.is(missing.body.error, 'invalid_grant');
  const wrong = await server.client.post('/token', { ...form, code_verifier: pkcePair().verifier }, { form: true });
  assert.is(wrong.body.error, 'invalid_grant');
  const token = must(await server.client.post('/token', { ...form, code_verifier: verifier }, { form: true }));
  must(await server.client.get('/wallet/info', {}, { auth: { bearer: token.body.access_token } }));
});

test('PKCE: plain, a challenge without a method and a malformed challenge go back to the app as invalid_request', async () => {
  const { challenge, verifier } = pkcePair();
  const cases: Record<string, string>[] = [{ code_challenge: verifier, code_challenge_method: 'plain' }, { code_challenge: challenge }, { code_challenge: 'short', code_challenge_method: 'S256' }, { code_challenge_method: 'S256' }];
  for (const extra of cases) {
    const back = await authorizeRedirect(server.baseUrl, { ...base(), ...extra });
    assert.is(back.searchParams.get('error'), 'invalid_request', JSON.stringify(extra));
    assert.is(back.searchParams.get('state'), 'st');
  }
});

test('a public client redeems a PKCE code with its client_id alone; without PKCE, or as a confidential app, it cannot', async () => {
  const { verifier, challenge } = pkcePair();
  const pkceCode = await codeWith({ code_challenge: challenge, code_challenge_method: 'S256' });
  const plainCode = await codeWith({});
  const publicForm = (code: string) => ({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: app.clientId });
  // A code issued without PKCE needs the secret; and a verifier for a code without a challenge is refused.
  assert.is((await server.client.post('/token', publicForm(plainCode), { form: true })).body.error, 'invalid_grant');
  assert.is((await server.client.post('/token', { ...publicForm(plainCode), code_verifier: verifier }, { form: true })).body.error, 'invalid_grant');
  must(await server.client.post('/token', { ...publicForm(pkceCode), code_verifier: verifier }, { form: true }));
  const { clientId } = await server.engine.services.apps.create({ name: 'Confidential', permissions: [], redirectUris: [redirectUri], site: 'default', isPublic: false, implicitGrant: false });
  const noSecret = await server.client.post('/token', { grant_type: 'authorization_code', code: 'x', redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }, { form: true });
  assert.is(noSecret.status, 400);
  assert.is(noSecret.body.error, 'invalid_client');
});

test('Basic credentials are form-decoded; a wrong Basic secret is 401 with WWW-Authenticate, a wrong form secret 400', async () => {
  const code = await codeWith({ foo: '1' });
  const form = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, foo: '1' };
  const wrong = await server.client.post('/token', form, { form: true, headers: basicHeader(formEncodeAll(app.clientId), formEncodeAll(`${app.clientSecret}x`)) });
  assert.is(wrong.status, 401);
  assert.is(wrong.body.error, 'invalid_client');
  assert.match(wrong.headers.get('www-authenticate') ?? '', /^Basic /);
  const wrongForm = await server.client.post('/token', { ...form, client_id: app.clientId, client_secret: 'wrong' }, { form: true });
  assert.is(wrongForm.status, 400);
  assert.is(wrongForm.body.error, 'invalid_client');
  assert.is(wrongForm.headers.get('www-authenticate'), null);
  // Every character percent-encoded, and an unknown parameter (foo) at both endpoints: ignored.
  const token = must(await server.client.post('/token', form, { form: true, headers: basicHeader(formEncodeAll(app.clientId), formEncodeAll(app.clientSecret)) }));
  assert.is(token.body.token_type, 'bearer');
  assert.is(token.headers.get('cache-control'), 'no-store');
  assert.is(token.headers.get('pragma'), 'no-cache');
});

test('token errors are not cached either; password grant is unsupported_grant_type; a missing response_type is invalid_request', async () => {
  const password = await server.client.post('/token', { grant_type: 'password', username: person.email, password: person.password, client_id: app.clientId, client_secret: app.clientSecret }, { form: true });
  assert.is(password.status, 400);
  assert.is(password.body.error, 'unsupported_grant_type');
  assert.is(password.headers.get('cache-control'), 'no-store');
  assert.is(password.headers.get('pragma'), 'no-cache');
  const tooLong = await server.client.post('/token', { grant_type: 'x'.repeat(500) }, { form: true });
  assert.is(tooLong.body.error, 'invalid_request');
  assert.is(tooLong.headers.get('cache-control'), 'no-store');
  const { response_type: _unused, ...noType } = base();
  const back = await authorizeRedirect(server.baseUrl, noType);
  assert.is(back.searchParams.get('error'), 'invalid_request');
  const page = await call(server.baseUrl, 'GET', `/authorize?${new URLSearchParams({ ...base(), foo: '1', prompt: 'login' })}`);
  assert.is(page.status, 200, page.html);
});

test('RFC 8414 metadata names the endpoints, grants, S256 and the scopes', async () => {
  const metadata = must(await server.client.get('/.well-known/oauth-authorization-server')).body;
  assert.is(metadata.issuer, server.baseUrl);
  assert.is(metadata.authorization_endpoint, `${server.baseUrl}/authorize`);
  assert.is(metadata.token_endpoint, `${server.baseUrl}/token`);
  assert.equal(metadata.code_challenge_methods_supported, ['S256']);
  assert.ok(metadata.response_types_supported.includes('code'));
  assert.ok(metadata.grant_types_supported.includes('authorization_code'));
  assert.ok(metadata.scopes_supported.includes('view_wallet'));
  assert.ok(metadata.token_endpoint_auth_methods_supported.includes('client_secret_basic'));
});

test.run();
