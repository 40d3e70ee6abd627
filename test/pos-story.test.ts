// Proves the point of sale over HTTP on a real server and database: pull at a merchant terminal
// (consent, feature, permission, brand cash only, another brand, too much, dedup, two terminals at
// once), processor sends with a processor token, settlement per plan (funded at once, pending then
// settled by a settler, a plan with discount and static rows, a settler that is the redeemer, a
// static row naming the redeemer), payment codes and distributions as immediate and init_dist rows,
// and the received-and-receivable report's rows (with dist_tid), totals, filters and CSV checked
// against them, with the audit balanced after each step. Every test builds its own world (world()) and
// runs the earlier steps it stands on as fixtures, so each runs alone: npm test -- pos-story -t "<name>".
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nonServiceAmountUnitsMax } from '../engine/limits.ts';
import { userToken, type TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld, usd } from './ledger-api-support.ts';
import { ledgerFingerprint } from './ledger-support.ts';
import { runOperatorCli } from './support/cli.ts';
import { startTestServer, type TestServer } from './support/http.ts';
import { brandPermissions, brandWorld, type Actor, type Auth } from './support/brand-world.ts';

let server: TestServer;
let app: TestApp;
const permissions = brandPermissions;
const { api, business, customer, assertAudit, brand } = brandWorld(() => ({ server, app }));

async function terminal(merchant: Actor, deviceUuid: string, extra = ['pull_payment']): Promise<Auth> {
  const token = await userToken(server, app, merchant.id, { personalProfileId: merchant.managerId, concurrent: true, permissions: [...permissions, ...extra], deviceUuid });
  return { auth: { bearer: token } };
}

/** A processor's token for the customer, as the authorization code grant issues it (source oauth). */
async function processorToken(profileId: string, source: 'oauth' | 'authn' = 'oauth', granted = ['offline', 'process_payment']): Promise<Auth> {
  const info = await server.engine.services.tokens.issue(server.engine.sql, {
    clientId: app.clientId, profileId, personalProfileId: profileId, permissions: granted, concurrent: true, deviceUuid: null, source, now: server.clock.now(),
  });
  return { auth: { bearer: info.access_token } };
}

type Sale = { transferId: string; loop: string; received: string; funded: string; pending: string; settled: string; reclaimed: string; device: string | null; type: string; dist: string | null };

/** One test's world: its people, tills, designs and plans, and what its steps sold (the report's expected rows). */
interface World {
  cafe: Actor;
  books: Actor;
  grocery: Actor;
  gym: Actor;
  settler: Actor;
  partner: Actor;
  pat: Actor;
  kim: Actor;
  till1: Auth;
  till2: Auth;
  designId: string;
  gymDesignId: string;
  giftPlan: string;
  loyaltyPlan: string;
  feePlan: string;
  /** The design sends that distributed each lot of brand cash (the report's dist_tid). */
  dists: Record<string, string>;
  sales: Sale[];
}

test.before(async () => {
  server = await startTestServer();
  app = (await ledgerWorld(server)).app;
});

test.after(async () => {
  await server.close();
});

/**
 * A fresh world on the file's server, new people every time: a design with a gift plan, an
 * unfunded loyalty plan and a fee plan; a redeemer and a settler; cash in wallets.
 */
async function world(): Promise<World> {
  const [cafe, books, grocery, gym, settler, partner, pat, kim] = await Promise.all([
    business('Cafe', ['design_gl']), business('Book Nook', ['pull_payment']), business('Grocer'), business('Gym', ['design_gl']),
    business('Cafe Settlement Co'), customer(), customer(), customer(),
  ]);
  const [till1, till2] = await Promise.all([terminal(books, 'till-1'), terminal(books, 'till-2')]);
  const made = { cafe, books, grocery, gym, settler, partner, pat, kim, till1, till2, dists: {} as Record<string, string>, sales: [] as Sale[] };
  const design = await designWorld(made);
  return { ...made, ...design };
}

/** The designs, plans, agreements and sends of a world's people (the Cafe's and the Gym's side by side). */
async function designWorld(w: Pick<World, 'cafe' | 'books' | 'settler' | 'partner' | 'pat' | 'kim' | 'gym' | 'dists'>) {
  const [cafeDesign, gymDesignId] = await Promise.all([cafeWorld(w), gymWorld(w), issue(server, w.pat.id, '30.00')]);
  return { ...cafeDesign, gymDesignId };
}

async function plan(auth: Auth, designId: string, title: string, recipients?: Record<string, string>[]): Promise<string> {
  const created = await api.post(`/design/${designId}/plan/create`, { title }, auth);
  assert.is(created.status, 200, created.text);
  if (recipients) {
    const patched = await api.patch(`/design/${designId}/plan/${created.body.plan_id}`, { recipients }, auth);
    assert.is(patched.status, 200, patched.text);
  }
  return created.body.plan_id;
}

/** The Cafe's design: a gift plan, an unfunded loyalty plan and a fee plan; the Book Nook redeems, a settler settles; Pat and Kim hold its cash. */
async function cafeWorld(w: Pick<World, 'cafe' | 'books' | 'settler' | 'partner' | 'pat' | 'kim' | 'dists'>) {
  const { cafe, books, settler, partner, pat, kim } = w;
  const created = await api.post('/design/create', { title: 'Cafe Gift', currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  assert.is(created.status, 200, created.text);
  const designId: string = created.body.id;
  const [giftPlan, loyaltyPlan, feePlan] = await Promise.all([
    plan(cafe.auth, designId, 'Gift cards'),
    plan(cafe.auth, designId, 'Loyalty', [{ percentage: '100', loop_id: '0', recipient_type: 'discount', recipient_id: '0' }]),
    plan(cafe.auth, designId, 'Partners', [
      { percentage: '10', loop_id: '0', recipient_type: 'discount', recipient_id: '0' },
      { percentage: '5', loop_id: '0', recipient_type: 'static', recipient_id: partner.id },
      { percentage: '75', loop_id: designId, recipient_type: 'redeemer', recipient_id: '0' },
      { percentage: '5', loop_id: designId, recipient_type: 'static', recipient_id: partner.id },
    ]),
  ]);
  await Promise.all(([[books, { redeemer: true }], [settler, { settler: true }]] as const).map(async ([member, roles]) => {
    const added = await api.post(`/design/${designId}/agreement/add`, { uid: `service:${member.id}`, ...roles, terms_text: 'Standard terms' }, cafe.auth);
    assert.is(added.status, 200, added.text);
    const activated = await api.post(`/design/${designId}/agreement/${added.body.agreement.id}/activate`, {}, member.auth);
    assert.is(activated.status, 200, activated.text);
  }));
  await issue(server, cafe.id, '500.00');
  const send = (to: Actor, plan: string, amount: string) => api.post(`/design/${designId}/send`, { recipient_uid: `service:${to.id}`, distribution_plan_id: plan, amount }, cafe.auth);
  // One after another: Pat's gift lot is issued before the loyalty lot, and a pull spends it first.
  for (const [name, to, plan, amount] of [['patGift', pat, giftPlan, '100.00'], ['patLoyalty', pat, loyaltyPlan, '20.00'], ['kimFee', kim, feePlan, '40.00']] as const) {
    const sent = await send(to, plan, amount);
    assert.is(sent.status, 200, sent.text);
    w.dists[name] = sent.body.transfer.id;
  }
  return { designId, giftPlan, loyaltyPlan, feePlan };
}

/** The Gym's design, of which Pat holds 10.00 (another brand, which the Book Nook does not take). */
async function gymWorld(w: Pick<World, 'gym' | 'pat'>): Promise<string> {
  const { gym, pat } = w;
  const gymDesign = await api.post('/design/create', { title: 'Gym Points', currency: 'USD', design_type: 'gl_design' }, gym.auth);
  assert.is(gymDesign.status, 200, gymDesign.text);
  const gymDesignId: string = gymDesign.body.id;
  const [gymPlan] = await Promise.all([plan(gym.auth, gymDesignId, 'Points'), issue(server, gym.id, '10.00')]);
  const gymSent = await api.post(`/design/${gymDesignId}/send`, { recipient_uid: `service:${pat.id}`, distribution_plan_id: gymPlan, amount: '10.00' }, gym.auth);
  assert.is(gymSent.status, 200, gymSent.text);
  return gymDesignId;
}

/** Pat (or another customer) lets the Book Nook pull. */
async function consent(w: World, who: Actor): Promise<void> {
  const given = await api.post('/wallet/pull-consent', { merchant_uid: `service:${w.books.id}` }, who.auth);
  assert.is(given.status, 200, given.text);
}

/** Step: a funded pull of 20.00 at till 1, run twice with one dedup_id. */
async function fundedPull(w: World): Promise<void> {
  const { books, pat, till1, designId } = w;
  const body = { sender_uid: `service:${pat.id}`, amounts: `${designId}-USD-20.00`, dedup_id: 'sale-1', 'appdata.pos.order': 'A-1', message: 'Coffee and cake' };
  const pulled = await api.post('/pull/redeem', body, till1);
  assert.is(pulled.status, 200, pulled.text);
  assert.is(pulled.body.transfer.workflow_type, 'pull_redeem');
  const again = await api.post('/pull/redeem', body, till1);
  assert.is(again.status, 200, again.text);
  assert.is(again.body.transfer.id, pulled.body.transfer.id);
  assert.is(await usd(server, books.id), '20.00');
  assert.is(await brand(pat.id, designId), '100.00');
  w.sales.push({ transferId: pulled.body.transfer.id, loop: designId, received: '20.00', funded: '20.00', pending: '0.00', settled: '0.00', reclaimed: '0.00', device: 'till-1', type: 'redeem', dist: w.dists.patGift });
  const detail = await api.get(`/t/${pulled.body.transfer.id}`, books.auth);
  const actions = detail.body.movements.map((movement: any) => movement.action);
  assert.ok(actions.includes('redeem') && actions.includes('settle'), JSON.stringify(actions));
  const history = await api.get('/wallet/history', pat.auth);
  assert.ok(history.body.results.some((row: any) => row.id === pulled.body.transfer.id), 'the customer sees the pull in history');
  await assertAudit('funded pull');
}

/** Step: two tills pull 60.00 each from Pat, who holds 80.00 of gift cash and 20.00 of loyalty cash. */
async function concurrentPulls(w: World): Promise<void> {
  const { pat, till1, till2, designId } = w;
  // Pat holds 80.00 gift + 20.00 loyalty; each terminal asks for 60.00 of it.
  const [first, second] = await Promise.all([
    api.post('/pull/redeem', { sender_uid: `service:${pat.id}`, amounts: `${designId}-USD-60.00` }, till1),
    api.post('/pull/redeem', { sender_uid: `service:${pat.id}`, amounts: `${designId}-USD-60.00` }, till2),
  ]);
  const statuses = [first.status, second.status].sort();
  assert.equal(statuses, [200, 400], `${first.text} ${second.text}`);
  const won = first.status === 200 ? first : second;
  const lost = first.status === 200 ? second : first;
  assert.is(lost.body.send_errors[0].code, 'insufficient_funds');
  assert.is(await brand(pat.id, designId), '40.00');
  // The gift note (issued first) pays before the loyalty note: all of it is funded.
  const settlements = await server.engine.sql<{ state: string; amount: bigint }[]>`select state, amount from settlements where redemption_transfer_id = ${won.body.transfer.id} order by state`;
  const funded = settlements.filter((row) => row.state === 'funded').reduce((total, row) => total + row.amount, 0n);
  const pending = settlements.filter((row) => row.state === 'pending').reduce((total, row) => total + row.amount, 0n);
  assert.is(funded + pending, 6000n);
  assert.is(pending, 0n);
  const device = won === first ? 'till-1' : 'till-2';
  w.sales.push({ transferId: won.body.transfer.id, loop: designId, received: '60.00', funded: '60.00', pending: '0.00', settled: '0.00', reclaimed: '0.00', device, type: 'redeem', dist: w.dists.patGift });
  await assertAudit('concurrent pulls');
}

/** Step: the last 20.00 of gift cash and 20.00 of loyalty cash pulled (pending), then settled by the settler. */
async function pendingThenSettled(w: World): Promise<void> {
  const { cafe, books, grocery, settler, pat, till2, designId } = w;
  const before = await usd(server, books.id);
  const pulled = await api.post('/pull/redeem', { sender_uid: `service:${pat.id}`, amounts: `${designId}-USD-40.00`, non_service_amount: '4.50' }, till2);
  assert.is(pulled.status, 200, pulled.text);
  const rows = await server.engine.sql<{ state: string; amount: bigint }[]>`select state, amount from settlements where redemption_transfer_id = ${pulled.body.transfer.id}`;
  const funded = rows.filter((row) => row.state === 'funded').reduce((total, row) => total + row.amount, 0n);
  const pending = rows.filter((row) => row.state === 'pending').reduce((total, row) => total + row.amount, 0n);
  assert.equal([funded, pending], [2000n, 2000n], 'the rest of the gift note is funded, the loyalty note is not');
  // One row per distribution the redeemed notes came from: the gift lot is funded, the loyalty lot pending.
  const sale = { transferId: pulled.body.transfer.id, loop: designId, settled: '0.00', reclaimed: '0.00', device: 'till-2', type: 'redeem' };
  w.sales.push({ ...sale, received: '20.00', funded: '20.00', pending: '0.00', dist: w.dists.patGift });
  w.sales.push({ ...sale, received: '20.00', funded: '0.00', pending: '20.00', dist: w.dists.patLoyalty });
  w.sales.push({ ...sale, loop: '0', received: '4.50', funded: '0.00', pending: '0.00', type: 'non_service', dist: null });
  assert.is(BigInt((await usd(server, books.id)).replace('.', '')) - BigInt(before.replace('.', '')), funded);
  await assertAudit('pending');
  const pendingView = await api.get(`/design/${designId}/settlements`, cafe.auth);
  assert.is(pendingView.status, 200, pendingView.text);
  assert.is(pendingView.body.pending[0].amount, '20.00');
  const notTheirs = await api.get(`/design/${designId}/settlements`, grocery.auth);
  assert.is(notTheirs.status, 403, notTheirs.text);

  const stranger = await api.post(`/design/${designId}/settle`, {}, grocery.auth);
  assert.is(stranger.status, 403, stranger.text);
  const beforeBroke = await ledgerFingerprint(server.engine);
  const broke = await api.post(`/design/${designId}/settle`, {}, settler.auth);
  assert.is(broke.status, 400, broke.text);
  assert.is(broke.body.send_errors[0].code, 'insufficient_funds');
  assert.equal(await ledgerFingerprint(server.engine), beforeBroke, 'a settler short of cash changes nothing');

  await issue(server, settler.id, '100.00');
  const booksBefore = await usd(server, books.id);
  const settled = await api.post(`/design/${designId}/settle`, { limit: 1 }, settler.auth);
  assert.is(settled.status, 200, settled.text);
  assert.is(settled.body.settled, 1);
  await assertAudit('first batch');
  const run = await runOperatorCli(server.baseUrl, ['settle', designId]);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /still pending: 0/);
  assert.is(await usd(server, settler.id), '80.00');
  assert.is(BigInt((await usd(server, books.id)).replace('.', '')) - BigInt(booksBefore.replace('.', '')), 2000n);
  const again = await api.post(`/design/${designId}/settle`, {}, settler.auth);
  assert.is(again.status, 200, again.text);
  assert.is(again.body.settled, 0, 'settling again pays nothing');
  assert.is(await usd(server, settler.id), '80.00');
  for (const sale of w.sales) {
    if (sale.type === 'redeem' && sale.pending !== '0.00') {
      sale.settled = sale.pending;
      sale.pending = '0.00';
    }
  }
  const settleTransfer = await api.get(`/t/${settled.body.transfer_ids[0]}`, books.auth);
  assert.is(settleTransfer.status, 200, settleTransfer.text);
  assert.is(settleTransfer.body.workflow_type, 'settle');
  await assertAudit('settled');
}

/** Step: Kim pays 20.00 of fee plan cash. */
async function feePlanPull(w: World): Promise<void> {
  const { books, partner, kim, till1, designId } = w;
  await api.post('/wallet/pull-consent', { merchant_uid: `service:${books.id}` }, kim.auth);
  const partnerBefore = await usd(server, partner.id);
  const booksBefore = await usd(server, books.id);
  const pulled = await api.post('/pull/redeem', { sender_uid: `service:${kim.id}`, amounts: `${designId}-USD-20.00` }, till1);
  assert.is(pulled.status, 200, pulled.text);
  // 75% to the redeemer (15.00) and 5% to the partner (1.00), both from the 80% reserve.
  assert.is(BigInt((await usd(server, books.id)).replace('.', '')) - BigInt(booksBefore.replace('.', '')), 1500n);
  assert.is(BigInt((await usd(server, partner.id)).replace('.', '')) - BigInt(partnerBefore.replace('.', '')), 100n);
  w.sales.push({ transferId: pulled.body.transfer.id, loop: designId, received: '20.00', funded: '15.00', pending: '0.00', settled: '0.00', reclaimed: '5.00', device: 'till-1', type: 'redeem', dist: w.dists.kimFee });
  await assertAudit('fee plan');
}

/** Step: processor sends, refused and made. */
async function processorSends(w: World): Promise<void> {
  const { cafe, books, grocery, pat, kim, designId, gymDesignId, giftPlan } = w;
  await issue(server, cafe.id, '20.00');
  w.dists.patGift2 = (await api.post(`/design/${designId}/send`, { recipient_uid: `service:${pat.id}`, distribution_plan_id: giftPlan, amount: '20.00' }, cafe.auth)).body.transfer.id;
  const processor = await processorToken(pat.id);
  const before = await ledgerFingerprint(server.engine);
  const body = { sender_id: pat.id, recipient_id: books.id, amounts: `${designId}-USD-5.00` };
  const notOauth = await api.post('/proc/send', body, await processorToken(pat.id, 'authn'));
  assert.is(notOauth.status, 403, notOauth.text);
  const noOffline = await api.post('/proc/send', body, await processorToken(pat.id, 'oauth', ['process_payment']));
  assert.is(noOffline.status, 403, noOffline.text);
  const noPermission = await api.post('/proc/send', body, await processorToken(pat.id, 'oauth', ['offline']));
  assert.is(noPermission.status, 403, noPermission.text);
  const otherSender = await api.post('/proc/send', { ...body, sender_id: kim.id }, processor);
  assert.is(otherSender.status, 403, otherSender.text);
  const notAccepting = await api.post('/proc/send', { ...body, recipient_id: grocery.id }, processor);
  assert.is(notAccepting.status, 400, notAccepting.text);
  const openLoop = await api.post('/proc/send', { ...body, amounts: '0-USD-1.00' }, processor);
  assert.is(openLoop.status, 400, openLoop.text);
  const otherBrand = await api.post('/proc/send', { ...body, amounts: `${gymDesignId}-USD-1.00` }, processor);
  assert.is(otherBrand.status, 400, otherBrand.text);
  const tooMuch = await api.post('/proc/send', { ...body, amounts: `${designId}-USD-999.00` }, processor);
  assert.is(tooMuch.status, 400, tooMuch.text);
  // Issue 20 finding 5: a processor moving no cash writes nothing into the business's report, and non_service_amount is bounded.
  const rowsBefore = await server.engine.sql`select count(*)::int as count from receivables where profile_id = ${books.id}`;
  const reportOnly = await api.post('/proc/send', { sender_id: pat.id, recipient_id: books.id, non_service_amount: '99.99' }, processor);
  assert.is(reportOnly.status, 400, reportOnly.text);
  assert.ok(reportOnly.body.invalid?.amounts, reportOnly.text);
  const pastBound = await api.post('/proc/send', { ...body, non_service_amount: `${nonServiceAmountUnitsMax}.01` }, processor);
  assert.is(pastBound.status, 400, pastBound.text);
  assert.ok(pastBound.body.invalid?.non_service_amount, pastBound.text);
  const rowsAfter = await server.engine.sql`select count(*)::int as count from receivables where profile_id = ${books.id}`;
  assert.is(rowsAfter[0].count, rowsBefore[0].count, 'no report row for a business that took no part');
  assert.equal(await ledgerFingerprint(server.engine), before, 'refused processor sends leave no trace');

  const sendable = await api.get('/proc/sendable', processor, { sender_id: pat.id, recipient_id: books.id });
  assert.is(sendable.status, 200, sendable.text);
  const flags = Object.fromEntries(sendable.body.loops.map((loop: any) => [loop.loop_id, loop.missing_agreement]));
  assert.equal(flags, { [designId]: false, [gymDesignId]: true });
  const alias = await api.get('/proc/redeemable', processor, { sender_id: pat.id, recipient_id: books.id });
  assert.equal(alias.body.loops, sendable.body.loops);

  const sent = await api.post('/proc/send', { ...body, dedup_id: 'proc-1' }, processor);
  assert.is(sent.status, 200, sent.text);
  assert.is(sent.body.transfer.workflow_type, 'proc_send');
  const repeat = await api.post('/proc/redeem', { ...body, dedup_id: 'proc-1' }, processor);
  assert.is(repeat.status, 200, repeat.text);
  assert.is(repeat.body.transfer.id, sent.body.transfer.id, 'the deprecated alias answers the same transfer for the same dedup_id');
  w.sales.push({ transferId: sent.body.transfer.id, loop: designId, received: '5.00', funded: '5.00', pending: '0.00', settled: '0.00', reclaimed: '0.00', device: null, type: 'redeem', dist: w.dists.patGift2 });
  const toPerson = await api.post('/proc/send', { sender_id: pat.id, recipient_id: kim.id, amounts: `${gymDesignId}-USD-2.00` }, processor);
  assert.is(toPerson.status, 200, toPerson.text);
  assert.is(await brand(kim.id, gymDesignId), '2.00', 'an individual recipient simply receives the cash');
  await assertAudit('processor');
}

/** Step: a payment code taken at till 1, then corrected. */
async function paymentCode(w: World): Promise<void> {
  const { books, pat, till1 } = w;
  await server.engine.services.profiles.setFlags(server.engine.sql, books.id, { supportPaycode: true });
  const sent = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: '0-USD-10.00' }, pat.auth);
  assert.is(sent.status, 200, sent.text);
  const code = sent.body.transfer.payment_codes[0].code as string;
  const received = await api.post('/wallet/receive', { paycode: code, currency: 'USD', amount: '6.00' }, till1);
  assert.is(received.status, 200, received.text);
  const corrected = await api.post('/wallet/receive', { paycode: code, currency: 'USD', amount: '4.00' }, till1);
  assert.is(corrected.status, 200, corrected.text);
  assert.is(corrected.body.amount_received, '4.00');
  w.sales.push({ transferId: sent.body.transfer.id, loop: '0', received: '4.00', funded: '0.00', pending: '0.00', settled: '4.00', reclaimed: '0.00', device: 'till-1', type: 'immediate', dist: null });
  await assertAudit('payment code');
}

test('setup: a design with a gift plan, an unfunded loyalty plan and a fee plan; a redeemer and a settler; cash in wallets', async () => {
  const w = await world();
  assert.is(await brand(w.pat.id, w.designId), '120.00');
  assert.is(await usd(server, w.pat.id), '30.00');
  await assertAudit('setup');
});

test('pull refusals: permission, feature, consent, open loop cash, another brand, too much; none leaves a trace', async () => {
  const w = await world();
  const { books, grocery, pat, till1, designId, gymDesignId } = w;
  const before = await ledgerFingerprint(server.engine);
  const pull = (auth: Auth, body: Record<string, unknown>) => api.post('/pull/redeem', { sender_uid: `service:${pat.id}`, ...body }, auth);
  const noPermission = await pull(books.auth, { amounts: `${designId}-USD-1.00` });
  assert.is(noPermission.status, 403, noPermission.text);
  const groceryTill = await terminal(grocery, 'g-1');
  const noFeature = await pull(groceryTill, { amounts: `${designId}-USD-1.00` });
  assert.is(noFeature.status, 403, noFeature.text);
  assert.is(noFeature.body.error, 'feature_required');
  const noConsent = await pull(till1, { amounts: `${designId}-USD-1.00` });
  assert.is(noConsent.status, 403, noConsent.text);
  assert.is(noConsent.body.error, 'pull_not_consented');
  const listed = await api.get('/pull/redeemable', till1, { sender_uid: `service:${pat.id}` });
  assert.is(listed.status, 403, 'without consent the merchant cannot even see the wallet');
  assert.equal(await ledgerFingerprint(server.engine), before, 'refusals without consent leave no trace');
  const consent = await api.post('/wallet/pull-consent', { merchant_uid: `service:${books.id}` }, pat.auth);
  assert.is(consent.status, 200, consent.text);
  const consented = await ledgerFingerprint(server.engine);
  const openLoop = await pull(till1, { amounts: '0-USD-1.00' });
  assert.is(openLoop.status, 400, openLoop.text);
  assert.is(openLoop.body.send_errors[0].code, 'open_loop_not_permitted');
  const anyOpen = await pull(till1, { amounts: 'any-USD-200.00' });
  assert.is(anyOpen.status, 400, anyOpen.text);
  assert.is(anyOpen.body.send_errors[0].code, 'insufficient_funds', 'any never reaches open loop cash');
  const otherBrand = await pull(till1, { amounts: `${gymDesignId}-USD-1.00` });
  assert.is(otherBrand.status, 400, otherBrand.text);
  assert.is(otherBrand.body.send_errors[0].code, 'cash_not_accepted');
  const tooMuch = await pull(till1, { amounts: `${designId}-USD-500.00` });
  assert.is(tooMuch.status, 400, tooMuch.text);
  assert.is(tooMuch.body.send_errors[0].code, 'insufficient_funds');
  const longMessage = await pull(till1, { amounts: `${designId}-USD-1.00`, message: 'x'.repeat(1001) });
  assert.is(longMessage.status, 400, longMessage.text);
  const nothing = await pull(till1, {});
  assert.is(nothing.status, 400, nothing.text);
  assert.equal(await ledgerFingerprint(server.engine), consented, 'refused pulls leave no trace');
  await assertAudit('pull refusals');
});

test('redeemable lists only the brand cash the merchant redeems, with titles and amounts', async () => {
  const w = await world();
  await consent(w, w.pat);
  const { pat, till1, designId } = w;
  const listed = await api.get('/pull/redeemable', till1, { sender_uid: `service:${pat.id}` });
  assert.is(listed.status, 200, listed.text);
  assert.equal(listed.body.loops.map((loop: any) => [loop.loop_id, loop.title, loop.amount, loop.missing_agreement]), [[designId, 'Cafe Gift', '120.00', false]]);
  assert.is(listed.body.sender_info.uid_value, pat.id);
  assert.is(listed.body.recipient_info.is_individual, false);
});

test('a funded pull redeems at once: the merchant is settled from the reserve; dedup runs it once', async () => {
  const w = await world();
  await consent(w, w.pat);
  await fundedPull(w);
});

test('two terminals pulling from one customer at once cannot overspend', async () => {
  const w = await world();
  await consent(w, w.pat);
  await fundedPull(w);
  await concurrentPulls(w);
});

test('unfunded loyalty cash: the pull settles pending; a settler pays it in a batch, idempotently', async () => {
  const w = await world();
  await consent(w, w.pat);
  await fundedPull(w);
  await concurrentPulls(w);
  await pendingThenSettled(w);
});

test('a plan with discount and static rows: the reserve pays the static row and the redeemer its share', async () => {
  await feePlanPull(await world());
});

test('processor: a processor token of the sender sends to an accepting business; other tokens and senders are refused', async () => {
  await processorSends(await world());
});

test('revoking consent stops the merchant at once', async () => {
  const w = await world();
  await consent(w, w.kim);
  const { books, kim, till1, designId } = w;
  const revoked = await api.post('/wallet/pull-consent/revoke', { merchant_uid: `service:${books.id}` }, kim.auth);
  assert.is(revoked.status, 200, revoked.text);
  assert.is(revoked.body.revoked, true);
  const refused = await api.post('/pull/redeem', { sender_uid: `service:${kim.id}`, amounts: `${designId}-USD-1.00` }, till1);
  assert.is(refused.status, 403, refused.text);
});

test('a payment code taken at the terminal is an immediate row of the report; a correction changes it', async () => {
  await paymentCode(await world());
});

test('open loop cash paid at distribution (a fee, the issuer proceeds of a distributor) is an init_dist row of its recipient', async () => {
  const w = await world();
  const { cafe, grocery, partner, kim, designId, feePlan } = w;
  const added = await api.post(`/design/${designId}/agreement/add`, { uid: `service:${grocery.id}`, distributor: true, terms_text: 'Sells gift cards' }, cafe.auth);
  assert.is(added.status, 200, added.text);
  assert.is((await api.post(`/design/${designId}/agreement/${added.body.agreement.id}/activate`, {}, grocery.auth)).status, 200);
  await issue(server, grocery.id, '20.00');
  const counter = await terminal(grocery, 'g-2', []);
  const sold = await api.post(`/design/${designId}/send`, { recipient_uid: `service:${kim.id}`, distribution_plan_id: feePlan, amount: '10.00' }, counter);
  assert.is(sold.status, 200, sold.text);
  // Kim gets 10.00 of brand cash for 9.00 (10% discount): 8.00 to the reserve, 0.50 fee to the partner, 0.50 proceeds to the issuer.
  const cafeRows = (await api.post('/wallet/report/receivable', { settlement_types: ['init_dist'] }, cafe.auth)).body.report;
  assert.equal(cafeRows.map((row: any) => [row.transfer_id, row.dist_tid, row.loop_id, row.received_amount, row.settle_settled, row.settle_pending, row.is_fundable, row.pos_device_holder_id, row.pos_device_id]),
    [[sold.body.transfer.id, sold.body.transfer.id, designId, '0.50', '0.50', '0.00', false, grocery.managerId, 'g-2']]);
  const partnerRows = (await api.post('/wallet/report/receivable', {}, partner.auth)).body.report;
  assert.equal(partnerRows.map((row: any) => [row.settlement_type, row.transfer_id, row.dist_tid, row.received_amount, row.settle_settled, row.pos_device_id]), [
    ['init_dist', w.dists.kimFee, w.dists.kimFee, '2.00', '2.00', null],
    ['init_dist', sold.body.transfer.id, sold.body.transfer.id, '0.50', '0.50', 'g-2'],
  ]);
  await assertAudit('init_dist');
});

function totals(rows: any[]) {
  const byType: Record<string, { received: bigint; funded: bigint; pending: bigint; settled: bigint }> = {};
  const minor = (text: string) => BigInt(text.replace('.', ''));
  for (const row of rows) {
    const entry = (byType[row.settlement_type] ??= { received: 0n, funded: 0n, pending: 0n, settled: 0n });
    entry.received += minor(row.received_amount);
    entry.funded += minor(row.settle_funded);
    entry.pending += minor(row.settle_pending);
    entry.settled += minor(row.settle_settled);
  }
  return byType;
}

test('the report: rows and totals match every sale and settlement; filters and CSV', async () => {
  const w = await world();
  await consent(w, w.pat);
  for (const step of [fundedPull, concurrentPulls, pendingThenSettled, feePlanPull, processorSends, paymentCode]) await step(w);
  const { sales } = w;
  const { books, pat, till1 } = w;
  const answer = await api.post('/wallet/report/receivable', {}, till1);
  assert.is(answer.status, 200, answer.text);
  assert.is(answer.body.report_type, 'received_and_receivable');
  assert.is(answer.body.generated_by.id, books.id);
  assert.is(answer.body.generated_by.personal_id, books.managerId);
  assert.equal(answer.body.filters.pos_device, 'any_or_none');
  const rows = answer.body.report;
  const got = rows.map((row: any) => ({
    transferId: row.transfer_id, loop: row.loop_id, received: row.received_amount, funded: row.settle_funded, pending: row.settle_pending, settled: row.settle_settled,
    reclaimed: row.settle_reclaimed, device: row.pos_device_id, type: row.settlement_type, dist: row.dist_tid,
  }));
  const sortKey = (row: any) => `${row.transferId}/${row.type}/${row.dist}`;
  assert.equal([...got].sort((a, b) => sortKey(a).localeCompare(sortKey(b))), [...sales].sort((a, b) => sortKey(a).localeCompare(sortKey(b))));
  for (const row of rows) {
    assert.is(row.pos_device_holder_id, row.pos_device_id ? books.managerId : null);
    assert.is(row.date, row.timestamp.slice(0, 10));
    assert.is(row.tender_type, row.settlement_type === 'non_service' ? 'non_service' : 'service');
  }
  const sum = totals(rows);
  assert.is(sum.redeem.received, 14500n);
  assert.is(sum.redeem.pending, 0n);
  assert.is(sum.redeem.funded + sum.redeem.settled, 14000n, 'all but the 5.00 the fee plan reclaims settled in open loop cash');
  assert.is(sum.non_service.received, 450n);
  assert.equal([sum.immediate.received, sum.immediate.settled], [400n, 400n]);

  const till1Only = await api.post('/wallet/report/receivable', { pos_device: `${books.managerId}.till-1` }, till1);
  assert.ok(till1Only.body.report.every((row: any) => row.pos_device_id === 'till-1'));
  assert.is(till1Only.body.report.length, sales.filter((sale) => sale.device === 'till-1').length);
  const none = await api.post('/wallet/report/receivable', { pos_device: 'none' }, till1);
  assert.is(none.body.report.length, sales.filter((sale) => sale.device === null).length);
  const any = await api.post('/wallet/report/receivable', { pos_device: 'any' }, till1);
  assert.is(any.body.report.length, sales.filter((sale) => sale.device !== null).length);
  const outside = await api.post('/wallet/report/receivable', { settlement_types: ['non_service'] }, till1);
  assert.equal(outside.body.report.map((row: any) => row.received_amount), ['4.50']);
  const today = server.clock.now().toISOString().slice(0, 10);
  const dated = await api.post('/wallet/report/receivable', { start_date: today, end_date: today }, till1);
  assert.is(dated.body.report.length, rows.length);
  const future = await api.post('/wallet/report/receivable', { start_date: '2999-01-01' }, till1);
  assert.is(future.body.report.length, 0);
  for (const bad of [{ start_date: '2026-13-01' }, { pos_device: 'somewhere' }, { settlement_types: ['barter'] }, { end_date: '2000-01-01', start_date: '2001-01-01' }]) {
    const refused = await api.post('/wallet/report/receivable', bad, till1);
    assert.is(refused.status, 400, `${JSON.stringify(bad)}: ${refused.text}`);
  }

  const csv = await api.post('/wallet/report/receivable', { csv: true }, till1);
  assert.is(csv.status, 200, csv.text);
  assert.match(csv.headers.get('content-type') ?? '', /text\/csv/);
  const lines = csv.text.trim().split(/\r?\n/);
  const header = lines[0].split(',');
  assert.equal(header, Object.keys(rows[0]));
  const parsed = lines.slice(1).map((line) => Object.fromEntries(line.split(',').map((cell, index) => [header[index], cell])));
  const asCsv = rows.map((row: any) => Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value === null ? '' : String(value)])));
  assert.equal(parsed, asCsv);
  const customerReport = await api.post('/wallet/report/receivable', {}, pat.auth);
  assert.is(customerReport.body.report.length, 0, 'a customer received nothing');
  await assertAudit('report');
});

test('edge cases: a redeemer that is also the settler settles to itself; a static row may name the redeemer', async () => {
  const w = await world();
  const { grocery, gym, settler, gymDesignId } = w;
  const plan = async (title: string, recipients: Record<string, string>[]) => {
    const planId = (await api.post(`/design/${gymDesignId}/plan/create`, { title }, gym.auth)).body.plan_id;
    const patched = await api.patch(`/design/${gymDesignId}/plan/${planId}`, { recipients }, gym.auth);
    assert.is(patched.status, 200, patched.text);
    return planId;
  };
  const loyalty = await plan('Loyalty', [{ percentage: '100', loop_id: '0', recipient_type: 'discount', recipient_id: '0' }]);
  const shared = await plan('Shared', [
    { percentage: '90', loop_id: gymDesignId, recipient_type: 'redeemer', recipient_id: '0' },
    { percentage: '10', loop_id: gymDesignId, recipient_type: 'static', recipient_id: grocery.id },
  ]);
  const added = await api.post(`/design/${gymDesignId}/agreement/add`, { uid: `service:${grocery.id}`, redeemer: true, settler: true, terms_text: 'Both' }, gym.auth);
  assert.is(added.status, 200, added.text);
  assert.is((await api.post(`/design/${gymDesignId}/agreement/${added.body.agreement.id}/activate`, {}, grocery.auth)).status, 200);
  const lee = await customer();
  await issue(server, gym.id, '10.00');
  const send = (planId: string) => api.post(`/design/${gymDesignId}/send`, { recipient_uid: `service:${lee.id}`, distribution_plan_id: planId, amount: '10.00' }, gym.auth);
  const [fromLoyalty, fromShared] = [(await send(loyalty)).body.transfer.id, (await send(shared)).body.transfer.id];
  const groceryBefore = await usd(server, grocery.id);
  const spent = await api.post('/wallet/send', { recipient_uid: `service:${grocery.id}`, amounts: `${gymDesignId}-USD-20.00` }, lee.auth);
  assert.is(spent.status, 200, spent.text);
  const owed = await server.engine.sql<{ role: string; recipient_id: string; amount: bigint; state: string; dist_tid: string }[]>`
    select role, recipient_id, amount, state, dist_tid from settlements where redemption_transfer_id = ${spent.body.transfer.id} order by dist_tid = ${fromShared}, role`;
  assert.equal(owed.map((row) => [row.dist_tid, row.role, row.recipient_id, row.amount, row.state]), [
    [fromLoyalty, 'redeemer', grocery.id, 1000n, 'pending'],
    [fromShared, 'redeemer', grocery.id, 900n, 'funded'],
    [fromShared, 'static', grocery.id, 100n, 'funded'],
  ]);
  assert.is(BigInt((await usd(server, grocery.id)).replace('.', '')) - BigInt(groceryBefore.replace('.', '')), 1000n, 'the shared lot is paid from its reserve at once, both rows');
  await assertAudit('a static row naming the redeemer');
  const settled = await api.post(`/design/${gymDesignId}/settle`, {}, grocery.auth);
  assert.is(settled.status, 200, settled.text);
  assert.is(settled.body.pending, 0);
  assert.is(BigInt((await usd(server, grocery.id)).replace('.', '')) - BigInt(groceryBefore.replace('.', '')), 1000n, 'settling to itself moves no cash');
  const rows = (await api.post('/wallet/report/receivable', { settlement_types: ['redeem'] }, grocery.auth)).body.report;
  const byDist = Object.fromEntries(rows.map((row: any) => [row.dist_tid, [row.received_amount, row.settle_funded, row.settle_pending, row.settle_settled, row.settle_reclaimed]]));
  assert.equal(byDist, { [fromLoyalty]: ['10.00', '0.00', '0.00', '10.00', '0.00'], [fromShared]: ['10.00', '9.00', '0.00', '0.00', '1.00'] });
  await assertAudit('settled to itself');
});

test.run();
