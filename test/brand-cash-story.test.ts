// Proves brand cash in circulation end to end over HTTP: a merchant's design and plans, a
// distributor and a redeemer with active agreements, design sends backed by the reserve, spending
// at the redeemer (redeemed and settled from the reserve), a return to the issuer, expiry under an
// injected clock, and an audit that balances after every step. Every test builds its own world
// (makeWorld()) and runs the earlier steps it stands on as fixtures, so each runs alone:
// npm test -- brand-cash-story -t "<name>".
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { userToken, type TestApp } from './foundation-helpers.ts';
import { issue, usd, type LedgerWorld } from './ledger-api-support.ts';
import { ledgerFingerprint } from './ledger-support.ts';
import { type TestServer, assertRefused } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { brandPermissions, brandWorld, type Actor, type Auth } from './support/brand-world.ts';

let server: TestServer;
let world: LedgerWorld;
let app: TestApp;
const permissions = brandPermissions;
const { api, business, customer, assertAudit, brand } = brandWorld(() => ({ server, app }));

function reserveOf(report: any, designId: string): string {
  return report.reserves.find((row: any) => row.design_id === designId)?.reserve ?? '0.00';
}

/** One test's world: a merchant (the Cafe), a distributor (the Grocer), a redeemer (the Book Nook), a customer (Pat), the Cafe's design and its gift plan. */
interface World {
  cafe: Actor;
  grocery: Actor;
  books: Actor;
  pat: Actor;
  designId: string;
  giftPlan: string;
}

test.before(async () => {
  ({ server, world } = await startLedgerServer());
  app = world.app;
});

test.after(async () => {
  await server.close();
});

/** A fresh world, new people every time, set up as the merchant's first step does. */
async function makeWorld(): Promise<World> {
  const [cafe, grocery, books, pat] = await Promise.all([business('Cafe', ['design_gl']), business('Grocer'), business('Book Nook'), customer()]);
  return { cafe, grocery, books, pat, ...(await setUp({ cafe, grocery, books })) };
}

/** Step: the merchant sets up a design, a plan and its network. */
async function setUp(w: Pick<World, 'cafe' | 'grocery' | 'books'>): Promise<Pick<World, 'designId' | 'giftPlan'>> {
  const { cafe, grocery, books } = w;
  const created = await api.post('/design/create', { title: 'Cafe Gift', currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  assert.is(created.status, 200, created.text);
  const designId: string = created.body.id;
  const patched = await api.patch(`/design/${designId}`, { expire: { mode: 'relative', relative: 30 } }, cafe.auth);
  assert.is(patched.status, 200, patched.text);
  const picture = await sharp({ create: { width: 1200, height: 700, channels: 3, background: '#a52' } }).png().toBuffer();
  for (const [path, headers] of [[`/design/${designId}/image`, {}], [`/design/${designId}/icon`, { 'x-image-style': 'fit' }]] as const) {
    const uploaded = await server.client.request('PUT', path, undefined, { ...cafe.auth, rawBody: picture, headers: { 'content-type': 'image/png', ...headers } });
    assert.is(uploaded.status, 200, uploaded.text);
  }
  const plan = await api.post(`/design/${designId}/plan/create`, { title: 'Gift cards' }, cafe.auth);
  const giftPlan: string = plan.body.plan_id;
  for (const [member, roles] of [[grocery, { distributor: true }], [books, { redeemer: true }]] as const) {
    const added = await api.post(`/design/${designId}/agreement/add`, { uid: `service:${member.id}`, ...roles, terms_text: 'Standard terms' }, cafe.auth);
    assert.is(added.status, 200, added.text);
    const activated = await api.post(`/design/${designId}/agreement/${added.body.agreement.id}/activate`, {}, member.auth);
    assert.is(activated.status, 200, activated.text);
  }
  await assertAudit('setup');
  return { designId, giftPlan };
}

/** Step: a design send needs the issuer or a distributor, a gl_design, a live plan, and enough open loop cash; refusals change nothing. */
async function refusals(w: World): Promise<void> {
  const { cafe, grocery, books, pat, designId, giftPlan } = w;
  const before = await ledgerFingerprint(server.engine);
  const send = (actor: Actor, body: Record<string, unknown>) =>
    api.post(`/design/${designId}/send`, { recipient_uid: `service:${pat.id}`, distribution_plan_id: giftPlan, amount: '50.00', ...body }, actor.auth);
  const stranger = await send(books, {});
  assert.is(stranger.status, 403, stranger.text);
  const noPlan = await send(grocery, { distribution_plan_id: '0000000000' });
  assert.is(noPlan.status, 400, noPlan.text);
  assert.ok(noPlan.body.invalid.distribution_plan_id);
  const badAmount = await send(grocery, { amount: '1.001' });
  assert.is(badAmount.status, 400, badAmount.text);
  const broke = await send(grocery, {});
  assert.is(broke.status, 400, broke.text);
  assert.is(broke.body.send_errors[0].code, 'insufficient_funds');
  const missing = await send(grocery, { recipient_uid: 'email:nobody@example.com' });
  assert.is(missing.status, 400, missing.text);
  const longMessage = await send(grocery, { message: 'm'.repeat(1001) });
  assert.is(longMessage.status, 400, longMessage.text);
  assert.ok(longMessage.body.invalid.message);
  const unknownField = await send(grocery, { colour: 'red' });
  assert.is(unknownField.status, 400, unknownField.text);
  assert.equal(await ledgerFingerprint(server.engine), before, 'refused sends leave no trace');
  const read = await api.get(`/design/${designId}`, cafe.auth);
  assert.is(read.body.published, false, 'a refused send does not publish the design');
}

/** Step: the distributor sends brand cash: notes issued, the reserve funded, the design published; a repeat dedup_id runs once. */
async function distributorSends(w: World): Promise<void> {
  const { grocery, pat, designId, giftPlan } = w;
  await issue(server, grocery.id, '100.00');
  const body = { recipient_uid: `service:${pat.id}`, distribution_plan_id: giftPlan, amount: '50.00', message: 'm'.repeat(1000), dedup_id: 'gift-1', 'appdata.order': 'G-1' };
  const sent = await api.post(`/design/${designId}/send`, body, grocery.auth);
  assert.is(sent.status, 200, sent.text);
  const transfer = sent.body.transfer;
  assert.is(transfer.workflow_type, 'send_design');
  assert.is(transfer.completed, true);
  const again = await api.post(`/design/${designId}/send`, body, grocery.auth);
  assert.is(again.status, 200, again.text);
  assert.is(again.body.transfer.id, transfer.id);
  assert.is(await brand(pat.id, designId), '50.00');
  assert.is(await usd(server, grocery.id), '50.00', 'the distributor paid the face value into the reserve');
  const report = await assertAudit('design send');
  assert.is(reserveOf(report, designId), '50.00');
  const published = await api.get(`/design/${designId}`, pat.auth);
  assert.is(published.status, 200, 'a published design is viewable by everyone');
  assert.is(published.body.published, true);
  const history = await api.get('/wallet/history', pat.auth);
  assert.ok(history.body.results.some((row: any) => row.id === transfer.id), 'the customer sees the send in history');
  const holdings = await server.engine.services.ledger.cash.holdings(server.engine.sql, pat.id);
  const loop = holdings.find((row) => row.loop_id === designId)!;
  assert.equal([loop.title, loop.expiring.length], ['Cafe Gift', 1], 'the LoopDescription names the design');
  assert.match(String(loop.thumbnail), /\/media\/design\/[0-9a-f]{20}\/thumbnail$/, 'and shows its image');
  assert.is(holdings.find((row) => row.loop_id === '0'), undefined);
}

/** Step: acceptance follows agreements: presend at the redeemer and at a shop without one. */
async function acceptance(w: World): Promise<void> {
  const { books, pat, designId } = w;
  const atBooks = await api.get('/wallet/presend', pat.auth, { recipient_uid: `service:${books.id}` });
  assert.is(atBooks.status, 200, atBooks.text);
  const loop = atBooks.body.loops.find((row: any) => row.loop_id === designId);
  assert.is(loop.missing_agreement, false);
  assert.is(loop.title, 'Cafe Gift');
  const other = await business('No Deal Shop');
  const atOther = await api.get('/wallet/presend', pat.auth, { recipient_uid: `service:${other.id}` });
  assert.is(atOther.body.loops.find((row: any) => row.loop_id === designId).missing_agreement, true);
  const refused = await api.post('/wallet/send', { recipient_uid: `service:${other.id}`, amounts: `${designId}-USD-5.00` }, pat.auth);
  assert.is(refused.status, 400, refused.text);
  assert.is(refused.body.send_errors[0].code, 'cash_not_accepted');
}

/** Step: spending at the redeemer redeems the brand cash and settles it from the reserve. */
async function spending(w: World): Promise<void> {
  const { books, pat, designId } = w;
  const spent = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: `${designId}-USD-20.00` }, pat.auth);
  assert.is(spent.status, 200, spent.text);
  assert.is(spent.body.transfer.workflow_type, 'profile_to_profile');
  assert.is(await brand(pat.id, designId), '30.00');
  assert.is(await brand(books.id, designId), '0.00', 'redeemed brand cash leaves the redeemer wallet');
  assert.is(await usd(server, books.id), '20.00', 'settled in open loop cash');
  const report = await assertAudit('redemption');
  assert.is(reserveOf(report, designId), '30.00');
  const totals = report.totals.find((row) => row.loop_id === designId)!;
  assert.equal([totals.issued, totals.held, totals.redeemed], ['50.00', '30.00', '20.00']);
  const detail = await api.get(`/t/${spent.body.transfer.id}`, books.auth);
  const actions = detail.body.movements?.map((movement: any) => movement.action) ?? [];
  assert.ok(actions.length === 0 || actions.includes('redeem'), JSON.stringify(detail.body.movements));
}

/** Step: a plan with discount and static rows splits the payment; the reserve covers only the after-redemption rows. */
async function discountPlan(w: World): Promise<void> {
  const { cafe, grocery, books, designId } = w;
  const partner = await customer();
  const plan = await api.post(`/design/${designId}/plan/create`, { title: 'Partners' }, cafe.auth);
  const recipients = [
    { percentage: '10', loop_id: '0', recipient_type: 'discount', recipient_id: '0' },
    { percentage: '5', loop_id: '0', recipient_type: 'static', recipient_id: partner.id },
    { percentage: '80', loop_id: designId, recipient_type: 'redeemer', recipient_id: '0' },
  ];
  const patched = await api.patch(`/design/${designId}/plan/${plan.body.plan_id}`, { recipients }, cafe.auth);
  assert.is(patched.status, 200, patched.text);
  const kim = await customer();
  const sent = await api.post(`/design/${designId}/send`, { recipient_uid: `service:${kim.id}`, distribution_plan_id: plan.body.plan_id, amount: '40.00' }, grocery.auth);
  assert.is(sent.status, 200, sent.text);
  // Paid 36.00 (40 less 10%): 32.00 reserve, 2.00 fee, 2.00 proceeds to the issuer.
  assert.is(await usd(server, grocery.id), '14.00');
  assert.is(await usd(server, partner.id), '2.00');
  assert.is(await usd(server, cafe.id), '2.00');
  let report = await assertAudit('discount plan');
  assert.is(reserveOf(report, designId), '62.00');
  const spent = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: `${designId}-USD-15.00` }, kim.auth);
  assert.is(spent.status, 200, spent.text);
  assert.is(await usd(server, books.id), '32.00', 'the redeemer gets 80% of 15.00 on top of its 20.00');
  report = await assertAudit('discount plan redemption');
  assert.is(reserveOf(report, designId), '50.00');
}

/** Step: unfunded loyalty cash: a 100% discount plan costs the issuer nothing and settles nothing. */
async function loyalty(w: World): Promise<void> {
  const { cafe, pat, designId } = w;
  const plan = await api.post(`/design/${designId}/plan/create`, { title: 'Loyalty' }, cafe.auth);
  await api.patch(`/design/${designId}/plan/${plan.body.plan_id}`, { recipients: [{ percentage: '100', loop_id: '0', recipient_type: 'discount', recipient_id: '0' }] }, cafe.auth);
  const sent = await api.post(`/design/${designId}/send`, { recipient_uid: `service:${pat.id}`, distribution_plan_id: plan.body.plan_id, amount: '5.00' }, cafe.auth);
  assert.is(sent.status, 200, sent.text);
  assert.is(await brand(pat.id, designId), '35.00');
  await assertAudit('loyalty');
}

/** Step: max_per_wallet holds on a design send. */
async function maxPerWallet(w: World): Promise<void> {
  const { cafe, grocery, pat, designId, giftPlan } = w;
  await api.patch(`/design/${designId}`, { max_per_wallet: '40.00' }, cafe.auth);
  const before = await ledgerFingerprint(server.engine);
  const over = await api.post(`/design/${designId}/send`, { recipient_uid: `service:${pat.id}`, distribution_plan_id: giftPlan, amount: '5.01' }, grocery.auth);
  assert.is(over.status, 400, over.text);
  assert.ok(over.body.invalid.amount);
  assert.equal(await ledgerFingerprint(server.engine), before);
  await api.patch(`/design/${designId}`, { max_per_wallet: null }, cafe.auth);
}

/** Step: transferable: false keeps holders from passing the cash to people; max_per_wallet holds on sends between wallets. */
async function transferable(w: World): Promise<void> {
  const { cafe, pat, designId } = w;
  const friend = await customer();
  await api.patch(`/design/${designId}`, { transferable: false }, cafe.auth);
  const before = await ledgerFingerprint(server.engine);
  const passed = await api.post('/wallet/send', { recipient_uid: `service:${friend.id}`, amounts: `${designId}-USD-1.00` }, pat.auth);
  assert.is(passed.status, 400, passed.text);
  assert.is(passed.body.send_errors[0].code, 'not_transferable');
  assert.equal(await ledgerFingerprint(server.engine), before);
  await api.patch(`/design/${designId}`, { transferable: true, max_per_wallet: '1.00' }, cafe.auth);
  const over = await api.post('/wallet/send', { recipient_uid: `service:${friend.id}`, amounts: `${designId}-USD-1.01` }, pat.auth);
  assert.is(over.status, 400, over.text);
  assert.is(over.body.send_errors[0].code, 'max_per_wallet');
  assert.equal(await ledgerFingerprint(server.engine), before);
  const atCap = await api.post('/wallet/send', { recipient_uid: `service:${friend.id}`, amounts: `${designId}-USD-1.00` }, pat.auth);
  assert.is(atCap.status, 200, atCap.text);
  const back = await api.post('/wallet/send', { recipient_uid: `service:${pat.id}`, amounts: `${designId}-USD-1.00` }, friend.auth);
  assert.is(back.status, 400, 'pat holds more than the cap already');
  await api.patch(`/design/${designId}`, { max_per_wallet: null }, cafe.auth);
  const returned = await api.post('/wallet/send', { recipient_uid: `service:${pat.id}`, amounts: `${designId}-USD-1.00` }, friend.auth);
  assert.is(returned.status, 200, returned.text);
  await assertAudit('holding rules');
}

/** Step: a return to the issuer keeps the cash in circulation; expiry moves the rest out and releases its reserve. */
async function returnAndExpiry(w: World): Promise<void> {
  const { cafe, pat, designId } = w;
  const returned = await api.post('/wallet/send', { recipient_uid: `service:${cafe.id}`, amounts: `${designId}-USD-10.00` }, pat.auth);
  assert.is(returned.status, 200, returned.text);
  assert.is(await brand(cafe.id, designId), '10.00');
  await assertAudit('return');
  const cafeBefore = await usd(server, cafe.id);
  server.clock.advance(31 * 24 * 60 * 60 * 1000);
  await server.engine.sweeper.runOnce();
  assert.is(await brand(pat.id, designId), '0.00');
  assert.is(await brand(cafe.id, designId), '0.00');
  const report = await assertAudit('expiry');
  assert.is(reserveOf(report, designId), '0.00', 'expired cash needs no reserve');
  const totals = report.totals.find((row) => row.loop_id === designId)!;
  assert.is(totals.held, '0.00');
  // Pat's 25.00 (20.00 gift + 5.00 loyalty), the cafe's returned 10.00 and Kim's 25.00 expire.
  assert.is(totals.expired, '60.00');
  assert.is(totals.redeemed, '35.00');
  // Their reserve (20.00 + 10.00 + 80% of 25.00) goes to the issuer.
  assert.is(BigInt((await usd(server, cafe.id)).replace('.', '')) - BigInt(cafeBefore.replace('.', '')), 5000n);
  // A month has passed: the customer signs in again.
  const fresh: Auth = { auth: { bearer: await userToken(server, app, pat.id, { concurrent: true, permissions }) } };
  const history = await api.get('/wallet/history', fresh);
  assert.is(history.status, 200, history.text);
  assert.ok(history.body.results.some((row: any) => row.workflow_type === 'expire'), 'the holder sees the expiry');
}

/** Step: campaign events: the owner reads returns and expiries, newest first, paged. */
async function campaignEvents(w: World): Promise<void> {
  const { cafe, pat, designId } = w;
  const owner: Auth = { auth: { bearer: await userToken(server, app, cafe.id, { personalProfileId: cafe.managerId, concurrent: true, permissions }) } };
  const campaigns = await api.get('/campaign/list', owner);
  assert.is(campaigns.status, 200, campaigns.text);
  assert.equal(campaigns.body.campaigns.map((row: any) => row.id), [designId]);
  const first = await api.get('/campaign/events', owner, { limit: 2 });
  assert.is(first.status, 200, first.text);
  assert.is(first.body.events.length, 2);
  assert.is(first.body.more, true);
  const second = await api.get('/campaign/events', owner, { limit: 2, cursor: first.body.next_cursor });
  const events = [...first.body.events, ...second.body.events];
  assert.is(second.body.more, false);
  assert.equal(events.map((event: any) => event.event_type).sort(), ['expire', 'expire', 'expire', 'return']);
  const returned = events.find((event: any) => event.event_type === 'return');
  assert.equal([returned.holder_id, returned.amount, returned.design_title], [pat.id, '10.00', 'Cafe Gift']);
  const expiries = await api.get('/campaign/events', owner, { event_type: 'expire' });
  assert.is(expiries.body.events.length, 3);
  assert.ok(expiries.body.events.every((event: any, index: number, all: any[]) => index === 0 || all[index - 1].created >= event.created), 'newest first');
  const stranger = await api.get('/campaign/events', owner, { design_id: '0000000000' });
  assertRefused(stranger, 400, 'invalid');
  const badCursor = await api.get('/campaign/events', owner, { cursor: 'nonsense' });
  assertRefused(badCursor, 400, 'invalid');
  const customerView = await api.get('/campaign/list', { auth: { bearer: await userToken(server, app, pat.id, { concurrent: true, permissions }) } });
  assert.equal(customerView.body.campaigns, [], 'holders see no campaigns');
}

test('the merchant sets up a design, a plan and its network', async () => {
  await makeWorld();
});

test('a design send needs the issuer or a distributor, a gl_design, a live plan, and enough open loop cash; refusals change nothing', async () => {
  const w = await makeWorld();
  await refusals(w);
});

test('the distributor sends brand cash: notes issued, the reserve funded, the design published; a repeat dedup_id runs once', async () => {
  const w = await makeWorld();
  await distributorSends(w);
});

test('acceptance follows agreements: presend at the redeemer and at a shop without one', async () => {
  const w = await makeWorld();
  await distributorSends(w);
  await acceptance(w);
});

test('spending at the redeemer redeems the brand cash and settles it from the reserve', async () => {
  const w = await makeWorld();
  await distributorSends(w);
  await spending(w);
});

test('a plan with discount and static rows splits the payment; the reserve covers only the after-redemption rows', async () => {
  const w = await makeWorld();
  await distributorSends(w);
  await spending(w);
  await discountPlan(w);
});

test('unfunded loyalty cash: a 100% discount plan costs the issuer nothing and settles nothing', async () => {
  const w = await makeWorld();
  await distributorSends(w);
  await spending(w);
  await loyalty(w);
});

test('max_per_wallet holds on a design send', async () => {
  const w = await makeWorld();
  await distributorSends(w);
  await spending(w);
  await loyalty(w);
  await maxPerWallet(w);
});

test('transferable: false keeps holders from passing the cash to people; max_per_wallet holds on sends between wallets', async () => {
  const w = await makeWorld();
  await distributorSends(w);
  await transferable(w);
});

test('a return to the issuer keeps the cash in circulation; expiry moves the rest out and releases its reserve', async () => {
  const w = await makeWorld();
  await distributorSends(w);
  await spending(w);
  await discountPlan(w);
  await loyalty(w);
  await returnAndExpiry(w);
});

test('campaign events: the owner reads returns and expiries, newest first, paged', async () => {
  const w = await makeWorld();
  await distributorSends(w);
  await spending(w);
  await discountPlan(w);
  await loyalty(w);
  await returnAndExpiry(w);
  await campaignEvents(w);
});

test.run();
