// Proves hole 9 of issue 8 is closed: a recipient email that is not a deliverable address (non-ASCII, no dot-atom, bad domain) is refused on send and on invitation, and nothing is created; ordinary odd-but-valid addresses still work.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseEmail } from '../engine/uids.ts';
import type { TestServer } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { issue, person, type LedgerWorld } from './ledger-api-support.ts';
import { ledgerFingerprint } from './ledger-support.ts';

let server: TestServer;
let world: LedgerWorld;
test.before(async () => {
  ({ server, world } = await startLedgerServer());
});
test.after(async () => server.close());

const bad = ['ü…ñ@exämple.com', 'a..b@example.com', '.a@example.com', 'a@-example.com', 'a@example.c0m', 'a b@example.com', 'a@example', 'a@exa_mple.com', `${'a'.repeat(65)}@example.com`];
const good = ["o'brien+tag@mail.example.co.uk", 'x_y-z@sub-domain.example.org', 'pat@xn--bcher-kva.example'];

test('the parser refuses addresses no transport can deliver and keeps valid ones', () => {
  for (const address of bad) assert.is(parseEmail(address), null, address);
  for (const address of good) assert.ok(parseEmail(address), address);
});

test('a send to a malformed email makes no waiting invitation transfer; a valid one does', async () => {
  const alice = await person(server, world);
  await issue(server, alice.id, '5.00');
  const before = await ledgerFingerprint(server.engine);
  const sent = await server.client.post('/wallet/send', { recipient_uid: 'email:ü…ñ@exämple.com', amounts: '0-USD-1.00' }, { ...alice.auth, form: true });
  assert.is(sent.status, 400, sent.text);
  assert.is(sent.body.send_errors?.[0]?.field_name, 'recipient_uid');
  assert.equal(await ledgerFingerprint(server.engine), before);
  const valid = await server.client.post('/wallet/send', { recipient_uid: `email:${good[0]}`, amounts: '0-USD-1.00' }, { ...alice.auth, form: true });
  assert.is(valid.status, 200, valid.text);
});

test('an invitation to a malformed email is refused', async () => {
  const answer = await server.client.post('/ai/invite', { email: 'ü…ñ@exämple.com', first_name: 'Ana', last_name: 'Lee', url_template: 'https://example.com/i/{INVITE_ID}', sender_name: 'Shop' }, { auth: world.app.basic });
  assert.is(answer.status, 400, answer.text);
  assert.ok(answer.body.invalid?.email, answer.text);
});

test.run();
