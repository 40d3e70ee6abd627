// Proves the till's live receive feed through ink-testing-library against a real server: a payment
// (a send, then a payment code taken at another till) shows at once as the green banner with its
// amount and sender, and the end-of-day screen reloads with the new payment while it is open.
import { render } from 'ink-testing-library';
import React from 'react';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addBusiness, addIndividual, userToken, type TestApp } from '../test/foundation-helpers.ts';
import { issue, ledgerWorld } from '../test/ledger-api-support.ts';
import { startTestServer, type TestServer } from '../test/support/http.ts';
import { createPosClient } from './api.ts';
import { App } from './app.tsx';

let server: TestServer;
let app: TestApp;
let merchantId: string;
let merchantToken: string;
let customerToken: string;
const permissions = ['send_cash', 'view_wallet', 'receive_cash', 'view_history', 'pull_payment'];

/** Waits for a frame showing text, checked as frames are drawn; the timeout is only a stuck run's limit. */
async function waitFor(frame: () => string | undefined, text: string | RegExp, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = frame() ?? '';
    if (typeof text === 'string' ? now.includes(text) : text.test(now)) return now;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${text}; screen:\n${now}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test.before(async () => {
  server = await startTestServer();
  app = (await ledgerWorld(server)).app;
  const managerId = await addIndividual(server, app);
  merchantId = await addBusiness(server, app, managerId, 'Live Cafe');
  await server.engine.services.profiles.setFlags(server.engine.sql, merchantId, { supportPaycode: true });
  merchantToken = await userToken(server, app, merchantId, { personalProfileId: managerId, concurrent: true, permissions, deviceUuid: 'till-live' });
  const customerId = await addIndividual(server, app, { first: 'Dana', last: 'Buyer' });
  customerToken = await userToken(server, app, customerId, { concurrent: true, permissions });
  await issue(server, customerId, '50.00');
});

test.after(async () => {
  await server.close();
});

const options = () => ({
  client: createPosClient(server.baseUrl, merchantToken), deviceUuid: 'till-live', exportDir: '/tmp', currency: 'USD', today: () => server.clock.now().toISOString().slice(0, 10),
});

test('a payment code sale shows as it lands, highlighted, with its amount and sender', async () => {
  const { lastFrame, unmount } = render(<App options={options()} />);
  await waitFor(lastFrame, 'Live: waiting for payments');
  // The shop takes payment codes: the customer's send waits for its code, taken at another till.
  const code = await server.client.post('/wallet/send', { recipient_uid: `service:${merchantId}`, amounts: 'any-USD-20.00' }, { auth: { bearer: customerToken } });
  assert.is(code.status, 200, code.text);
  assert.ok((lastFrame() ?? '').includes('Live: waiting for payments'), 'a code not yet taken is no payment');
  const taken = await server.client.post('/wallet/receive', { paycode: code.body.transfer.payment_codes[0].code, currency: 'USD', amount: '7.50' }, { auth: { bearer: merchantToken } });
  assert.is(taken.status, 200, taken.text);
  const banner = await waitFor(lastFrame, 'Received 7.50 USD from Dana Buyer');
  assert.ok(banner.includes('>> Received'), 'the fresh payment is highlighted');
  assert.ok(banner.split('\n').length <= 24, 'fits 24 rows');
  unmount();
});

test('the end-of-day screen updates live', async () => {
  const { lastFrame, stdin, unmount } = render(<App options={options()} />);
  await waitFor(lastFrame, 'Live: waiting for payments');
  stdin.write('4');
  const before = await waitFor(lastFrame, 'e: export CSV');
  assert.match(before, /immediate\s+1\s+7\.50/, before);
  const code = await server.client.post('/wallet/send', { recipient_uid: `service:${merchantId}`, amounts: 'any-USD-5.00' }, { auth: { bearer: customerToken } });
  const taken = await server.client.post('/wallet/receive', { paycode: code.body.transfer.payment_codes[0].code, currency: 'USD', amount: '2.00' }, { auth: { bearer: merchantToken } });
  assert.is(taken.status, 200, taken.text);
  await waitFor(lastFrame, /immediate\s+2\s+9\.50/);
  unmount();
});

test.run();
