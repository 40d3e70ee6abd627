// Proves the ACH funding proxy end to end over HTTP: get-ach needs the get_fund_proxy app
// permission and Basic app credentials, checks the routing number and the parties (the issuer must
// issue USD) and changes nothing when it refuses, answers the same proxy for the same request
// (GET or POST); deposits on the simulated ACH rail issue open loop cash through the issuer (and
// the distributor when named) into the recipient's wallet with the proxy's appdata, visible in
// history, a repeated trace number issues nothing, a closed wallet or an issuer without
// issue_open_loop takes no deposit, and the ledger audit balances after each.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { selectViewRoles } from '../engine/transfers/store.ts';
import { runOperatorCli } from './support/cli.ts';
import { addBusiness, addIndividual, createApp, type TestApp } from './foundation-helpers.ts';
import { person, usd, type LedgerWorld, type Person } from './ledger-api-support.ts';
import type { TestServer } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';

let server: TestServer;
let world: LedgerWorld;
let funder: TestApp;
let pat: Person;
let distributorId: string;
const routing = '021000021';
const operator = { auth: { operator: true as const } };

test.before(async () => {
  ({ server, world } = await startLedgerServer());
  funder = await createApp(server, { permissions: ['get_fund_proxy'], name: 'Funder' });
  pat = await person(server, world, { permissions: ['view_wallet', 'view_history'] });
  distributorId = await addBusiness(server, world.app, await addIndividual(server, world.app), 'Distributor');
});
test.after(async () => server.close());

const getAch = (body: Record<string, unknown>, app: TestApp = funder) => server.client.post('/fundproxy/get-ach', body, { auth: app.basic });
const count = async (table: string) => Number((await server.engine.sql.unsafe(`select count(*)::int as count from ${table}`))[0].count);
const audit = async () => {
  const answer = await server.client.get('/admin/ledger/audit', undefined, operator);
  assert.is(answer.body.ok, true, JSON.stringify(answer.body.problems));
};

test('get-ach: app permission, credentials, routing number and parties are checked; a refusal creates nothing', async () => {
  const valid = { routing_number: routing, issuer_uid: `service:${world.issuerId}`, recipient_uid: `service:${pat.id}` };
  const withoutPermission = await getAch(valid, world.app);
  assert.is(withoutPermission.status, 403, withoutPermission.text);
  assert.is(withoutPermission.body.error, 'app_denied');
  assert.is((await server.client.post('/fundproxy/get-ach', valid)).status, 401);
  for (const [body, field] of [
    [{ ...valid, routing_number: '021000022' }, 'routing_number'],
    [{ ...valid, routing_number: '12345678' }, 'routing_number'],
    [{ ...valid, issuer_uid: `service:${pat.id}` }, 'issuer_uid'],
    [{ ...valid, issuer_uid: 'email:someone@example.com' }, 'issuer_uid'],
    [{ ...valid, recipient_uid: 'service:0000000000' }, 'recipient_uid'],
    [{ ...valid, distributor_uid: 'username:nobody-here' }, 'distributor_uid'],
    [{ ...valid, recipient_uid: undefined }, 'recipient_uid'],
  ] as const) {
    const refused = await getAch(body);
    assert.is(refused.status, 400, `${field}: ${refused.text}`);
    assert.is(refused.body.error, 'invalid');
    assert.ok(refused.body.invalid[field], `${field}: ${refused.text}`);
  }
  assert.is(await count('fund_proxies'), 0);
});

test('get-ach finds parties on its own site only, with one answer for not found and not allowed (issue 25 finding 6)', async () => {
  const otherSite = await createApp(server, { permissions: ['get_fund_proxy', 'create_profile'], name: 'Elsewhere', site: 'elsewhere' });
  const valid = { routing_number: routing, issuer_uid: `service:${world.issuerId}`, recipient_uid: `service:${pat.id}` };
  const answers = await Promise.all([
    getAch(valid, otherSite),
    getAch({ ...valid, issuer_uid: 'service:0000000000' }),
    getAch({ ...valid, issuer_uid: `service:${pat.id}` }),
  ]);
  for (const refused of answers) {
    assert.is(refused.status, 400, refused.text);
    assert.equal(refused.body.invalid, answers[0].body.invalid, 'another site, no profile and not an issuer answer alike');
  }
  const elsewherePerson = await addIndividual(server, otherSite);
  const recipientElsewhere = await getAch({ ...valid, recipient_uid: `service:${elsewherePerson}` });
  assert.is(recipientElsewhere.status, 400, recipientElsewhere.text);
  assert.equal(recipientElsewhere.body.invalid, { recipient_uid: answers[0].body.invalid.issuer_uid });
  assert.is(await count('fund_proxies'), 0);
});

test('get-ach is idempotent over GET and POST; another appdata or distributor is another proxy', async () => {
  const body = { routing_number: routing, issuer_uid: `service:${world.issuerId}`, recipient_uid: `service:${pat.id}`, 'appdata.bank.customer': 'C-17' };
  const first = await getAch(body);
  assert.is(first.status, 200, first.text);
  assert.match(first.body.account_number, /^\d{12}$/);
  assert.equal(first.body.appdata, { 'bank.customer': 'C-17' });
  assert.is(first.body.distributor_id, null);
  const again = await getAch(body);
  assert.equal(again.body, first.body);
  const viaGet = await server.client.get('/fundproxy/get-ach', body, { auth: funder.basic });
  assert.is(viaGet.status, 200, viaGet.text);
  assert.equal(viaGet.body, first.body);
  const other = await getAch({ ...body, 'appdata.bank.customer': 'C-18' });
  assert.is.not(other.body.account_number, first.body.account_number);
  const distributed = await getAch({ ...body, distributor_uid: `service:${distributorId}` });
  assert.is(distributed.body.distributor_id, distributorId);
  assert.is.not(distributed.body.account_number, first.body.account_number);
  assert.is(await count('fund_proxies'), 3);
});

test('a deposit is issued by the issuer into the recipient\'s wallet, with the appdata and movements; a repeated trace issues nothing, and with another amount answers 409', async () => {
  const body = { routing_number: routing, issuer_uid: `service:${world.issuerId}`, recipient_uid: `service:${pat.id}`, 'appdata.bank.customer': 'C-17' };
  const { account_number: account } = (await getAch(body)).body;
  const before = await usd(server, pat.id);
  const deposited = await server.client.post('/admin/fundproxy/deposit', { account_number: account, amount: '25.00', trace_number: 'T-1' }, operator);
  assert.is(deposited.status, 200, deposited.text);
  assert.is(deposited.body.duplicate, false);
  assert.is(await usd(server, pat.id), (Number(before) + 25).toFixed(2));
  const repeated = await server.client.post('/admin/fundproxy/deposit', { account_number: account, amount: '25.00', trace_number: 'T-1' }, operator);
  assert.equal(repeated.body, { transfer_id: deposited.body.transfer_id, duplicate: true });
  assert.is(await usd(server, pat.id), (Number(before) + 25).toFixed(2));
  // The same trace with another amount is another deposit under a used trace: refused, nothing issued (issue 34 item 7).
  const changed = await server.client.post('/admin/fundproxy/deposit', { account_number: account, amount: '26.00', trace_number: 'T-1' }, operator);
  assert.is(changed.status, 409, changed.text);
  assert.is(changed.body.error, 'trace_number_reused');
  assert.is(await usd(server, pat.id), (Number(before) + 25).toFixed(2));
  const history = await server.client.get('/wallet/history', { 'appdata.bank.customer': 'C-17' }, pat.auth);
  assert.is(history.status, 200, history.text);
  const row = history.body.results.find((item: any) => item.id === deposited.body.transfer_id);
  assert.ok(row, history.text);
  assert.is(row.workflow_type, 'receive_ach_confirm');
  assert.is(row.completed, true);
  assert.is(row['appdata.bank.customer'], 'C-17');
  assert.equal(row.movements.map((movement: any) => [movement.number, movement.action]), [[1, 'issue'], [2, 'grant']]);
  await audit();
});

test('a trace number through the one idempotency wrapper: racing repeats issue once; a trace claimed before request digests compares the amount', async () => {
  const body = { routing_number: routing, issuer_uid: `service:${world.issuerId}`, recipient_uid: `service:${pat.id}` };
  const { account_number: account } = (await getAch(body)).body;
  const before = await usd(server, pat.id);
  const deposit = (amount: string) => server.client.post('/admin/fundproxy/deposit', { account_number: account, amount, trace_number: 'RACE-1' }, operator);
  const racing = await Promise.all([1, 2, 3, 4, 5, 6].map(() => deposit('7.00')));
  for (const answer of racing) assert.is(answer.status, 200, answer.text);
  const transferId = racing[0].body.transfer_id;
  assert.equal([...new Set(racing.map((answer) => answer.body.transfer_id))], [transferId], 'every repeat answers the one deposit');
  assert.is(racing.filter((answer) => answer.body.duplicate === false).length, 1, 'one deposit was new');
  assert.is(await usd(server, pat.id), (Number(before) + 7).toFixed(2), 'issued once');
  const [claimed] = await server.engine.sql<{ request_digest: string | null }[]>`select request_digest from fund_proxy_deposits where trace_number = 'RACE-1'`;
  assert.ok(claimed.request_digest, 'the trace keeps its request\'s digest');
  // A trace claimed before migration 1050 has no digest: the first deposit's amount and currency decide.
  await server.engine.sql`update fund_proxy_deposits set request_digest = null where trace_number = 'RACE-1'`;
  assert.equal((await deposit('7.00')).body, { transfer_id: transferId, duplicate: true });
  const changed = await deposit('7.01');
  assert.is(changed.status, 409, changed.text);
  assert.is(changed.body.error, 'trace_number_reused');
  assert.is(await usd(server, pat.id), (Number(before) + 7).toFixed(2), 'nothing more issued');
  await audit();
});

test('with a distributor: issue, grant to the distributor, passed on to the recipient; the distributor holds nothing', async () => {
  const body = { routing_number: routing, issuer_uid: `service:${world.issuerId}`, distributor_uid: `service:${distributorId}`, recipient_uid: `service:${pat.id}` };
  const { account_number: account } = (await getAch(body)).body;
  const before = await usd(server, pat.id);
  const deposited = await server.client.post('/admin/fundproxy/deposit', { account_number: account, amount: '10.50' }, operator);
  assert.is(deposited.status, 200, deposited.text);
  assert.is(await usd(server, pat.id), (Number(before) + 10.5).toFixed(2));
  assert.is(await usd(server, distributorId), '0.00');
  const movements = await server.engine.sql`select number, action, from_id, to_id from movements where transfer_id = ${deposited.body.transfer_id} order by number`;
  assert.equal(movements.map((row: any) => [row.action, row.from_id, row.to_id]), [['issue', null, world.issuerId], ['grant', world.issuerId, distributorId], ['move', distributorId, pat.id]]);
  // The issuer and the recipient see it as its parties (the transfer's columns), the distributor as a third party (a row of transfer_views).
  const views = await selectViewRoles(server.engine.sql, deposited.body.transfer_id);
  assert.equal(views.map((row) => row.role).sort(), ['distributor', 'recipient', 'sender']);
  const rows = await server.engine.sql`select profile_id, role from transfer_views where transfer_id = ${deposited.body.transfer_id}`;
  assert.equal(rows.map((row: any) => [row.profile_id, row.role]), [[distributorId, 'distributor']]);
  await audit();
});

test('deposit refusals: unknown account 404, bad amount, currency and trace 400; nothing issued', async () => {
  const issued = async () => (await server.client.get('/admin/ledger/audit', undefined, operator)).body.totals.find((row: any) => row.loop_id === '0' && row.currency === 'USD')?.issued;
  const before = await issued();
  const unknown = await server.client.post('/admin/fundproxy/deposit', { account_number: '000000000000', amount: '1.00' }, operator);
  assert.is(unknown.status, 404, unknown.text);
  assert.is(unknown.body.error, 'not_found');
  const { account_number: account } = (await getAch({ routing_number: routing, issuer_uid: `service:${world.issuerId}`, recipient_uid: `service:${pat.id}` })).body;
  for (const [body, field] of [
    [{ account_number: account, amount: '-1.00' }, 'amount'],
    [{ account_number: account, amount: '1.001' }, 'amount'],
    [{ account_number: account, amount: '1.00', currency: 'EUR' }, 'currency'],
    [{ account_number: account, amount: '1.00', trace_number: 'bad trace!' }, 'trace_number'],
  ] as const) {
    const refused = await server.client.post('/admin/fundproxy/deposit', body, operator);
    assert.is(refused.status, 400, `${field}: ${refused.text}`);
    assert.ok(refused.body.invalid?.[field], `${field}: ${refused.text}`);
  }
  assert.is(await issued(), before);
});

test('money arriving for a closed wallet, or from an issuer that lost issue_open_loop, is refused and issues nothing; the same trace number is taken once the issuer may issue again', async () => {
  const issued = async () => (await server.client.get('/admin/ledger/audit', undefined, operator)).body.totals.find((row: any) => row.loop_id === '0' && row.currency === 'USD')?.issued;
  const leaving = await person(server, world);
  const toClosed = (await getAch({ routing_number: routing, issuer_uid: `service:${world.issuerId}`, recipient_uid: `service:${leaving.id}` })).body.account_number;
  const toPat = (await getAch({ routing_number: routing, issuer_uid: `service:${world.issuerId}`, recipient_uid: `service:${pat.id}`, 'appdata.case': 'issuer' })).body.account_number;
  const before = await issued();
  const closed = await server.client.post(`/admin/profiles/${leaving.id}/wallet`, { action: 'close' }, operator);
  assert.is(closed.status, 200, closed.text);
  const intoClosed = await server.client.post('/admin/fundproxy/deposit', { account_number: toClosed, amount: '5.00', trace_number: 'CLOSED-1' }, operator);
  assert.is(intoClosed.status, 409, intoClosed.text);
  assert.is(intoClosed.body.error, 'recipient_wallet_closed');
  const removed = await server.client.request('DELETE', `/admin/profiles/${world.issuerId}/features/issue_open_loop`, undefined, operator);
  assert.is(removed.status, 200, removed.text);
  const unpermitted = await server.client.post('/admin/fundproxy/deposit', { account_number: toPat, amount: '5.00', trace_number: 'ISSUER-1' }, operator);
  assert.is(unpermitted.status, 409, unpermitted.text);
  assert.is(unpermitted.body.error, 'issuer_not_permitted');
  assert.is(await issued(), before);
  const restored = await server.client.post(`/admin/profiles/${world.issuerId}/features`, { feature: 'issue_open_loop' }, operator);
  assert.is(restored.status, 200, restored.text);
  const later = await server.client.post('/admin/fundproxy/deposit', { account_number: toPat, amount: '5.00', trace_number: 'ISSUER-1' }, operator);
  assert.is(later.status, 200, later.text);
  assert.is(later.body.duplicate, false);
  await audit();
});

test('the CLI deposits through the admin API', async () => {
  const { account_number: account } = (await getAch({ routing_number: routing, issuer_uid: `service:${world.issuerId}`, recipient_uid: `service:${pat.id}`, 'appdata.cli': 'yes' })).body;
  const before = await usd(server, pat.id);
  const run = await runOperatorCli(server.baseUrl, ['fundproxy', 'deposit', account, '3.00', '--trace', 'CLI-1']);
  assert.is(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^transfer \d{16}/);
  const again = await runOperatorCli(server.baseUrl, ['fundproxy', 'deposit', account, '3.00', '--trace', 'CLI-1']);
  assert.match(again.stdout, 'repeated trace number');
  assert.is(await usd(server, pat.id), (Number(before) + 3).toFixed(2));
  const missing = await runOperatorCli(server.baseUrl, ['fundproxy', 'deposit', '999999999999', '3.00']);
  assert.is(missing.code, 1);
  assert.match(missing.stdout + missing.stderr, /no funding proxy/i);
  await audit();
});

test.run();
