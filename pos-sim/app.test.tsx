// Proves every flow of the merchant terminal through ink-testing-library against a real server:
// sign in by direct authentication with code entry, sale by pull with a split and a receipt, a
// refused pull shown as one line, a payment code with its QR code and a correction, processor
// mode, the payment code's receipt naming which cash it took, and the end of day report with its CSV
// export (into a directory it creates, by default outside the working directory) and grand total; a burst of keys with its
// Enter (a paste, a scanner) submits; the header's device is the report's; a refusal keeps what was
// typed; the server is found as the CLI finds it and named when it cannot be reached.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { render } from 'ink-testing-library';
import React from 'react';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designPermissions } from '../engine/designs/service.ts';
import { createAuthnApp, signUp } from '../test/authn-support.ts';
import { addBusiness, addIndividual, userToken, type TestApp } from '../test/foundation-helpers.ts';
import { issue, ledgerWorld } from '../test/ledger-api-support.ts';
import { startTestServer, type TestServer } from '../test/support/http.ts';
import { createPosClient } from './api.ts';
import { App, type AppOptions } from './app.tsx';
import { defaultExportDir, parseOptions } from './options.ts';

let server: TestServer;
let app: TestApp;
let merchantId: string;
let managerId: string;
let merchantToken: string;
let customerId: string;
let strangerId: string;
let customerToken: string;
let designId: string;
const exportDir = path.join(mkdtempSync(path.join(tmpdir(), 'pos-')), 'new');
const permissions = [...designPermissions, 'create_design', 'send_cash', 'view_wallet', 'receive_cash', 'view_history', 'pull_payment'];

const framePollMs = 20;

/** A frame as the merchant reads it: colour and style codes dropped (ink colours when the environment lets it). */
function plain(frame: string | undefined): string {
  return (frame ?? '').replace(/\u001b\[[0-9;]*m/g, '');
}

/**
 * Waits for a frame showing text, checked as frames are drawn; the timeout is only a stuck run's
 * limit. Once a frame shows, its screen takes keys (widgets.tsx KeysRoot): nothing more to wait for.
 */
async function waitFor(frame: () => string | undefined, text: string | RegExp, timeoutMs = 60_000): Promise<string> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const now = plain(frame());
    if (typeof text === 'string' ? now.includes(text) : text.test(now)) return now;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${text}; screen:\n${now}`);
    // The next frame may wait for the server: look again shortly.
    await new Promise((resolve) => setTimeout(resolve, framePollMs));
  }
}

/** Keystrokes one at a time, as a person types. */
async function type(stdin: { write(data: string): void }, text: string): Promise<void> {
  for (const character of text) stdin.write(character);
}

async function key(stdin: { write(data: string): void }, sequence: string): Promise<void> {
  stdin.write(sequence);
}

const enter = '\r';
const escape = '\u001B';

function options(token: string | null, extra: Partial<AppOptions> = {}): AppOptions {
  return {
    client: createPosClient(server.baseUrl, token), deviceUuid: 'till-9', exportDir, currency: 'USD', today: () => server.clock.now().toISOString().slice(0, 10), ...extra,
  };
}

test.before(async () => {
  server = await startTestServer();
  app = (await ledgerWorld(server)).app;
  managerId = await addIndividual(server, app);
  merchantId = await addBusiness(server, app, managerId, 'Terminal Cafe');
  for (const feature of ['design_gl', 'pull_payment']) await server.client.post(`/admin/profiles/${merchantId}/features`, { feature }, { auth: { operator: true } });
  await server.engine.services.profiles.setFlags(server.engine.sql, merchantId, { supportPaycode: true });
  merchantToken = await userToken(server, app, merchantId, { personalProfileId: managerId, concurrent: true, permissions, deviceUuid: 'till-9' });
  const merchantAuth = { auth: { bearer: merchantToken } };
  customerId = await addIndividual(server, app);
  strangerId = await addIndividual(server, app);
  customerToken = await userToken(server, app, customerId, { concurrent: true, permissions });
  const customerAuth = { auth: { bearer: customerToken } };
  const created = await server.client.post('/design/create', { title: 'Terminal Gift', currency: 'USD', design_type: 'gl_design' }, merchantAuth);
  designId = created.body.id;
  const plan = await server.client.post(`/design/${designId}/plan/create`, { title: 'Gift' }, merchantAuth);
  await issue(server, merchantId, '100.00');
  const sent = await server.client.post(`/design/${designId}/send`, { recipient_uid: `service:${customerId}`, distribution_plan_id: plan.body.plan_id, amount: '40.00' }, merchantAuth);
  assert.is(sent.status, 200, sent.text);
  await issue(server, customerId, '20.00');
  const consent = await server.client.post('/wallet/pull-consent', { merchant_uid: `service:${merchantId}` }, customerAuth);
  assert.is(consent.status, 200, consent.text);
});

test.after(async () => {
  await server.close();
});

test('sale by pull: customer, brand cash with title and amount, split with outside tender, confirm, receipt', async () => {
  const { lastFrame, stdin, unmount } = render(<App options={options(merchantToken)} />);
  await waitFor(lastFrame, 'Terminal Cafe');
  await key(stdin, '1');
  await waitFor(lastFrame, 'Customer UID or code text');
  await type(stdin, customerId);
  await key(stdin, enter);
  await waitFor(lastFrame, 'Terminal Gift  40.00 USD available');
  await type(stdin, '15.00');
  await key(stdin, enter);
  await type(stdin, '12.00');
  await key(stdin, enter);
  const confirm = await waitFor(lastFrame, 'Take this payment?');
  assert.match(confirm, /Outside tender\s+3\.00 USD/);
  await key(stdin, 'y');
  const receipt = await waitFor(lastFrame, 'Receipt');
  assert.match(receipt, /Transfer \d{16}/);
  assert.match(receipt, /Remaining\s+28\.00 USD of Terminal Gift/);
  assert.ok(receipt.split('\n').every((line) => line.length <= 80), 'fits 80 columns');
  await key(stdin, enter);
  await waitFor(lastFrame, '4  End of day report');
  unmount();
});

test('a refused pull is one clear line and the terminal stays usable', async () => {
  const { lastFrame, stdin, unmount } = render(<App options={options(merchantToken)} />);
  await waitFor(lastFrame, 'Terminal Cafe');
  await key(stdin, '1');
  await waitFor(lastFrame, 'Customer UID or code text');
  await type(stdin, strangerId);
  await key(stdin, enter);
  const refused = await waitFor(lastFrame, 'has not let this merchant pull');
  assert.match(refused, /has not let this merchant pull/);
  // What was typed stays on screen: Enter sends it again, typing replaces it.
  assert.match(refused, `Customer UID or code text [${strangerId}]`);
  assert.not.match(refused, /at .*\.ts:\d+/, 'no stack trace');
  await type(stdin, 'nonsense');
  await key(stdin, enter);
  await waitFor(lastFrame, 'type a profile id');
  await key(stdin, escape);
  await waitFor(lastFrame, '4  End of day report');
  unmount();
});

test('a value and Enter typed in one burst (a paste, a barcode scanner) submits, field after field', async () => {
  const { lastFrame, stdin, unmount } = render(<App options={options(merchantToken)} />);
  await waitFor(lastFrame, 'Terminal Cafe');
  await key(stdin, '1');
  await waitFor(lastFrame, 'Customer UID or code text');
  stdin.write(`${customerId}\r`);
  await waitFor(lastFrame, 'Terminal Gift  28.00 USD available');
  stdin.write('2.00\r\r');
  const confirm = await waitFor(lastFrame, 'Take this payment?');
  assert.match(confirm, /Sale total\s+2\.00 USD/);
  await key(stdin, 'n');
  await waitFor(lastFrame, '4  End of day report');
  unmount();
});

test('payment code: a total due below the amount is refused before sending, keeping what was typed; Esc goes to the menu', async () => {
  const { lastFrame, stdin, unmount } = render(<App options={options(merchantToken)} />);
  await waitFor(lastFrame, 'Terminal Cafe');
  await key(stdin, '2');
  await waitFor(lastFrame, 'The customer scans');
  stdin.write('NOTSENT1\r9.00\r8.00\r\r');
  const refused = await waitFor(lastFrame, 'must be at least the amount');
  assert.match(refused, 'the total due (8.00) must be at least the amount (9.00)');
  assert.match(refused, 'Payment code [NOTSENT1]');
  assert.match(refused, 'Esc: menu');
  await key(stdin, escape);
  await waitFor(lastFrame, '4  End of day report');
  unmount();
});

test('payment code: QR code on screen, receive with total_due and total_tax, then a correction', async () => {
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${merchantId}`, amounts: '0-USD-10.00' }, { auth: { bearer: customerToken } });
  assert.is(sent.status, 200, sent.text);
  const paycode = sent.body.transfer.payment_codes[0].code as string;
  const { lastFrame, stdin, unmount } = render(<App options={options(merchantToken)} />);
  await waitFor(lastFrame, 'Terminal Cafe');
  await key(stdin, '2');
  const screen = await waitFor(lastFrame, 'The customer scans');
  assert.ok(screen.includes('▀') || screen.includes('▄') || screen.includes('█'), 'a QR code is drawn');
  assert.ok(screen.split('\n').length <= 24, 'fits 24 rows');
  await type(stdin, paycode);
  await key(stdin, enter);
  await type(stdin, '8.00');
  await key(stdin, enter);
  await type(stdin, '8.00');
  await key(stdin, enter);
  await type(stdin, '0.50');
  await key(stdin, enter);
  // The screen's own line (the transfer under it), not the receive feed's banner, which may say the same first.
  await waitFor(lastFrame, /Received 8\.00 USD\n[^\n]*open loop cash\s+8\.00 USD\n[^\n]*Transfer \d/);
  await key(stdin, 'c');
  await waitFor(lastFrame, 'Corrected amount');
  await type(stdin, '9.00');
  await key(stdin, enter);
  await type(stdin, '9.00');
  await key(stdin, enter);
  // The correction's extra 1.00 came in the shop's own brand cash: the receipt says so.
  await waitFor(lastFrame, /Received 9\.00 USD\n[^\n]*open loop cash\s+8\.00 USD\n[^\n]*brand cash \(design \d{10}\)\s+1\.00 USD\n[^\n]*Transfer \d/);
  unmount();
});

test('exports default to the user\'s data directory, never the working directory', () => {
  assert.is(defaultExportDir({ XDG_DATA_HOME: '/x/data' }, 'linux', '/home/pat'), '/x/data/cashloop/pos-exports');
  assert.is(defaultExportDir({}, 'linux', '/home/pat'), '/home/pat/.local/share/cashloop/pos-exports');
  assert.is(defaultExportDir({}, 'darwin', '/Users/pat'), '/Users/pat/Library/Application Support/cashloop/pos-exports');
  assert.match(defaultExportDir({ LOCALAPPDATA: 'C:\\Users\\pat\\AppData\\Local' }, 'win32', 'C:\\Users\\pat'), 'cashloop');
  const parsed = parseOptions([], { HOME: '/home/pat', XDG_DATA_HOME: '/x/data' });
  assert.is(parsed.exportDir, defaultExportDir({ XDG_DATA_HOME: '/x/data' }));
  assert.not.ok(parsed.exportDir.startsWith(process.cwd()));
  assert.is(parseOptions(['--export-dir', '/tmp/till'], {}).exportDir, '/tmp/till');
});

test('processor mode: a processor token of the customer sends to this shop', async () => {
  const info = await server.engine.services.tokens.issue(server.engine.sql, {
    clientId: app.clientId, profileId: customerId, personalProfileId: customerId, permissions: ['offline', 'process_payment'], concurrent: true, deviceUuid: null, source: 'oauth', now: server.clock.now(),
  });
  const { lastFrame, stdin, unmount } = render(<App options={options(merchantToken, { processorToken: info.access_token })} />);
  await waitFor(lastFrame, 'Terminal Cafe');
  await key(stdin, '3');
  await waitFor(lastFrame, 'Processor token');
  await key(stdin, enter);
  await type(stdin, customerId);
  await key(stdin, enter);
  // The payment code's correction took 1.00 more, of the shop's own brand cash (spent first at its issuer).
  await waitFor(lastFrame, 'Terminal Gift  27.00 USD available');
  await type(stdin, '5.00');
  await key(stdin, enter);
  await key(stdin, enter);
  await waitFor(lastFrame, 'Take this payment?');
  await key(stdin, 'y');
  const receipt = await waitFor(lastFrame, 'Receipt');
  assert.match(receipt, /Remaining\s+22\.00 USD/);
  unmount();
});

test('end of day: totals per settlement type and a CSV export', async () => {
  const { lastFrame, stdin, unmount } = render(<App options={options(merchantToken)} />);
  await waitFor(lastFrame, 'Terminal Cafe');
  await key(stdin, '4');
  const report = await waitFor(lastFrame, 'e: export CSV');
  // The merchant is the design's issuer: its own brand cash comes home unfunded (12.00 + 5.00).
  assert.match(report, /redeem\s+2\s+17\.00\s+0\.00\s+0\.00\s+0\.00/, report);
  assert.match(report, /non_service\s+1\s+3\.00/);
  // The payment code took 8.00 of open loop cash (its correction's extra 1.00 was the shop's own brand cash).
  assert.match(report, /immediate\s+1\s+8\.00/, report);
  assert.match(report, /total\s+4\s+28\.00/, report);
  await key(stdin, 'e');
  await waitFor(lastFrame, 'CSV saved to');
  // The directory did not exist: the export made it.
  const csv = readFileSync(path.join(exportDir, `pos-report-${server.clock.now().toISOString().slice(0, 10)}.csv`), 'utf8');
  assert.ok(csv.startsWith('date,timestamp,transfer_id'), csv.slice(0, 80));
  assert.is(csv.trim().split(/\r?\n/).length, 5);
  unmount();
});

test('sign in by direct authentication with code entry, then act for the business', async () => {
  const authnApp = await createAuthnApp(server);
  const person = await signUp(server.client, authnApp);
  const shopId = await addBusiness(server, app, person.profileId, 'Signed In Shop');
  await server.client.post(`/admin/profiles/${shopId}/features`, { feature: 'pull_payment' }, { auth: { operator: true } });
  const { lastFrame, stdin, unmount } = render(<App options={options(null, { clientId: authnApp.clientId, businessId: shopId })} />);
  await waitFor(lastFrame, 'App client id');
  await key(stdin, enter);
  await type(stdin, person.email);
  await key(stdin, enter);
  await type(stdin, person.password);
  await key(stdin, enter);
  const codeScreen = await waitFor(lastFrame, 'Enter the code');
  const code = /sandbox: (\d[\d-]*) =>/.exec(codeScreen)?.[1];
  assert.ok(code, codeScreen);
  await type(stdin, code!);
  await key(stdin, enter);
  await waitFor(lastFrame, 'Signed In Shop');
  await waitFor(lastFrame, '1  Sale by pull');
  // The signed-in token carries pull_payment: the pull reaches the consent rule, not a scope error.
  await key(stdin, '1');
  await waitFor(lastFrame, 'Customer UID or code text');
  await type(stdin, customerId);
  await key(stdin, enter);
  await waitFor(lastFrame, 'has not let this merchant pull');
  unmount();
});

test("the header's device is the report's pos_device_id", async () => {
  const { lastFrame, stdin, unmount } = render(<App options={options(merchantToken)} />);
  const header = (await waitFor(lastFrame, 'Terminal Cafe')).split('\n')[0];
  const device = /device (\S+)/.exec(header)?.[1];
  assert.is(device, 'till-9', header);
  await key(stdin, '4');
  const report = await waitFor(lastFrame, 'e: export CSV');
  assert.match(report, `POS devices: ${device}`);
  const rows = (await server.client.post('/wallet/report/receivable', { pos_device: 'any' }, { auth: { bearer: merchantToken } })).body.report;
  assert.ok(rows.length > 0);
  assert.ok(rows.every((row: any) => row.pos_device_id === device), JSON.stringify(rows.map((row: any) => row.pos_device_id)));
  unmount();
});

test('the server is found as the CLI finds it, and named when it cannot be reached', async () => {
  assert.is(parseOptions([], {}).url, 'http://127.0.0.1:8080');
  assert.is(parseOptions([], { PORT: '9123' }).url, 'http://127.0.0.1:9123');
  assert.is(parseOptions([], { PORT: '9123', CASHLOOP_URL: 'http://till.example:7000' }).url, 'http://till.example:7000');
  assert.is(parseOptions(['--url', 'http://127.0.0.1:1'], { CASHLOOP_URL: 'http://till.example:7000' }).url, 'http://127.0.0.1:1');
  // A token from the environment stays off the command line; its device is shown only when named.
  assert.is(parseOptions([], { CASHLOOP_TOKEN: 'secret-token' }).token, 'secret-token');
  assert.is(parseOptions([], { CASHLOOP_TOKEN: 'secret-token' }).device, null);
  assert.is(parseOptions(['--device', 'till-1'], { CASHLOOP_TOKEN: 'secret-token' }).device, 'till-1');
  const { lastFrame, unmount } = render(<App options={options('any-token', { client: createPosClient('http://127.0.0.1:9', 'any-token') })} />);
  const screen = await waitFor(lastFrame, 'cannot reach the server');
  assert.match(screen, 'cannot reach the server at http://127.0.0.1:9');
  assert.not.match(screen, 'any-token');
  unmount();
});

test.run();
