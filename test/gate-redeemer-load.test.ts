// Proves that customers paying and a terminal taking payments at one redeemer at the same moment
// never deadlock (issue 20 finding 6): 32 customers redeem one design at one redeemer at once, first
// by /wallet/send, the terminal's pull and their processor's /proc/send (a third each); then, with
// payment codes switched on for the redeemer, a quarter each by /wallet/send (which now makes a
// code), pull, /proc/send and a payment code the terminal takes (POST /wallet/receive). No answer
// is a 5xx, every payment redeems and settles, the audit balances, and on real Postgres the
// database's deadlock count (pg_stat_database.deadlocks) does not move in any burst.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { userToken, type TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld, usd } from './ledger-api-support.ts';
import { assertNoDeadlockSince, deadlocks } from './support/deadlocks.ts';
import { usesRealServices } from './support/harness.ts';
import { startTestServer, type Answer, type TestServer } from './support/http.ts';
import { brandPermissions, brandWorld, type Actor, type Auth } from './support/brand-world.ts';
import { processorTokenOf } from './support/gate-tokens.ts';

let server: TestServer;
let app: TestApp;
const { api, business, customer, assertAudit, brand } = brandWorld(() => ({ server, app }));
const customers = 32;
/** How each customer pays, by index. */
const paths = ['send', 'pull', 'processor', 'payment code'];

test.before(async () => {
  server = await startTestServer();
  app = (await ledgerWorld(server)).app;
});

test.after(async () => {
  await server.close();
});

/** Runs the payments at once; asserts none answered a 5xx (nor anything but 200) and, on real Postgres, no deadlock. */
async function atOnce(phase: string, payments: { path: string; pay: () => Promise<Answer> }[]): Promise<Answer[]> {
  const deadlocksBefore = usesRealServices ? await deadlocks(server.engine.sql) : 0;
  const answers = await Promise.all(payments.map(({ pay }) => pay()));
  const serverErrors = answers.filter((answer) => answer.status >= 500);
  assert.is(serverErrors.length, 0, `${phase}: 5xx answers: ${serverErrors.map((answer) => `${answer.status} ${answer.text}`).join('\n')}`);
  const failed = answers.map((answer, index) => ({ path: payments[index].path, answer })).filter(({ answer }) => answer.status !== 200);
  assert.is(failed.length, 0, `${phase}: ${failed.map(({ path, answer }) => `${path}: ${answer.status} ${answer.text}`).join('\n')}`);
  if (usesRealServices) {
    await assertNoDeadlockSince(server.engine.sql, deadlocksBefore, phase);
  }
  return answers;
}

test('32 customers at one redeemer paying by send, pull, processor and payment code at once: no deadlock, no 5xx, every sale redeemed', async () => {
  const cafe = await business('Cafe', ['design_gl']);
  const books = await business('Book Nook', ['pull_payment']);
  const token = await userToken(server, app, books.id, { personalProfileId: books.managerId, concurrent: true, permissions: [...brandPermissions, 'pull_payment'], deviceUuid: 'till-1' });
  const till: Auth = { auth: { bearer: token } };
  const designId = (await api.post('/design/create', { title: 'Cafe Gift', currency: 'USD', design_type: 'gl_design' }, cafe.auth)).body.id;
  const plan = (await api.post(`/design/${designId}/plan/create`, { title: 'Gift' }, cafe.auth)).body.plan_id;
  const added = await api.post(`/design/${designId}/agreement/add`, { uid: `service:${books.id}`, redeemer: true, terms_text: 'Standard terms' }, cafe.auth);
  assert.is((await api.post(`/design/${designId}/agreement/${added.body.agreement.id}/activate`, {}, books.auth)).status, 200);
  await issue(server, cafe.id, `${customers * 20}.00`);
  const amounts = `${designId}-USD-10.00`;
  const people: { person: Actor; processor: Auth }[] = [];
  for (let index = 0; index < customers; index += 1) {
    const person = await customer();
    const sent = await api.post(`/design/${designId}/send`, { recipient_uid: `service:${person.id}`, distribution_plan_id: plan, amount: '20.00' }, cafe.auth);
    assert.is(sent.status, 200, sent.text);
    assert.is((await api.post('/wallet/pull-consent', { merchant_uid: `service:${books.id}` }, person.auth)).status, 200);
    people.push({ person, processor: await processorTokenOf(server, app, person.id) });
  }
  const payment = (path: string, { person, processor }: { person: Actor; processor: Auth }) => ({
    path,
    pay: () => path === 'send' ? api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts }, person.auth)
      : path === 'pull' ? api.post('/pull/redeem', { sender_uid: `service:${person.id}`, amounts }, till)
        : api.post('/proc/send', { sender_id: person.id, recipient_id: books.id, amounts }, processor),
  });
  // A redeemer without payment codes: wallet sends, pulls and processor sends redeem at once.
  await atOnce('sends, pulls and processor sends', people.map((member, index) => payment(paths[index % 3], member)));
  assert.is(await usd(server, books.id), `${customers * 10}.00`, 'every payment settled from the reserve');
  // With payment codes (support_paycode) a wallet send to the redeemer makes a code; the terminal takes codes
  // made before while others send (making codes), are pulled and pay through their processor.
  await server.engine.services.profiles.setFlags(server.engine.sql, books.id, { supportPaycode: true });
  const codeOf = (answer: Answer) => answer.body.transfer.payment_codes[0].code as string;
  const take = (paycode: string) => api.post('/wallet/receive', { paycode, currency: 'USD', amount: '10.00' }, till);
  const earlier: string[] = [];
  for (const [index, { person }] of people.entries()) {
    if (paths[index % paths.length] !== 'payment code') continue;
    const code = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: 'any-USD-10.00' }, person.auth);
    assert.is(code.status, 200, code.text);
    earlier.push(codeOf(code));
  }
  const mixed = people.map((member, index) => paths[index % paths.length] === 'payment code'
    ? { path: 'payment code', pay: () => take(earlier.shift()!) }
    : payment(paths[index % paths.length], member));
  const answers = await atOnce('sends, pulls, processor sends and payment-code sales', mixed);
  const later = answers.filter((_, index) => mixed[index].path === 'send').map(codeOf);
  await atOnce('payment-code sales of the codes the sends made', later.map((paycode) => ({ path: 'payment code', pay: () => take(paycode) })));
  assert.is(await brand(books.id, designId), '0.00', 'every payment was redeemed in its command');
  assert.is(await usd(server, books.id), `${customers * 20}.00`, 'and settled from the reserve');
  for (const { person } of people) assert.is(await brand(person.id, designId), '0.00');
  await assertAudit('mixed sends, pulls, processor sends and payment codes at one redeemer');
});

test.run();
