// Proves standard OAuth 2 libraries work unchanged: oauth4webapi (confidential client, HTTP Basic
// form-encoded as RFC 6749 2.3.1 says) and openid-client (public client, no secret) each discover
// the server from its issuer URL (RFC 8414) and run the authorization-code flow with PKCE S256,
// the user's side in headless Chromium. Needs Debian's chromium at /usr/bin/chromium; without it
// the tests say so and count as skipped.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import * as openid from 'openid-client';
import type { BrowserContext } from 'playwright-core';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listen } from './support/harness.ts';
import { startTestServer, type TestServer } from './support/http.ts';
import { createAuthnApp, must, signUp, type AuthnApp, type SignedUp } from './authn-support.ts';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium) console.log(`[skipped] ${chromiumPath} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser tests.`);
/** A test that needs the browser: counted as skipped, not passed, where there is none. */
const browserTest = haveChromium ? test : test.skip;

let server: TestServer;
let browser: BrowserContext;
let callbackServer: Server;
let redirectUri: string;
let app: AuthnApp;
let person: SignedUp;
let userDataDir: string;

test.before(async () => {
  if (!haveChromium) return;
  const { chromium } = await import('playwright-core');
  callbackServer = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('back in the app'));
  redirectUri = `${await listen(callbackServer)}/callback`;
  server = await startTestServer();
  userDataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-chromium-'));
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  app = await createAuthnApp(server, { redirectUris: [redirectUri], name: 'Library app' });
  person = await signUp(server.client, app, { email: 'library@example.com', phone: '+15555550188', password: 'library password' });
});

test.after(async () => {
  if (!haveChromium) return;
  await browser.close();
  await server.close();
  await new Promise<void>((resolve) => callbackServer.close(() => resolve()));
  rmSync(userDataDir, { recursive: true, force: true });
});

/** The user's side: sign in, enter the sandbox code, allow; answers the URL the browser came back to. */
async function userSignsIn(authorizationUrl: URL): Promise<URL> {
  const page = await browser.newPage();
  try {
    await page.goto(authorizationUrl.href);
    await page.fill('#login', person.email);
    await page.fill('#password', person.password);
    await page.click('#signin');
    await page.fill('#code', (await page.textContent('#revealed-code'))!.trim());
    await page.click('#verify');
    await page.click('#allow');
    await page.waitForURL(`${redirectUri}**`);
    return new URL(page.url());
  } finally {
    await page.close();
  }
}

async function assertTokenWorks(accessToken: string): Promise<void> {
  const info = must(await server.client.get('/wallet/info', {}, { auth: { bearer: accessToken } }));
  assert.is(info.body.profile.id, person.profileId);
}

browserTest('oauth4webapi: discovery, PKCE S256, HTTP Basic client authentication, token', async () => {
  const issuer = new URL(server.baseUrl);
  const insecure = { [oauth.allowInsecureRequests]: true };
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
  assert.equal(as.code_challenge_methods_supported, ['S256']);
  const client: oauth.Client = { client_id: app.clientId };
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const authorizationUrl = new URL(as.authorization_endpoint!);
  authorizationUrl.search = new URLSearchParams({
    client_id: client.client_id, redirect_uri: redirectUri, response_type: 'code', scope: 'view_wallet', state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256',
  }).toString();
  const back = await userSignsIn(authorizationUrl);
  const params = oauth.validateAuthResponse(as, client, back, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(app.clientSecret), params, redirectUri, codeVerifier, insecure);
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  assert.is(tokens.token_type, 'bearer');
  assert.is(tokens.scope, 'view_wallet');
  await assertTokenWorks(tokens.access_token);
});

browserTest('openid-client: discovery, PKCE S256, a public client without a secret, token', async () => {
  const config = await openid.discovery(new URL(server.baseUrl), app.clientId, undefined, openid.None(), { algorithm: 'oauth2', execute: [openid.allowInsecureRequests] });
  const codeVerifier = openid.randomPKCECodeVerifier();
  const state = openid.randomState();
  const authorizationUrl = openid.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope: 'view_wallet', state, code_challenge: await openid.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256',
  });
  const back = await userSignsIn(authorizationUrl);
  const tokens = await openid.authorizationCodeGrant(config, back, { pkceCodeVerifier: codeVerifier, expectedState: state });
  assert.is(tokens.token_type, 'bearer');
  await assertTokenWorks(tokens.access_token);
});

test.run();
