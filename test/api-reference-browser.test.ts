// Proves GET /docs is a readable API reference in a real browser, offline: headless Chromium loads
// the page, Swagger UI (served by this server, no CDN) renders /openapi.json, and an operation's
// description and its error codes show. Requests that leave the server are refused and counted.
// Needs Debian's chromium at /usr/bin/chromium; without it the test says so and counts as skipped.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { operationDocs } from '../api/docs/index.ts';
import { startTestServer, type TestServer } from './support/http.ts';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium) console.log(`[skipped] ${chromiumPath} is missing: install Debian's chromium (apt-get install -y chromium) to run the browser test.`);
/** A test that needs the browser: counted as skipped, not passed, where there is none. */
const browserTest = haveChromium ? test : test.skip;

browserTest('/docs renders the reference with an operation\'s description and error codes, from this server only', async () => {
  const { chromium } = await import('playwright-core');
  const server: TestServer = await startTestServer();
  const userDataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-chromium-'));
  const browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // Offline: anything not from this server is refused (and would show in `elsewhere`).
    await page.route('**/*', (route) => {
      if (route.request().url().startsWith(server.baseUrl)) return route.continue();
      elsewhere.push(route.request().url());
      return route.abort();
    });
    // A deep link opens the operation; rendering ~170 operations takes a while on a busy machine.
    const answer = await page.goto(`${server.baseUrl}/docs#/transfers/postTransferRetract`);
    assert.is(answer?.status(), 200);
    const block = page.locator('#operations-transfers-postTransferRetract');
    await block.locator('.opblock-description-wrapper').first().waitFor({ timeout: 180_000 });
    await block.locator('.responses-table').first().waitFor({ timeout: 60_000 });
    const text = (await block.textContent()) ?? '';
    // The description, the example body and the error codes of the 400 answer.
    assert.ok(text.includes('the cash returns to the sender'), 'the description is rendered');
    assert.ok(operationDocs.postTransferRetract.description.includes('the cash returns to the sender'));
    assert.ok(text.includes('Sent to the wrong person'), 'the example request is rendered');
    assert.ok(text.includes('cannot_retract'), 'the 400 error codes are rendered');
    assert.equal(elsewhere, []);
    assert.equal(errors, []);
  } finally {
    await browser.close();
    await server.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
});

test('/docs/assets serves the renderer\'s files and nothing else of the package', async () => {
  const server: TestServer = await startTestServer();
  try {
    const script = await fetch(`${server.baseUrl}/docs/assets/swagger-ui-bundle.js`);
    assert.is(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.ok((await script.text()).length > 100_000);
    assert.is((await fetch(`${server.baseUrl}/docs/assets/package.json`)).status, 404);
    assert.is((await fetch(`${server.baseUrl}/docs/assets/..%2Fpackage.json`)).status, 404);
    const page = await fetch(`${server.baseUrl}/docs`);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  } finally {
    await server.close();
  }
});

test.run();
