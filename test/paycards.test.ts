// Proves paycards over HTTP: linking checks Luhn and the PIN, keeps only a token, the last four
// digits and the PIN's hash, and the simulated network declines its test numbers; list, set-pin,
// suspend, unsuspend and delete; another wallet's card is not found; a suspended card cannot pay;
// permissions view_paycard and link_paycard; the ledger audit is untouched.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { verifySecret } from '../engine/passwords.ts';
import { ledgerWorld, person, type Person } from './ledger-api-support.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';

let server: TestServer;
let pat: Person;
let sam: Person;
const visa = '4111111111111111';
const declined = '4000000000000002';

test.before(async () => {
  server = await startTestServer();
  const world = await ledgerWorld(server);
  pat = await person(server, world, { permissions: ['view_paycard', 'link_paycard', 'view_wallet'] });
  sam = await person(server, world, { permissions: ['view_paycard', 'link_paycard'] });
});
test.after(async () => server.close());

const post = (path: string, body: Record<string, unknown>, who: Person) => server.client.post(path, body, who.auth);

test('link: Luhn and PIN checked first; the network declines its test numbers; only a token, last four and a PIN hash are kept', async () => {
  for (const [body, field] of [[{ pan: '4111111111111112', pin: '1234' }, 'pan'], [{ pan: visa, pin: '12a4' }, 'pin'], [{ pan: visa, pin: '12345' }, 'pin'], [{ pan: '123', pin: '1234' }, 'pan']] as const) {
    const refused = await post('/wallet/paycard/link', body, pat);
    assert.is(refused.status, 400, refused.text);
    assert.ok(refused.body.invalid[field], refused.text);
  }
  const no = await post('/wallet/paycard/link', { pan: declined, pin: '1234' }, pat);
  assert.is(no.status, 200, no.text);
  assert.equal(no.body, { linked: false });
  const yes = await post('/wallet/paycard/link', { pan: '4111 1111 1111 1111', pin: '1234' }, pat);
  assert.equal(yes.body, { linked: true });
  const again = await post('/wallet/paycard/link', { pan: visa, pin: '1234' }, pat);
  assert.equal(again.body, { linked: true }, 'linking the same number again is idempotent');
  const list = await server.client.get('/wallet/paycard/list', undefined, pat.auth);
  assert.is(list.status, 200, list.text);
  assert.is(list.body.cards.length, 1);
  const card = list.body.cards[0];
  assert.match(card.card_id, /^[0-9a-f]{16}$/);
  assert.is(card.pan_redacted, 'XXXXXXXXXXXX1111');
  assert.is(card.suspended, false);
  assert.match(card.expiration, /^\d{4}-\d{2}$/);
  const stored = await server.engine.sql`select * from paycards where card_id = ${card.card_id}`;
  const text = JSON.stringify(stored[0]);
  assert.not.ok(text.includes(visa), 'the full number is not stored');
  assert.not.ok(text.includes('"1234"'), 'the PIN is not stored in clear');
  assert.ok(await verifySecret(stored[0].pin_hash as string, '1234'));
});

test('set-pin, suspend (cannot pay), unsuspend, delete; another wallet cannot touch the card', async () => {
  const card = (await server.client.get('/wallet/paycard/list', undefined, pat.auth)).body.cards[0];
  const foreign = await post('/wallet/paycard/suspend', { card_id: card.card_id }, sam);
  assert.is(foreign.status, 400, foreign.text);
  const badPin = await post('/wallet/paycard/set-pin', { card_id: card.card_id, pin: '99' }, pat);
  assertRefused(badPin, 400, 'invalid');
  const pin = await post('/wallet/paycard/set-pin', { card_id: card.card_id, pin: '4321' }, pat);
  assert.is(pin.status, 200, pin.text);
  const [row] = await server.engine.sql`select pin_hash from paycards where card_id = ${card.card_id}`;
  assert.ok(await verifySecret(row.pin_hash as string, '4321'));
  const authorize = () => server.client.post('/admin/paycards/authorize', { card_id: card.card_id }, { auth: { operator: true } });
  assert.equal((await authorize()).body, { approved: true, reason: null });
  assert.is((await post('/wallet/paycard/suspend', { card_id: card.card_id }, pat)).status, 200);
  let listed = await server.client.get('/wallet/paycard/list', undefined, pat.auth);
  assert.is(listed.body.cards[0].suspended, true);
  assert.equal((await authorize()).body, { approved: false, reason: 'card_suspended' }, 'a suspended card cannot pay');
  assert.is((await post('/wallet/paycard/unsuspend', { card_id: card.card_id }, pat)).status, 200);
  assert.equal((await authorize()).body, { approved: true, reason: null });
  assert.is((await post('/wallet/paycard/delete', { card_id: card.card_id }, pat)).status, 200);
  listed = await server.client.get('/wallet/paycard/list', undefined, pat.auth);
  assert.equal(listed.body.cards, []);
  const gone = await post('/wallet/paycard/unsuspend', { card_id: card.card_id }, pat);
  assert.is(gone.status, 400, 'a deleted card is gone for good');
  const report = await server.engine.services.ledger.cash.audit();
  assert.ok(report.ok, report.problems.join('; '));
});

test('permissions: view_paycard lists, link_paycard changes', async () => {
  const world = await ledgerWorld(server);
  const viewer = await person(server, world, { permissions: ['view_wallet'] });
  assertRefused(await server.client.get('/wallet/paycard/list', undefined, viewer.auth), 403, 'insufficient_scope');
  assertRefused(await post('/wallet/paycard/link', { pan: visa, pin: '1234' }, viewer), 403, 'insufficient_scope');
});

test.run();
