// Proves the gate's ladder over HTTP (issue 20): a closed-loop token moves no open loop cash on
// settlement, bills or retraction; /proc/send keeps the holding rules; max_per_wallet holds under
// concurrent sends; a pull's dedup_id answers only for the same request (409 dedup_id_reused
// otherwise); a payment-code sale at a redeemer redeems (issue 21 item 3). The audit balances after each.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp, userToken, type TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld, usd } from './ledger-api-support.ts';
import { ledgerFingerprint } from './ledger-support.ts';
import { startTestServer, type TestServer } from './support/http.ts';
import { brandPermissions, brandWorld, type Actor, type Auth } from './support/brand-world.ts';
import { glDesigns } from './support/gl-designs.ts';
import { closedLoopTokenOf, processorTokenOf } from './support/gate-tokens.ts';

let server: TestServer;
let app: TestApp;
const { api, business, customer, assertAudit, brand } = brandWorld(() => ({ server, app }), { businessPermissions: [...brandPermissions, 'manage_received', 'manage_sent'] });

let cafe: Actor;
let books: Actor;
let till: Auth;
const { design, give } = glDesigns(api, () => cafe);

test.before(async () => {
  server = await startTestServer();
  app = (await ledgerWorld(server)).app;
  cafe = await business('Cafe', ['design_gl', 'bill']);
  books = await business('Book Nook', ['pull_payment']);
  const token = await userToken(server, app, books.id, { personalProfileId: books.managerId, concurrent: true, permissions: [...brandPermissions, 'pull_payment'], deviceUuid: 'till-1' });
  till = { auth: { bearer: token } };
  await issue(server, cafe.id, '2000.00');
});

test.after(async () => {
  await server.close();
});

/** A token from POST /p/token, taken by another app of the site (closed loop cash rights only). */
const closedLoopToken = async (actor: Actor): Promise<Auth> => closedLoopTokenOf(server, await createApp(server), actor);
const processorToken = (profileId: string): Promise<Auth> => processorTokenOf(server, app, profileId);

test('finding 1: a closed-loop token of a settler cannot pay settlements from its open loop cash', async () => {
  const settler = await business('Settle Co');
  const unfunded = await design('Loyalty', {
    recipients: [{ percentage: '100', loop_id: '0', recipient_type: 'discount', recipient_id: '0' }],
    agreements: [[books, { redeemer: true }], [settler, { settler: true }]],
  });
  const kim = await customer();
  await give(unfunded, kim, '10.00');
  const paid = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: `${unfunded.id}-USD-10.00` }, kim.auth);
  assert.is(paid.status, 200, paid.text);
  await issue(server, settler.id, '50.00');
  const before = await ledgerFingerprint(server.engine);
  const closed = await api.post(`/design/${unfunded.id}/settle`, {}, await closedLoopToken(settler));
  assert.is(closed.status, 400, closed.text);
  assert.is(closed.body.send_errors[0].code, 'open_loop_not_permitted');
  assert.equal(await ledgerFingerprint(server.engine), before, 'nothing moved');
  const full = await api.post(`/design/${unfunded.id}/settle`, {}, settler.auth);
  assert.is(full.status, 200, full.text);
  assert.is(await usd(server, settler.id), '40.00');
  await assertAudit('settle');
});

test('finding 1: a bill by a closed-loop token that would fund the reserve from open loop cash is refused', async () => {
  const gift = await design('Gift bills');
  const pat = await customer();
  const before = await ledgerFingerprint(server.engine);
  const billed = await api.post(`/design/${gift.id}/bill`, { amount: '40.00', distribution_plan_id: gift.plan, sender_uid: `service:${pat.id}` }, await closedLoopToken(cafe));
  assert.is(billed.status, 400, billed.text);
  assert.is(billed.body.send_errors[0].code, 'open_loop_not_permitted');
  assert.equal(await ledgerFingerprint(server.engine), before);
  const full = await api.post(`/design/${gift.id}/bill`, { amount: '40.00', distribution_plan_id: gift.plan, sender_uid: `service:${pat.id}` }, cafe.auth);
  assert.is(full.status, 200, full.text);
});

test('finding 1: a closed-loop token cannot retract a transfer holding open loop cash', async () => {
  const alice = await customer();
  await issue(server, alice.id, '20.00');
  const sent = await api.post('/wallet/send', { recipient_uid: 'email:nobody-yet@example.com', amounts: '0-USD-15.00' }, alice.auth);
  assert.is(sent.status, 200, sent.text);
  const before = await ledgerFingerprint(server.engine);
  const retracted = await api.post(`/t/${sent.body.transfer.id}/retract`, { reason: 'other' }, await closedLoopToken(alice));
  assert.ok(retracted.status === 400 || retracted.status === 403, retracted.text);
  assert.equal(await ledgerFingerprint(server.engine), before);
  assert.is(await usd(server, alice.id), '5.00');
  const fullToken = await userToken(server, app, alice.id, { concurrent: true });
  const full = await api.post(`/t/${sent.body.transfer.id}/retract`, { reason: 'other' }, { auth: { bearer: fullToken } });
  assert.is(full.status, 200, full.text);
  assert.is(await usd(server, alice.id), '20.00');
  await assertAudit('retract');
});

test('finding 2: /proc/send keeps transferable: false and max_per_wallet', async () => {
  const locked = await design('Staff meals', { rules: { transferable: false, max_per_wallet: '50.00' } });
  const pat = await customer();
  const friend = await customer();
  await give(locked, pat, '50.00');
  await give(locked, friend, '30.00');
  const before = await ledgerFingerprint(server.engine);
  const viaWallet = await api.post('/wallet/send', { recipient_uid: `service:${friend.id}`, amounts: `${locked.id}-USD-30.00` }, pat.auth);
  assert.is(viaWallet.body.send_errors?.[0]?.code, 'not_transferable', viaWallet.text);
  const viaProcessor = await api.post('/proc/send', { sender_id: pat.id, recipient_id: friend.id, amounts: `${locked.id}-USD-30.00` }, await processorToken(pat.id));
  assert.is(viaProcessor.status, 400, viaProcessor.text);
  assert.is(viaProcessor.body.send_errors[0].code, 'not_transferable');
  assert.equal(await ledgerFingerprint(server.engine), before);
  assert.is(await brand(friend.id, locked.id), '30.00');
  await api.patch(`/design/${locked.id}`, { transferable: true }, cafe.auth);
  const overCap = await api.post('/proc/send', { sender_id: pat.id, recipient_id: friend.id, amounts: `${locked.id}-USD-25.00` }, await processorToken(pat.id));
  assert.is(overCap.status, 400, overCap.text);
  assert.is(overCap.body.send_errors[0].code, 'max_per_wallet');
  assert.equal(await ledgerFingerprint(server.engine), before);
  await assertAudit('processor holding rules');
});

test('finding 3: max_per_wallet holds when ten holders send to one person at once', async () => {
  const capped = await design('Capped', { rules: { max_per_wallet: '50.00' } });
  const holders: Actor[] = [];
  for (let index = 0; index < 10; index += 1) {
    const holder = await customer();
    await give(capped, holder, '10.00');
    holders.push(holder);
  }
  const target = await customer();
  const answers = await Promise.all(holders.map((holder) => api.post('/wallet/send', { recipient_uid: `service:${target.id}`, amounts: `${capped.id}-USD-10.00` }, holder.auth)));
  const statuses = answers.map((answer) => answer.status);
  assert.is(statuses.filter((status) => status === 200).length, 5, statuses.join(','));
  for (const answer of answers.filter((answer) => answer.status !== 200)) {
    assert.is(answer.status, 400, answer.text);
    assert.is(answer.body.send_errors[0].code, 'max_per_wallet');
  }
  assert.is(await brand(target.id, capped.id), '50.00');
  await assertAudit('cap under concurrency');
});

test("finding 3: a wallet's own cash waiting in escrow counts toward max_per_wallet, so its return cannot take the wallet over", async () => {
  const capped = await design('Capped escrow', { rules: { max_per_wallet: '30.00' } });
  const [pat, friend] = [await customer(), await customer()];
  await give(capped, pat, '20.00');
  await give(capped, friend, '30.00');
  // Pat's 20.00 waits for an address nobody has claimed: it is still Pat's.
  const waiting = await api.post('/wallet/send', { recipient_uid: 'email:nobody-escrow@example.com', amounts: `${capped.id}-USD-20.00` }, pat.auth);
  assert.is(waiting.status, 200, waiting.text);
  assert.is(await brand(pat.id, capped.id), '0.00');
  const over = await api.post('/wallet/send', { recipient_uid: `service:${pat.id}`, amounts: `${capped.id}-USD-30.00` }, friend.auth);
  assert.is(over.status, 400, over.text);
  assert.is(over.body.send_errors[0].code, 'max_per_wallet');
  const within = await api.post('/wallet/send', { recipient_uid: `service:${pat.id}`, amounts: `${capped.id}-USD-10.00` }, friend.auth);
  assert.is(within.status, 200, within.text);
  const retracted = await api.post(`/t/${waiting.body.transfer.id}/retract`, { reason: 'wrong_recipient' }, pat.auth);
  assert.is(retracted.status, 200, retracted.text);
  assert.is(await brand(pat.id, capped.id), '30.00', 'back from escrow, at the cap and not over it');
  await assertAudit('escrow under the cap');
});

test('finding 4: a pull dedup_id answers only for the same request; another customer gets 409 dedup_id_reused', async () => {
  const gift = await design('Gift pulls', { agreements: [[books, { redeemer: true }]] });
  const pat = await customer();
  const pat2 = await customer();
  for (const holder of [pat, pat2]) {
    await give(gift, holder, '30.00');
    assert.is((await api.post('/wallet/pull-consent', { merchant_uid: `service:${books.id}` }, holder.auth)).status, 200);
  }
  const first = await api.post('/pull/redeem', { sender_uid: `service:${pat.id}`, amounts: `${gift.id}-USD-5.00`, dedup_id: 'order-1' }, till);
  assert.is(first.status, 200, first.text);
  const repeat = await api.post('/pull/redeem', { sender_uid: `service:${pat.id}`, amounts: `${gift.id}-USD-5.00`, dedup_id: 'order-1' }, till);
  assert.is(repeat.status, 200, repeat.text);
  assert.is(repeat.body.transfer.id, first.body.transfer.id);
  const before = await ledgerFingerprint(server.engine);
  const other = await api.post('/pull/redeem', { sender_uid: `service:${pat2.id}`, amounts: `${gift.id}-USD-12.00`, dedup_id: 'order-1' }, till);
  assert.is(other.status, 409, other.text);
  assert.is(other.body.error, 'dedup_id_reused');
  const otherAmount = await api.post('/pull/redeem', { sender_uid: `service:${pat.id}`, amounts: `${gift.id}-USD-6.00`, dedup_id: 'order-1' }, till);
  assert.is(otherAmount.status, 409, otherAmount.text);
  assert.equal(await ledgerFingerprint(server.engine), before);
  assert.is(await brand(pat2.id, gift.id), '30.00');
  await assertAudit('pull dedup');
});

test('issue 21 item 3: a payment-code sale at a redeemer redeems the brand cash and settles it in the same command', async () => {
  const gift = await design('Gift codes', { agreements: [[books, { redeemer: true }]] });
  await server.engine.services.profiles.setFlags(server.engine.sql, books.id, { supportPaycode: true });
  const pat = await customer();
  await give(gift, pat, '30.00');
  const booksCash = await usd(server, books.id);
  const sent = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: 'any-USD-20.00' }, pat.auth);
  assert.is(sent.status, 200, sent.text);
  const code = sent.body.transfer.payment_codes[0].code as string;
  const received = await api.post('/wallet/receive', { paycode: code, currency: 'USD', amount: '18.50' }, till);
  assert.is(received.status, 200, received.text);
  assert.is(await brand(books.id, gift.id), '0.00', 'the redeemer holds none of the brand cash');
  assert.is(BigInt((await usd(server, books.id)).replace('.', '')) - BigInt(booksCash.replace('.', '')), 1850n, 'settled from the reserve');
  assert.is(await brand(pat.id, gift.id), '11.50');
  const movements = await server.engine.sql<{ action: string }[]>`select action from movements where transfer_id = ${sent.body.transfer.id} order by number, line`;
  assert.equal([...new Set(movements.map((row) => row.action))], ['move', 'redeem', 'settle']);
  const rows = await server.engine.sql<{ received_amount: bigint }[]>`select received_amount from receivables where transfer_id = ${sent.body.transfer.id} and profile_id = ${books.id}`;
  assert.equal(rows.map((row) => row.received_amount), [1850n], 'the sale is a row of the redeemer\'s report');
  await assertAudit('payment code at a redeemer');
});

test('a payment-code correction down at a redeemer refunds only cash the code brought and the redeemer still holds (4xx, never 500)', async () => {
  const gift = await design('Gift refunds', { agreements: [[books, { redeemer: true }]] });
  await server.engine.services.profiles.setFlags(server.engine.sql, books.id, { supportPaycode: true });
  const [pat, friend] = [await customer(), await customer()];
  await give(gift, pat, '10.00');
  await issue(server, pat.id, '20.00');
  const sent = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: 'any-USD-20.00' }, pat.auth);
  assert.is(sent.status, 200, sent.text);
  const code = sent.body.transfer.payment_codes[0].code as string;
  // The till takes 5.00: brand cash, redeemed as it arrives. Pat then gives its other brand cash away.
  assert.is((await api.post('/wallet/receive', { paycode: code, currency: 'USD', amount: '5.00' }, till)).status, 200);
  assert.is(await brand(books.id, gift.id), '0.00');
  assert.is((await api.post('/wallet/send', { recipient_uid: `service:${friend.id}`, amounts: `${gift.id}-USD-5.00` }, pat.auth)).status, 200);
  // Up to 10.00: 5.00 more, open loop cash now. Down to 1.00 would refund 9.00, but only the 5.00 of
  // open loop cash can come back (the brand cash left circulation at the redeemer).
  const up = await api.post('/wallet/receive', { paycode: code, currency: 'USD', amount: '10.00' }, till);
  assert.is(up.status, 200, up.text);
  const before = await ledgerFingerprint(server.engine);
  const down = await api.post('/wallet/receive', { paycode: code, currency: 'USD', amount: '1.00' }, till);
  assert.is(down.status, 400, down.text);
  assert.equal(await ledgerFingerprint(server.engine), before, 'a refused correction changes nothing');
  const within = await api.post('/wallet/receive', { paycode: code, currency: 'USD', amount: '5.00' }, till);
  assert.is(within.status, 200, within.text);
  const rows = await server.engine.sql<{ received_amount: bigint }[]>`select received_amount from receivables where transfer_id = ${sent.body.transfer.id} and profile_id = ${books.id} and settlement_type = 'immediate'`;
  assert.ok(rows.every((row) => row.received_amount >= 0n), rows.map((row) => String(row.received_amount)).join(","));
  await assertAudit('payment code refund at a redeemer');
});

test('issue 21 item 3: brand cash a trade brings to a redeemer (either leg) is redeemed and reported in the same command', async () => {
  const gift = await design('Gift trades', { agreements: [[books, { redeemer: true }]] });
  const pat = await customer();
  await give(gift, pat, '30.00');
  await issue(server, books.id, '50.00');
  const trade = (from: Actor, to: Actor, amounts: string, expected: string) => api.post('/wallet/trade', {
    recipient_uid: `service:${to.id}`, amounts: [{ loop_id: amounts, currency: 'USD', amount: '10.00' }], expect_amounts: [{ loop_id: expected, currency: 'USD', amount: '10.00' }],
  }, from.auth);
  const paidLeg = await trade(books, pat, '0', gift.id);
  assert.is(paidLeg.status, 200, paidLeg.text);
  const escrowLeg = await trade(pat, books, gift.id, '0');
  assert.is(escrowLeg.status, 200, escrowLeg.text);
  for (const [offered, accepter] of [[paidLeg, pat], [escrowLeg, books]] as const) {
    const accepted = await api.post(`/t/${offered.body.transfer.id}/accept-trade`, {}, accepter.auth);
    assert.is(accepted.status, 200, accepted.text);
    assert.is(await brand(books.id, gift.id), '0.00', 'the redeemer holds none of the brand cash');
    const movements = await server.engine.sql<{ action: string }[]>`select action from movements where transfer_id = ${offered.body.transfer.id} order by number, line`;
    assert.ok(movements.some((row) => row.action === 'redeem'), 'the brand cash was redeemed');
    const rows = await server.engine.sql<{ received_amount: bigint }[]>`select received_amount from receivables where transfer_id = ${offered.body.transfer.id} and profile_id = ${books.id}`;
    assert.equal(rows.map((row) => row.received_amount), [1000n], 'the sale is a row of the redeemer\'s report');
  }
  assert.is(await brand(pat.id, gift.id), '10.00');
  await assertAudit('trades at a redeemer');
});

test.run();
