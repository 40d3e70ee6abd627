// Proves hole 7 of issue 8 is closed: a payment code is never stored in clear (a keyed digest finds it, unique among live codes; a sealed copy serves the sender's view), while the interface's behaviour stays: the sender sees the code on the TransferDetail, the recipient never does, and receive and change_paycode_expiration take it (with spaces or dashes).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type TestServer, assertRefused } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { issue, person, shop, type LedgerWorld } from './ledger-api-support.ts';

let server: TestServer;
let world: LedgerWorld;
test.before(async () => {
  ({ server, world } = await startLedgerServer());
});
test.after(async () => server.close());

test('the code is not in the database in clear, and works as before for sender and recipient', async () => {
  const alice = await person(server, world);
  const cafe = await shop(server, world, { supportPaycode: true });
  await issue(server, alice.id, '40.00');
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${cafe.id}`, amounts: 'any-USD-30.00' }, alice.auth);
  assert.is(sent.status, 200, sent.text);
  const transferId = sent.body.transfer.id as string;
  const code = sent.body.transfer.payment_codes[0].code as string;
  assert.match(code, /^\d{4,}$/);

  const rows = await server.engine.sql<{ row: string; code_digest: string | null }[]>`select p::text as row, p.code_digest from paycodes p where transfer_id = ${transferId}`;
  assert.is(rows.length, 1);
  assert.not.ok(rows[0].row.includes(code), 'the code appears in clear in the paycodes row');
  assert.match(rows[0].code_digest ?? '', /^[0-9a-f]{64}$/);

  const senderView = await server.client.get(`/t/${transferId}`, undefined, alice.auth);
  assert.is(senderView.status, 200, senderView.text);
  assert.is(senderView.body.payment_codes[0].code, code, 'the sender still sees the code');
  const recipientView = await server.client.get(`/t/${transferId}`, undefined, cafe.auth);
  assert.equal(recipientView.body.payment_codes, []);

  const wrongCode = await server.client.post(`/t/${transferId}/change_paycode_expiration`, { paycode: '00000000'.slice(0, code.length) === code ? '11111111' : '00000000', expire_seconds: 3600 }, alice.auth);
  assertRefused(wrongCode, 400, 'invalid');
  const extended = await server.client.post(`/t/${transferId}/change_paycode_expiration`, { paycode: code, expire_seconds: 3600 }, alice.auth);
  assert.is(extended.status, 200, extended.text);
  const dashed = `${code.slice(0, 4)}-${code.slice(4)}`;
  const received = await server.client.post('/wallet/receive', { paycode: dashed, currency: 'USD', amount: '12.00' }, { ...cafe.auth, form: true });
  assert.is(received.status, 200, received.text);
  assert.is(received.body.amount_received, '12.00');
});

test('a code no live transfer has is not found', async () => {
  const cafe = await shop(server, world, { supportPaycode: true });
  const answer = await server.client.post('/wallet/receive', { paycode: '12345678', currency: 'USD', amount: '1.00' }, { ...cafe.auth, form: true });
  assert.is(answer.status, 400);
  assert.is(answer.body.error, 'code_not_found', answer.text);
});

test.run();
