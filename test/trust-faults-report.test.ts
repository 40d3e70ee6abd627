// Proves a receivable report large enough to fill postgres.js's COPY stream (80 pulls, a JSON answer of about 30 KB) leaves every pooled connection answering (issue 35's paused-socket hang): after each of three reports, a burst of requests on the same server answers at once.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { userToken, type TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld } from './ledger-api-support.ts';
import { startTestServer, type TestServer } from './support/http.ts';
import { brandPermissions, brandWorld, type Auth } from './support/brand-world.ts';

let server: TestServer;
let app: TestApp;
const { api, business, customer } = brandWorld(() => ({ server, app }));
const pulls = 80;
const burst = 12;
/** A burst on a healthy pool answers well within this (the hang never answered at all). */
const burstMsMax = 10_000;

test.before(async () => {
  server = await startTestServer();
  app = (await ledgerWorld(server)).app;
});

test.after(async () => {
  await server.close();
});

/** The promise's answer, or a failure naming what did not answer within timeoutMs. */
async function within<T>(promise: Promise<T>, what: string, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

test('a business with 80 pulls: its JSON report, then requests on the same pool answer, three times over', async () => {
  const [cafe, books, pat] = await Promise.all([business('Cafe', ['design_gl']), business('Book Nook', ['pull_payment']), customer()]);
  const created = await api.post('/design/create', { title: 'Cafe Gift', currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  assert.is(created.status, 200, created.text);
  const designId: string = created.body.id;
  const plan = await api.post(`/design/${designId}/plan/create`, { title: 'Gift cards' }, cafe.auth);
  assert.is(plan.status, 200, plan.text);
  const agreement = await api.post(`/design/${designId}/agreement/add`, { uid: `service:${books.id}`, redeemer: true, terms_text: 'Standard terms' }, cafe.auth);
  assert.is(agreement.status, 200, agreement.text);
  assert.is((await api.post(`/design/${designId}/agreement/${agreement.body.agreement.id}/activate`, {}, books.auth)).status, 200);
  await issue(server, cafe.id, '10.00');
  const sent = await api.post(`/design/${designId}/send`, { recipient_uid: `service:${pat.id}`, distribution_plan_id: plan.body.plan_id, amount: '10.00' }, cafe.auth);
  assert.is(sent.status, 200, sent.text);
  assert.is((await api.post('/wallet/pull-consent', { merchant_uid: `service:${books.id}` }, pat.auth)).status, 200);
  const till: Auth = { auth: { bearer: await userToken(server, app, books.id, { personalProfileId: books.managerId, concurrent: true, permissions: [...brandPermissions, 'pull_payment'], deviceUuid: 'till-1' }) } };
  for (let made = 0; made < pulls; made += 8) {
    const answers = await Promise.all(Array.from({ length: Math.min(8, pulls - made) }, (_, index) =>
      api.post('/pull/redeem', { sender_uid: `service:${pat.id}`, amounts: `${designId}-USD-0.01`, non_service_amount: '1.00', dedup_id: `pull-${made + index}` }, till)));
    for (const answer of answers) assert.is(answer.status, 200, answer.text);
  }

  for (let round = 1; round <= 3; round++) {
    const report = await within(api.post('/wallet/report/receivable', {}, books.auth), `report ${round}`, burstMsMax);
    assert.is(report.status, 200, report.text);
    // Each pull makes a redeem row and a non_service row.
    assert.is(report.body.report.length, 2 * pulls);
    assert.ok(report.text.length > 16 * 1024, `the report is ${report.text.length} bytes, past the stream's 16 KB mark`);
    // Each request reads through the pool; one landing on a connection left paused never answered.
    const answers = await within(Promise.all(Array.from({ length: burst }, () => api.get('/wallet/history', pat.auth))), `the requests after report ${round}`, burstMsMax);
    for (const answer of answers) assert.is(answer.status, 200, answer.text);
  }
});

test.run();
