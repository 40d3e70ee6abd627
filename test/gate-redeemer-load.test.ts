// Proves that customers paying and a terminal pulling at one redeemer at the same moment never
// deadlock (issue 20 finding 6): 30 customers redeem one design at one redeemer, half by
// /wallet/send, half by pull; no answer is a 5xx, every payment redeems and settles, the audit
// balances, and on real Postgres its deadlock count does not move.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { userToken, type TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld, usd } from './ledger-api-support.ts';
import { usesRealServices } from './support/harness.ts';
import { startTestServer, type TestServer } from './support/http.ts';
import { brandPermissions, brandWorld, type Actor, type Auth } from './support/brand-world.ts';

let server: TestServer;
let app: TestApp;
const { api, business, customer, assertAudit, brand } = brandWorld(() => ({ server, app }));
const customers = 30;
/** Postgres's deadlock statistics reach pg_stat_database within a second of the deadlock. */
const statisticsFlushMs = 1500;

test.before(async () => {
  server = await startTestServer();
  app = (await ledgerWorld(server)).app;
});

test.after(async () => {
  await server.close();
});

async function deadlocks(): Promise<number> {
  const rows = await server.engine.sql<{ deadlocks: number }[]>`select deadlocks::int as deadlocks from pg_stat_database where datname = current_database()`;
  return rows[0].deadlocks;
}

test('30 customers at one redeemer, half sending and half pulled: no deadlock, no 5xx, every sale redeemed', async () => {
  const cafe = await business('Cafe', ['design_gl']);
  const books = await business('Book Nook', ['pull_payment']);
  const token = await userToken(server, app, books.id, { personalProfileId: books.managerId, concurrent: true, permissions: [...brandPermissions, 'pull_payment'], deviceUuid: 'till-1' });
  const till: Auth = { auth: { bearer: token } };
  const designId = (await api.post('/design/create', { title: 'Cafe Gift', currency: 'USD', design_type: 'gl_design' }, cafe.auth)).body.id;
  const plan = (await api.post(`/design/${designId}/plan/create`, { title: 'Gift' }, cafe.auth)).body.plan_id;
  const added = await api.post(`/design/${designId}/agreement/add`, { uid: `service:${books.id}`, redeemer: true, terms_text: 'Standard terms' }, cafe.auth);
  assert.is((await api.post(`/design/${designId}/agreement/${added.body.agreement.id}/activate`, {}, books.auth)).status, 200);
  await issue(server, cafe.id, `${customers * 20}.00`);
  const people: Actor[] = [];
  for (let index = 0; index < customers; index += 1) {
    const person = await customer();
    const sent = await api.post(`/design/${designId}/send`, { recipient_uid: `service:${person.id}`, distribution_plan_id: plan, amount: '20.00' }, cafe.auth);
    assert.is(sent.status, 200, sent.text);
    if (index % 2 === 1) assert.is((await api.post('/wallet/pull-consent', { merchant_uid: `service:${books.id}` }, person.auth)).status, 200);
    people.push(person);
  }
  const deadlocksBefore = usesRealServices ? await deadlocks() : 0;
  const answers = await Promise.all(people.map((person, index) => index % 2 === 0
    ? api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: `${designId}-USD-10.00` }, person.auth)
    : api.post('/pull/redeem', { sender_uid: `service:${person.id}`, amounts: `${designId}-USD-10.00` }, till)));
  const failed = answers.filter((answer) => answer.status !== 200);
  assert.is(failed.length, 0, failed.map((answer) => `${answer.status} ${answer.text}`).join('\n'));
  assert.is(await brand(books.id, designId), '0.00', 'every payment was redeemed in its command');
  assert.is(await usd(server, books.id), `${customers * 10}.00`, 'and settled from the reserve');
  await assertAudit('mixed sends and pulls at one redeemer');
  if (usesRealServices) {
    await new Promise((resolve) => setTimeout(resolve, statisticsFlushMs));
    assert.is(await deadlocks(), deadlocksBefore, 'Postgres counted no deadlock');
  }
});

test.run();
