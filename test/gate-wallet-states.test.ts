// Proves the gate's wallet rung on every path that moves cash (issue 34 item 5, issue 38): a suspended settler pays no settlement, a payment-code correction takes nothing more from a suspended customer, a closed wallet takes no invitation or payment-code cash, a skipped payment-code wait keeps max_per_wallet, and tokens of wallets that are not active do not authenticate.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { wellFormedDecimal } from '../engine/money.ts';
import { userToken, type TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld, usd } from './ledger-api-support.ts';
import { ledgerFingerprint } from './ledger-support.ts';
import { assertRefused, startTestServer, type TestServer } from './support/http.ts';
import { brandPermissions, brandWorld, type Actor, type Auth } from './support/brand-world.ts';
import { glDesigns } from './support/gl-designs.ts';
import { captureEmails, type SentEmails } from './support/invitation-codes.ts';

let server: TestServer;
let app: TestApp;
let emails: SentEmails;
const { api, business, customer, assertAudit, brand } = brandWorld(() => ({ server, app }), { businessPermissions: [...brandPermissions, 'manage_received', 'manage_sent'] });
const operator = { auth: { operator: true as const } };

let cafe: Actor;
let books: Actor;
let till: Auth;
const { design, give } = glDesigns(api, () => cafe);

test.before(async () => {
  server = await startTestServer();
  emails = captureEmails(server);
  app = (await ledgerWorld(server)).app;
  cafe = await business('Cafe', ['design_gl']);
  books = await business('Book Nook');
  await server.engine.services.profiles.setFlags(server.engine.sql, books.id, { supportPaycode: true });
  till = { auth: { bearer: await userToken(server, app, books.id, { personalProfileId: books.managerId, concurrent: true, permissions: brandPermissions, deviceUuid: 'till-1' }) } };
  await issue(server, cafe.id, '500.00');
});

test.after(async () => {
  await server.close();
});

async function setWallet(profileId: string, action: 'suspend' | 'unsuspend' | 'close'): Promise<void> {
  const changed = await server.client.post(`/admin/profiles/${profileId}/wallet`, { action }, operator);
  assert.is(changed.status, 200, changed.text);
}

/** A send of `amounts` from `from` to the book shop as a payment code; answers the code and its transfer. */
async function paycode(from: Actor, amounts: string): Promise<{ code: string; transferId: string }> {
  const sent = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts }, from.auth);
  assert.is(sent.status, 200, sent.text);
  return { code: sent.body.transfer.payment_codes[0].code as string, transferId: sent.body.transfer.id as string };
}

test('a suspended settler pays no settlement, nor a closed one; its token does not authenticate', async () => {
  const [settler, redeemer] = [await business('Settle Co'), await business('Redeemer')];
  const unfunded = await design('Loyalty', {
    recipients: [{ percentage: '100', loop_id: '0', recipient_type: 'discount', recipient_id: '0' }],
    agreements: [[redeemer, { redeemer: true }], [settler, { settler: true }]],
  });
  const kim = await customer();
  await give(unfunded, kim, '10.00');
  assert.is((await api.post('/wallet/send', { recipient_uid: `service:${redeemer.id}`, amounts: `${unfunded.id}-USD-10.00` }, kim.auth)).status, 200);
  await issue(server, settler.id, '50.00');
  const before = await ledgerFingerprint(server.engine);
  await setWallet(settler.id, 'suspend');
  assertRefused(await api.post(`/design/${unfunded.id}/settle`, {}, settler.auth), 401, 'invalid_token');
  // The operator's settle pays from the design's settler: the gate refuses its wallet.
  const byOperator = await server.client.post(`/admin/designs/${unfunded.id}/settle`, {}, operator);
  assert.is(byOperator.status, 400, byOperator.text);
  assert.is(byOperator.body.send_errors[0].code, 'sender_wallet_not_active');
  await setWallet(settler.id, 'close');
  const closed = await server.client.post(`/admin/designs/${unfunded.id}/settle`, {}, operator);
  assert.is(closed.status, 400, closed.text);
  assert.is(closed.body.send_errors[0].code, 'sender_wallet_not_active');
  assert.is(await ledgerFingerprint(server.engine), before, 'nothing moved');
  assert.is(await usd(server, settler.id), '50.00');
  await assertAudit('suspended settler');
});

test("a payment-code correction takes nothing more from a suspended customer; the merchant's token still works", async () => {
  const pat = await customer();
  await issue(server, pat.id, '30.00');
  const { code } = await paycode(pat, '0-USD-20.00');
  assert.is((await api.post('/wallet/receive', { paycode: code, currency: 'USD', amount: '10.00' }, till)).status, 200);
  assert.is(await usd(server, pat.id), '20.00', 'the other 10.00 came back from escrow');
  await setWallet(pat.id, 'suspend');
  const before = await ledgerFingerprint(server.engine);
  const more = await api.post('/wallet/receive', { paycode: code, currency: 'USD', amount: '20.00' }, till);
  assert.is(more.status, 400, more.text);
  assert.is(more.body.send_errors[0].code, 'sender_wallet_not_active');
  assert.is(await ledgerFingerprint(server.engine), before, 'nothing moved');
  assert.is(await usd(server, pat.id), '20.00');
  await setWallet(pat.id, 'unsuspend');
  assert.is((await api.post('/wallet/receive', { paycode: code, currency: 'USD', amount: '20.00' }, till)).status, 200);
  assert.is(await usd(server, pat.id), '10.00');
  await assertAudit('correction from a suspended customer');
});

test('a closed wallet takes no invitation cash: its token is refused, and the gate refuses the accept itself', async () => {
  const alice = await customer();
  const kim = await customer();
  await issue(server, alice.id, '5.00');
  const invited = await api.post('/wallet/send', { recipient_uid: 'email:closed.kim@example.com', amounts: '0-USD-3.00', invitation_type: 'code_shared' }, alice.auth);
  assert.is(invited.status, 200, invited.text);
  const code = await emails.codeSentTo('closed.kim@example.com');
  await setWallet(kim.id, 'close');
  const before = await ledgerFingerprint(server.engine);
  assertRefused(await api.post('/wallet/accept-code', { code }, kim.auth), 401, 'invalid_token');
  const accepted = await server.engine.services.ledger.transfers.acceptCode({ callerId: kim.id, code });
  assert.is(accepted.ok, false);
  assert.equal(!accepted.ok && accepted.sendErrors?.map((problem) => problem.code), ['recipient_wallet_closed']);
  assert.is(await ledgerFingerprint(server.engine), before, 'nothing moved');
  await assertAudit('invitation to a closed wallet');
});

test('a closed business takes no payment-code cash: its till is refused, and the gate refuses the receipt itself', async () => {
  const shop = await business('Closing Shop');
  await server.engine.services.profiles.setFlags(server.engine.sql, shop.id, { supportPaycode: true });
  const pat = await customer();
  await issue(server, pat.id, '10.00');
  const sent = await api.post('/wallet/send', { recipient_uid: `service:${shop.id}`, amounts: '0-USD-10.00' }, pat.auth);
  assert.is(sent.status, 200, sent.text);
  const code = sent.body.transfer.payment_codes[0].code as string;
  await setWallet(shop.id, 'close');
  const before = await ledgerFingerprint(server.engine);
  assertRefused(await api.post('/wallet/receive', { paycode: code, currency: 'USD', amount: '10.00' }, shop.auth), 401, 'invalid_token');
  const received = await server.engine.services.ledger.transfers.receive({ recipientId: shop.id, paycode: code, currency: 'USD', amount: wellFormedDecimal('10.00') });
  assert.is(received.ok, false);
  assert.equal(!received.ok && received.sendErrors?.map((problem) => problem.code), ['recipient_wallet_closed']);
  assert.is(await ledgerFingerprint(server.engine), before, 'nothing moved');
  await assertAudit('payment code to a closed wallet');
});

test("skipping a payment code's wait keeps the recipient's max_per_wallet", async () => {
  // A shop that redeems the design by agreement accepts it; a skip lands it unredeemed, so the cap binds.
  const shop = await business('Capped Shop');
  await server.engine.services.profiles.setFlags(server.engine.sql, shop.id, { supportPaycode: true });
  const capped = await design('Capped codes', { rules: { max_per_wallet: '30.00' }, agreements: [[shop, { redeemer: true }]] });
  const pat = await customer();
  await give(capped, pat, '20.00');
  const sent = await api.post('/wallet/send', { recipient_uid: `service:${shop.id}`, amounts: `${capped.id}-USD-20.00` }, pat.auth);
  assert.is(sent.status, 200, sent.text);
  assert.ok(sent.body.transfer.payment_codes?.length, 'the send waits for a payment code');
  const transferId = sent.body.transfer.id as string;
  await give(capped, shop, '20.00');
  assert.is(await brand(shop.id, capped.id), '20.00');
  const before = await ledgerFingerprint(server.engine);
  const skipped = await api.post(`/t/${transferId}/skip`, {}, pat.auth);
  assert.is(skipped.status, 400, skipped.text);
  assert.is(skipped.body.send_errors[0].code, 'max_per_wallet');
  assert.is(await ledgerFingerprint(server.engine), before, 'nothing moved');
  assert.is(await brand(shop.id, capped.id), '20.00');
  await assertAudit('skip under the cap');
});

test.run();
