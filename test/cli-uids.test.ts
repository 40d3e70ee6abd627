// Proves one UID rule across the operator CLI and the admin API: every command naming a profile takes
// service:<id>, the bare id, email:/phone:/username: and a bare email or +phone; a UID naming no
// profile exits 1 with the forms listed; the API answers 404 (not an empty list) for its holdings.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addBusiness, addIndividual, createApp } from './foundation-helpers.ts';
import { runOperatorCli } from './support/cli.ts';
import { startTestServer, type TestServer } from './support/http.ts';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
});
test.after(async () => server.close());

const cli = (...args: string[]) => runOperatorCli(server.baseUrl, args);
const operator = { auth: { operator: true } } as const;
const forms = 'A UID is one of: service:<id> or the bare 10-digit id; email:<address> or the address; phone:<number> or +<E.164 number>; username:<name>.';

/** Two people, one signed up with an email (and given a username), one with a phone; the forms naming each. */
async function people(): Promise<{ id: string; names: string[] }[]> {
  const suffix = String(Date.now() % 1_000_000).padStart(6, '0');
  const email = `uid${suffix}@example.com`;
  const phone = `+1555${suffix.slice(0, 3)}0${suffix.slice(3, 6)}`;
  const create = async (uid: string) => {
    const created = await cli('--json', 'profile', 'create', '--first-name', 'Uma', '--last-name', 'Id', '--uid', uid);
    assert.is(created.code, 0, created.out);
    return JSON.parse(created.stdout).id as string;
  };
  const byEmail = await create(email);
  assert.is((await cli('profile', 'set', email, '--username', `uma${suffix}`)).code, 0);
  const byPhone = await create(phone);
  return [
    { id: byEmail, names: [`service:${byEmail}`, byEmail, `email:${email}`, email, `EMAIL:${email.toUpperCase()}`, `username:uma${suffix}`] },
    { id: byPhone, names: [`phone:${phone}`, phone, `phone:${phone.slice(0, 2)} ${phone.slice(2, 5)} ${phone.slice(5)}`] },
  ];
}

test('cash issue --to, cash holdings and profile show take every UID form the API takes', async () => {
  const app = await createApp(server);
  const reserve = await addBusiness(server, app, await addIndividual(server, app), 'UID Reserve');
  assert.is((await cli('profile', 'feature', 'add', reserve, 'issue_open_loop')).code, 0);
  assert.is((await cli('cash', 'issuer', '--uid', `service:${reserve}`)).code, 0);
  for (const pat of await people()) for (const [index, name] of pat.names.entries()) {
    const issued = await cli('cash', 'issue', '--to', name, '--amount', '1.00', '--currency', 'USD');
    assert.is(issued.code, 0, `${name}: ${issued.out}`);
    assert.match(issued.stdout, `to ${pat.id}`);
    const holdings = await cli('cash', 'holdings', name);
    assert.is(holdings.code, 0, `${name}: ${holdings.out}`);
    assert.match(holdings.stdout, new RegExp(`0\\s+USD\\s+${index + 1}\\.00`), name);
    assert.match((await cli('profile', 'show', name)).stdout, new RegExp(`^id\\s+${pat.id}$`, 'm'));
  }
});

test('a UID naming no profile exits 1 with the forms, in every command that names a profile', async () => {
  const commands = [
    ['cash', 'holdings', 'service:9999999999'],
    ['cash', 'holdings', '9999999999'],
    ['cash', 'issue', '--to', 'nobody@example.com', '--amount', '1.00', '--currency', 'USD'],
    ['profile', 'show', 'username:nobody-here'],
    ['profile', 'feature', 'add', '9999999999', 'bill'],
    ['profile', 'wallet', 'phone:+15550009999', 'suspend'],
    ['account', 'list', '--profile', 'email:nobody@example.com'],
    ['design', 'create', '--issuer', '9999999999', '--title', 'X', '--currency', 'USD'],
    ['webhook', 'list', '--uid', 'service:9999999999'],
    ['offer', 'list', '--profile', '9999999999'],
  ];
  for (const args of commands) {
    const run = await cli(...args);
    assert.is(run.code, 1, args.join(' '));
    assert.match(run.stderr, 'no profile has this UID', args.join(' '));
    assert.match(run.stderr, forms, args.join(' '));
  }
  const unreadable = await cli('cash', 'holdings', 'not a uid!');
  assert.is(unreadable.code, 1);
  assert.match(unreadable.stderr, forms);
  const json = await cli('--json', 'cash', 'holdings', '9999999999');
  assert.is(json.code, 1);
  assert.is(JSON.parse(json.stderr).error, 'profile_not_found');
});

test('the admin API answers 404 with the error body for an unknown profile\'s holdings, and takes a UID in the path', async () => {
  const missing = await server.client.get('/admin/ledger/holdings/9999999999', undefined, operator);
  assert.is(missing.status, 404, missing.text);
  assert.is(missing.body.error, 'not_found');
  assert.match(missing.body.error_description, 'No profile has the UID 9999999999');
  const app = await createApp(server);
  const id = await addIndividual(server, app);
  const byService = await server.client.get(`/admin/ledger/holdings/service:${id}`, undefined, operator);
  assert.is(byService.status, 200, byService.text);
  assert.equal(byService.body, { holdings: [] });
  assert.is((await server.client.get(`/admin/profiles/service:${id}`, undefined, operator)).body.profile.id, id);
  const issued = await server.client.post('/admin/ledger/issue', { to_uid: 'nobody@example.com', amount: '1.00', currency: 'USD' }, operator);
  assert.is(issued.status, 400);
  assert.match(issued.body.invalid.to_uid, 'no profile has this UID');
});

test.run();
