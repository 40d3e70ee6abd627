// Proves that POST /wallet/send's answer, built inside the send's transaction, is exactly (values
// and key order) the TransferDetail and ProfileDetail read back after commit, for every kind of send.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { transferAndProfile } from '../api/routes/ledger.ts';
import type { TokenPrincipal } from '../api/http/principals.ts';
import type { TestServer } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { issue, person, shop, type LedgerWorld, type Person } from './ledger-api-support.ts';

let server: TestServer;
let world: LedgerWorld;
let alice: Person;
let bob: Person;

test.before(async () => {
  ({ server, world } = await startLedgerServer());
  alice = await person(server, world);
  bob = await person(server, world);
  await issue(server, alice.id, '100.00');
});
test.after(async () => server.close());

async function sendAndReadBack(sender: Person, body: Record<string, string>): Promise<{ answered: string; readBack: string; transfer: Record<string, any> }> {
  server.clock.advance(1000);
  const sent = await server.client.post('/wallet/send', body, sender.auth);
  assert.is(sent.status, 200, sent.text);
  const readBack = await transferAndProfile(server.engine, { profileId: sender.id } as TokenPrincipal, sent.body.transfer.id);
  return { answered: JSON.stringify(sent.body), readBack: JSON.stringify(readBack), transfer: sent.body.transfer };
}

test('a completed send with appdata of mixed key lengths, a message and a subject', async () => {
  const { answered, readBack, transfer } = await sendAndReadBack(alice, {
    recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.25', private: 'false', accepted_policy: 'true',
    'appdata.shop.order': 'A-17', 'appdata.zz': 'last', 'appdata.a': 'first', 'appdata.bb': 'middle', 'appdata.é': 'accent',
    message_subject: 'Lunch', message_body: 'Thanks for lunch',
  });
  assert.is(transfer.completed, true);
  assert.is(answered, readBack);
});

test('a send that waits for a payment code shows the code to the sender', async () => {
  const cafe = await shop(server, world, { supportPaycode: true });
  const { answered, readBack, transfer } = await sendAndReadBack(alice, { recipient_uid: `service:${cafe.id}`, amounts: 'any-USD-2.00' });
  assert.is(transfer.next_activity, 'paycode.wait');
  assert.is(transfer.payment_codes.length, 1);
  assert.is(answered, readBack);
});

test('invitations: to a new email, and to a profile without a confirmed email', async () => {
  const invited = await sendAndReadBack(alice, { recipient_uid: 'email:someone-new@example.com', amounts: '0-USD-0.50', invitation_expire_days: '3' });
  assert.is(invited.transfer.next_activity, 'invite.wait');
  assert.is(invited.answered, invited.readBack);
  const required = await sendAndReadBack(alice, { recipient_uid: `service:${bob.id}`, amounts: '0-USD-0.50', require_recipient_email: 'true' });
  assert.is(required.transfer.next_activity, 'invite.wait');
  assert.is(required.answered, required.readBack);
});

test('a business sends; a dedup key answers the same transfer again', async () => {
  const cafe = await shop(server, world);
  await issue(server, cafe.id, '10.00');
  const fromShop = await sendAndReadBack(cafe, { recipient_uid: `service:${alice.id}`, amounts: '0-USD-3.00', dedup_id: 'order-1' });
  assert.is(fromShop.answered, fromShop.readBack);
  const again = await sendAndReadBack(cafe, { recipient_uid: `service:${alice.id}`, amounts: '0-USD-3.00', dedup_id: 'order-1' });
  assert.is(again.transfer.id, fromShop.transfer.id);
  assert.is(again.answered, again.readBack);
});

test.run();
