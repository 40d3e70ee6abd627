// Proves the /authorize pages work in a real browser: headless Chromium signs in, enters the
// sandbox code, consents, follows the redirect, and the app exchanges the code for a token.
// Needs Debian's chromium at /usr/bin/chromium; without it the test says so and counts as skipped.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listen } from './support/harness.ts';
import { startTestServer, type TestServer } from './support/http.ts';
import { createAuthnApp, must, signUp } from './authn-support.ts';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium) console.log(`[skipped] ${chromiumPath} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser test.`);
/** A test that needs the browser: counted as skipped, not passed, where there is none. */
const browserTest = haveChromium ? test : test.skip;

browserTest('a browser signs in, enters the code, consents and the app gets a token', async () => {
  const { chromium } = await import('playwright-core');
  const callbacks: string[] = [];
  const callbackServer: Server = createServer((request, response) => {
    if ((request.url ?? '').startsWith('/callback')) callbacks.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/plain' }).end('back in the app');
  });
  const callbackBase = await listen(callbackServer);
  const redirectUri = `${callbackBase}/callback`;
  const server: TestServer = await startTestServer();
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-chromium-'));
  // A fresh --user-data-dir: Playwright passes it to Chromium for a persistent context.
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const app = await createAuthnApp(server, { redirectUris: [redirectUri], name: 'Browser app' });
    const person = await signUp(server.client, app, { email: 'browser@example.com', phone: '+15555550166', password: 'browser password' });
    const page = await browser.newPage();
    const query = new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: redirectUri, scope: 'view_wallet', state: 'st-1', uuid: 'chromium-1', name: 'Chromium' });
    await page.goto(`${server.baseUrl}/authorize?${query}`);
    await page.fill('#login', person.email);
    await page.fill('#password', person.password);
    await page.click('#signin');
    const code = (await page.textContent('#revealed-code'))!.trim();
    await page.fill('#code', code);
    await page.click('#verify');
    assert.ok((await page.textContent('#permissions'))!.includes('view_wallet'));
    await page.click('#allow');
    await page.waitForURL(`${redirectUri}**`);
    const back = new URL(page.url());
    assert.is(back.searchParams.get('state'), 'st-1');
    assert.is(callbacks.length, 1);
    const token = must(await server.client.post('/token', { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: redirectUri }, { form: true, auth: app.basic }));
    const info = must(await server.client.get('/wallet/info', {}, { auth: { bearer: token.body.access_token } }));
    assert.is(info.body.profile.id, person.profileId);
  } finally {
    await browser.close();
    await server.close();
    await new Promise<void>((resolve) => callbackServer.close(() => resolve()));
    rmSync(userDataDir, { recursive: true, force: true });
  }
});

test.run();
