// Proves brand cash keeps its promises (issue 21) over HTTP: terms are fixed at distribution (a plan
// edited later changes nothing already sold; an absolute expiry in the past is refused), expiry is
// final (expired notes are never picked, and notes back from a retracted trade after their expiry
// expire as they land), a distributor's server sells with a POST /p/token token under the default
// plan without moving open loop cash while the redeemer is shown as owed until a settler pays, and a
// bill of a deactivated distributor is not payable. The audit balances after every step.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp, userToken, type TestApp } from './foundation-helpers.ts';
import { issue, usd, type LedgerWorld } from './ledger-api-support.ts';
import { ledgerFingerprint } from './ledger-support.ts';
import { runOperatorCli } from './support/cli.ts';
import { assertRefused, type TestServer } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { brandPermissions, brandWorld, type Actor, type Auth } from './support/brand-world.ts';

let server: TestServer;
let world: LedgerWorld;
let app: TestApp;
const customerPermissions = [...brandPermissions, 'manage_sent', 'manage_received', 'apply_design'];
const { api, business, customer, assertAudit, brand } = brandWorld(() => ({ server, app }), { customerPermissions });
const day = 24 * 60 * 60 * 1000;

let cafe: Actor;
let grocer: Actor;
let books: Actor;
let pat: Actor;
let kim: Actor;

test.before(async () => {
  ({ server, world } = await startLedgerServer());
  app = world.app;
  cafe = await business('Cafe', ['design_gl']);
  grocer = await business('Grocer', ['bill']);
  books = await business('Book Nook');
  pat = await customer();
  kim = await customer();
  await issue(server, grocer.id, '1000.00');
  await issue(server, pat.id, '10.00');
});
test.after(async () => server.close());

/** Moves the clock on and signs everyone in again (concurrent tokens hard-expire after 15 minutes). */
async function advance(ms: number): Promise<void> {
  server.clock.advance(ms);
  for (const [actor, permissions] of [[cafe, brandPermissions], [grocer, brandPermissions], [books, brandPermissions], [pat, customerPermissions], [kim, customerPermissions]] as const) {
    const personalProfileId = actor.managerId === actor.id ? undefined : actor.managerId;
    actor.auth.auth.bearer = await userToken(server, app, actor.id, { personalProfileId, concurrent: true, permissions: [...permissions] });
  }
}

/** A cafe design with a default plan (redeemer 100%), the grocer as distributor and the bookshop as redeemer. */
async function cafeDesign(title: string, expire: Record<string, unknown> = { mode: null }): Promise<{ designId: string; planId: string; agreements: Record<string, string> }> {
  const created = await api.post('/design/create', { title, currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  assert.is(created.status, 200, created.text);
  const designId = created.body.id;
  const patched = await api.patch(`/design/${designId}`, { expire }, cafe.auth);
  assert.is(patched.status, 200, patched.text);
  const planId = (await api.post(`/design/${designId}/plan/create`, { title: 'Gift cards' }, cafe.auth)).body.plan_id;
  const agreements: Record<string, string> = {};
  for (const [name, member, roles] of [['grocer', grocer, { distributor: true }], ['books', books, { redeemer: true }]] as const) {
    const added = await api.post(`/design/${designId}/agreement/add`, { uid: `service:${member.id}`, ...roles, terms_text: 'Standard terms' }, cafe.auth);
    assert.is(added.status, 200, added.text);
    agreements[name] = added.body.agreement.id;
    const activated = await api.post(`/design/${designId}/agreement/${added.body.agreement.id}/activate`, {}, member.auth);
    assert.is(activated.status, 200, activated.text);
  }
  return { designId, planId, agreements };
}

function sell(designId: string, planId: string, to: Actor, amount: string, auth: Auth = grocer.auth) {
  return api.post(`/design/${designId}/send`, { recipient_uid: `service:${to.id}`, distribution_plan_id: planId, amount }, auth);
}

/** The redeemer's report row of a redemption transfer for a design. */
async function reportRow(redeemer: Actor, transferId: string, designId: string): Promise<Record<string, any>> {
  const answer = await api.post('/wallet/report/receivable', { settlement_types: ['redeem'] }, redeemer.auth);
  assert.is(answer.status, 200, answer.text);
  const row = answer.body.report.find((entry: any) => entry.transfer_id === transferId && entry.loop_id === designId);
  assert.ok(row, `a report row for ${transferId}`);
  return row;
}

test('a plan edited after distribution changes nothing already sold: the redeemer is paid by the terms it was sold under', async () => {
  const { designId, planId } = await cafeDesign('Terms kept');
  const sold = await sell(designId, planId, pat, '40.00');
  assert.is(sold.status, 200, sold.text);
  await assertAudit('sold');
  const patched = await api.patch(`/design/${designId}/plan/${planId}`, { recipients: [{ percentage: '100', loop_id: designId, recipient_type: 'static', recipient_id: cafe.id }] }, cafe.auth);
  assert.is(patched.status, 200, patched.text);
  const cafeBefore = await usd(server, cafe.id);
  const spent = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: `${designId}-USD-40.00` }, pat.auth);
  assert.is(spent.status, 200, spent.text);
  assert.is(await usd(server, books.id), '40.00', 'the bookshop is paid the face value, as the terms at distribution say');
  assert.is(await usd(server, cafe.id), cafeBefore, 'the cafe takes nothing the grocer paid into the reserve');
  const row = await reportRow(books, spent.body.transfer.id, designId);
  assert.is(row.settle_funded, '40.00');
  assert.is(row.settle_reclaimed, '0.00');
  await assertAudit('redeemed');
});

test('the audit proves each redemption kept the terms of its distribution: a settlement short of them is a problem', async () => {
  const { designId, planId } = await cafeDesign('Audited terms');
  assert.is((await sell(designId, planId, pat, '12.00')).status, 200);
  const spent = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: `${designId}-USD-12.00` }, pat.auth);
  assert.is(spent.status, 200, spent.text);
  await assertAudit('kept');
  const transferId = spent.body.transfer.id;
  await server.engine.sql`update settlements set amount = amount - 1 where redemption_transfer_id = ${transferId}`;
  try {
    const report = await server.engine.services.ledger.cash.audit();
    assert.ok(report.problems.some((problem) => problem.includes(`redemption ${transferId}`) && problem.includes('terms at distribution promise 1200')), report.problems.join('; '));
  } finally {
    await server.engine.sql`update settlements set amount = amount + 1 where redemption_transfer_id = ${transferId}`;
  }
  await assertAudit('restored');
});

test('an absolute expiry in the past is refused, and a design whose expiry has passed issues nothing', async () => {
  const { designId, planId } = await cafeDesign('Past expiry');
  const before = await ledgerFingerprint(server.engine);
  const past = await api.patch(`/design/${designId}`, { expire: { mode: 'absolute', absolute: '1970-01-01T00:00:00Z' } }, cafe.auth);
  assertRefused(past, 400, 'expiry_in_past');
  const design = await api.get(`/design/${designId}`, cafe.auth);
  assert.is(design.body.expire?.mode ?? null, null, 'the refused expiry was not kept');
  const soon = new Date(server.clock.now().getTime() + day).toISOString();
  const set = await api.patch(`/design/${designId}`, { expire: { mode: 'absolute', absolute: soon } }, cafe.auth);
  assert.is(set.status, 200, set.text);
  assert.equal(await ledgerFingerprint(server.engine), before);
  await advance(2 * day);
  const late = await sell(designId, planId, pat, '25.00');
  assert.is(late.status, 400, late.text);
  assert.is(late.body.send_errors[0].code, 'design_expired');
  assert.equal(await ledgerFingerprint(server.engine), before, 'a refused sale changes nothing');
  await assertAudit('refused sale');
});

test('expired notes are never picked, even before the sweep reaches them', async () => {
  const { designId, planId } = await cafeDesign('Not yet swept', { mode: 'relative', relative: 1 });
  assert.is((await sell(designId, planId, kim, '5.00')).status, 200);
  await advance(2 * day);
  const before = await ledgerFingerprint(server.engine);
  const spent = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: `${designId}-USD-5.00` }, kim.auth);
  assert.is(spent.status, 400, spent.text);
  assert.is(spent.body.send_errors[0].code, 'insufficient_funds');
  assert.equal(await ledgerFingerprint(server.engine), before);
  await server.engine.sweeper.runOnce();
  assert.is(await brand(kim.id, designId), '0.00');
  await assertAudit('swept');
});

test('brand cash that expired in a trade expires as the retraction returns it, and its reserve goes to the issuer', async () => {
  const { designId, planId } = await cafeDesign('Escrowed expiry', { mode: 'relative', relative: 1 });
  assert.is((await sell(designId, planId, pat, '20.00')).status, 200);
  const trade = await api.post('/wallet/trade', {
    recipient_uid: `service:${kim.id}`, amounts: [{ loop_id: designId, currency: 'USD', amount: '20.00' }], expect_amounts: [{ loop_id: '0', currency: 'USD', amount: '1.00' }],
    accept_expire_seconds: 5 * 24 * 60 * 60,
  }, pat.auth);
  assert.is(trade.status, 200, trade.text);
  await advance(2 * day);
  await server.engine.sweeper.runOnce();
  await assertAudit('expired in escrow');
  await issue(server, kim.id, '1.00');
  const frozen = await ledgerFingerprint(server.engine);
  const accepted = await api.post(`/t/${trade.body.transfer.id}/accept-trade`, {}, kim.auth);
  assert.is(accepted.status, 400, accepted.text);
  assert.is(accepted.body.send_errors[0].code, 'cash_expired', 'expired cash does not move to the accepter');
  assert.equal(await ledgerFingerprint(server.engine), frozen);
  const cafeBefore = await usd(server, cafe.id);
  const retracted = await api.post(`/t/${trade.body.transfer.id}/retract`, { reason: 'other' }, pat.auth);
  assert.is(retracted.status, 200, retracted.text);
  assert.is(await brand(pat.id, designId), '0.00', 'the notes expired as they landed');
  assert.is(BigInt((await usd(server, cafe.id)).replace('.', '')) - BigInt(cafeBefore.replace('.', '')), 2000n, 'their reserve went to the issuer');
  const report = await assertAudit('retracted');
  assert.is(report.totals.find((row) => row.loop_id === designId)?.expired, '20.00');
  const spent = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: `${designId}-USD-20.00` }, pat.auth);
  assert.is(spent.status, 400, spent.text);
  assert.is(spent.body.send_errors[0].code, 'insufficient_funds', 'expired cash is not spendable');
});

test("FerlySite: the distributor's server sells with a /p/token token; no open loop cash moves and the redeemer is owed until a settler pays", async () => {
  const { designId, planId } = await cafeDesign('Ferly gift');
  const ferlySite = await createApp(server);
  const token = await server.client.post('/p/token', { uid: `service:${grocer.id}`, manager_uid: `service:${grocer.managerId}` }, { auth: ferlySite.basic });
  assert.is(token.status, 200, token.text);
  const closed: Auth = { auth: { bearer: token.body.access_token } };
  const grocerBefore = await usd(server, grocer.id);
  const sold = await sell(designId, planId, pat, '25.00', closed);
  assert.is(sold.status, 200, sold.text);
  assert.is(await usd(server, grocer.id), grocerBefore, 'the closed-loop token moved no open loop cash');
  assert.is(await brand(pat.id, designId), '25.00');
  const afterSale = await assertAudit('closed-loop sale');
  assert.is(afterSale.reserves.find((row) => row.design_id === designId)?.reserve ?? '0.00', '0.00', 'the reserve is owed, not paid');
  const booksBefore = await usd(server, books.id);
  const spent = await api.post('/wallet/send', { recipient_uid: `service:${books.id}`, amounts: `${designId}-USD-25.00` }, pat.auth);
  assert.is(spent.status, 200, spent.text);
  assert.is(await usd(server, books.id), booksBefore);
  const owed = await reportRow(books, spent.body.transfer.id, designId);
  assert.is(owed.is_fundable, true);
  assert.is(owed.settle_pending, '25.00', 'the bookshop is shown as owed the face value');
  await assertAudit('redeemed while owed');
  assert.equal(await grocerOwes(designId), { reserve_owed: '25.00', pending: '25.00', settled: '0.00' }, "the operator's audit shows what the grocer's sales left owed");
  const settled = await api.post(`/design/${designId}/settle`, {}, cafe.auth);
  assert.is(settled.status, 200, settled.text);
  assert.is(BigInt((await usd(server, books.id)).replace('.', '')) - BigInt(booksBefore.replace('.', '')), 2500n, 'the settler paid the bookshop');
  const paid = await reportRow(books, spent.body.transfer.id, designId);
  assert.is(paid.settle_pending, '0.00');
  assert.is(paid.settle_settled, '25.00');
  await assertAudit('settled');
  assert.equal(await grocerOwes(designId), { reserve_owed: '25.00', pending: '0.00', settled: '25.00' });
  const printed = await runOperatorCli(server.baseUrl, ['audit']);
  assert.is(printed.code, 0, printed.out);
  assert.match(printed.out, new RegExp(`reserve owed by distributors[\\s\\S]*${designId}\\s+${grocer.id}\\s+USD\\s+25\\.00\\s+0\\.00\\s+25\\.00`), printed.out);
});

/** The grocer's row of the audit's reserve owed per distributor (GET /admin/ledger/audit `owed`). */
async function grocerOwes(designId: string): Promise<Record<string, string> | undefined> {
  const audit = await server.client.request('GET', '/admin/ledger/audit', undefined, { auth: { operator: true } });
  assert.is(audit.status, 200, audit.text);
  const row = audit.body.owed.find((entry: any) => entry.design_id === designId && entry.distributor_id === grocer.id);
  return row && { reserve_owed: row.reserve_owed, pending: row.pending, settled: row.settled };
}

test('a closed-loop token still cannot sell under a plan that pays fees or proceeds at once', async () => {
  const { designId, planId } = await cafeDesign('Ferly fees');
  const patched = await api.patch(`/design/${designId}/plan/${planId}`, { recipients: [{ percentage: '90', loop_id: designId, recipient_type: 'redeemer', recipient_id: '0' }] }, cafe.auth);
  assert.is(patched.status, 200, patched.text);
  const token = await server.client.post('/p/token', { uid: `service:${grocer.id}`, manager_uid: `service:${grocer.managerId}` }, { auth: (await createApp(server)).basic });
  assert.is(token.status, 200, token.text);
  const before = await ledgerFingerprint(server.engine);
  const sold = await sell(designId, planId, pat, '10.00', { auth: { bearer: token.body.access_token } });
  assert.is(sold.status, 400, sold.text);
  assert.is(sold.body.send_errors[0].code, 'open_loop_not_permitted');
  assert.equal(await ledgerFingerprint(server.engine), before);
});

test("a bill from a distributor whose agreement was deactivated is not payable, and paying it changes nothing", async () => {
  const { designId, planId, agreements } = await cafeDesign('Billed');
  const billed = await api.post(`/design/${designId}/bill`, { amount: '5.00', distribution_plan_id: planId, sender_uid: `service:${pat.id}` }, grocer.auth);
  assert.is(billed.status, 200, billed.text);
  const deactivated = await api.post(`/design/${designId}/agreement/${agreements.grocer}/deactivate`, {}, cafe.auth);
  assert.is(deactivated.status, 200, deactivated.text);
  const before = await ledgerFingerprint(server.engine);
  const paid = await api.post(`/t/${billed.body.transfer.id}/accept`, {}, pat.auth);
  assertRefused(paid, 409, 'agreement_inactive');
  assert.equal(await ledgerFingerprint(server.engine), before);
  const outside = await server.client.post(`/admin/bills/${billed.body.transfer.id}/paid`, {}, { auth: { operator: true } });
  assertRefused(outside, 409, 'agreement_inactive');
  assert.equal(await ledgerFingerprint(server.engine), before);
  assert.is(await brand(pat.id, designId), '0.00');
  await assertAudit('refused bill');
});

test.run();
