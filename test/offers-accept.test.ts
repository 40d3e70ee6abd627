// Proves offers end to end over HTTP: merchants create, edit, list and close them (and who may
// not); people accept them for open loop cash or brand cash, with and without the email
// confirmation flow; a business that cannot pay answers 503 with the canceled transfer and keeps
// its stock; 50 concurrent accepts never oversell; signup_accept creates the person, keeps only a
// hash of the PIN (usable for refresh) and answers a token with exactly the spec's permissions;
// the ledger audit balances after every story.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designPermissions } from '../engine/designs/service.ts';
import type { OutgoingMessage } from '../engine/messages/service.ts';
import { signupAcceptPermissions } from '../engine/offers/service.ts';
import { countRows, userToken, type TestApp } from './foundation-helpers.ts';
import { issue, usd, type LedgerWorld } from './ledger-api-support.ts';
import { ledgerFingerprint } from './ledger-support.ts';
import { type TestServer, assertRefused } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { brandWorld, type Actor, type Auth } from './support/brand-world.ts';

let server: TestServer;
let world: LedgerWorld;
let app: TestApp;
const merchantPermissions = [...designPermissions, 'create_design', 'preview_offer', 'send_cash', 'view_wallet', 'view_history', 'receive_cash', 'manage_sent'];
const emails: OutgoingMessage[] = [];
const { business, customer: person, brand, assertAudit } = brandWorld(() => ({ server, app }), {
  businessPermissions: merchantPermissions,
  customerPermissions: ['accept_offer', 'view_wallet', 'view_history', 'preview_offer', 'send_cash'],
});

const post = (path: string, body: Record<string, unknown>, auth?: Auth) => server.client.post(path, body, auth);
const get = (path: string, auth?: Auth) => server.client.request('GET', path, undefined, auth ?? {});

async function offer(owner: Actor, fields: Record<string, unknown>): Promise<any> {
  const created = await post('/o/create', { title: 'Free coffee', amount: '5.00', quantity: 10, ...fields }, owner.auth);
  assert.is(created.status, 200, created.text);
  return created.body;
}

async function waitForEmail(to: string): Promise<OutgoingMessage> {
  for (let tries = 0; tries < 100; tries++) {
    const found = emails.find((message) => message.to === to);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no email reached ${to}`);
}

let cafe: Actor;
let designId: string;
let planId: string;

test.before(async () => {
  ({ server, world } = await startLedgerServer());
  app = world.app;
  server.engine.services.messages.setTransport('email', async (message) => {
    emails.push(message);
  });
  cafe = await business('Cafe', ['design_gl']);
  await issue(server, cafe.id, '1000.00');
  const design = await post('/design/create', { title: 'Cafe Gift', currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  designId = design.body.id;
  const plan = await post(`/design/${designId}/plan/create`, { title: 'Offers' }, cafe.auth);
  planId = plan.body.plan_id;
  // A tenth of the face value goes to the reserve for the redeemer: the business pays it in open loop cash.
  const patched = await server.client.request('PATCH', `/design/${designId}/plan/${planId}`, {
    recipients: [{ percentage: '10', loop_id: designId, recipient_type: 'redeemer', recipient_id: '0' }],
  }, cafe.auth);
  assert.is(patched.status, 200, patched.text);
});

test.after(async () => {
  await server.close();
});

test('merchants create offers; bad fields, people and strangers are refused; edits and closing; info and list', async () => {
  const refusals: [Record<string, unknown>, number, string][] = [
    [{ options: [{ payment_type: 'free', price: '1.00' }] }, 400, 'options.0.price'],
    [{ options: [{ payment_type: 'service' }] }, 400, 'options.0.price'],
    [{ options: [{ option_id: 'a', payment_type: 'free' }, { option_id: 'a', payment_type: 'funded' }] }, 400, 'options.1.option_id'],
    [{ design_id: designId }, 400, 'distribution_plan_id'],
    [{ amount: '1.001' }, 400, 'amount'],
    [{ amount: '0' }, 400, 'amount'],
    [{ title: '' }, 400, 'title'],
    [{ show_limit: 0 }, 400, 'show_limit'],
    [{ latitude: '41' }, 400, 'longitude'],
    [{ expires_at: '2020-01-01T00:00:00Z', starts_at: '2021-01-01T00:00:00Z' }, 400, 'expires_at'],
    [{ banner: 'ftp://example.com/a.png' }, 400, 'banner'],
    [{ surprise: 1 }, 400, 'surprise'],
  ];
  for (const [fields, status, field] of refusals) {
    const answer = await post('/o/create', { title: 'Coffee', amount: '5.00', quantity: 10, ...fields }, cafe.auth);
    assert.is(answer.status, status, `${JSON.stringify(fields)}: ${answer.text}`);
    assert.ok(answer.body.invalid?.[field], `${JSON.stringify(fields)} names ${field}: ${answer.text}`);
  }
  const pat = await person();
  const byPerson = await post('/o/create', { title: 'Mine', amount: '1.00', quantity: 1 }, pat.auth);
  assert.is(byPerson.status, 403, byPerson.text);
  const stranger = await business('Stranger');
  const theirs = await post('/o/create', { title: 'Theirs', amount: '1.00', quantity: 1, design_id: designId, distribution_plan_id: planId }, stranger.auth);
  assert.is(theirs.status, 403, theirs.text);

  const created = await offer(cafe, {
    title: 'Latte', description: 'Any size', show_limit: 2, banner: 'https://example.com/b.png', metadata_image: 'https://example.com/m.png',
    metadata_description: 'A latte', options: [{ option_id: 'free', payment_type: 'free' }, { option_id: 'card', payment_type: 'paycard' }],
  });
  assert.is(created.amount, '5.00');
  assert.is(created.purchases_remain, 10);
  assert.equal(created.options.map((option: any) => [option.option_id, option.payment_type]), [['free', 'free'], ['card', 'paycard']]);
  assertRefused(await server.client.request('PATCH', `/o/${created.id}`, { title: 'Nope' }, stranger.auth), 403, 'forbidden');
  const edited = await server.client.request('PATCH', `/o/${created.id}`, { title: 'Big latte', quantity: 4 }, cafe.auth);
  assert.is(edited.status, 200, edited.text);
  assert.is(edited.body.title, 'Big latte');
  assert.is(edited.body.purchases_remain, 4);
  const info = await get(`/o/${created.id}/info`);
  assert.is(info.status, 200, info.text);
  for (const key of ['banner', 'metadata_image', 'metadata_description', 'options', 'show_limit']) assert.ok(key in info.body.offer, key);
  assertRefused(await get('/o/0000000000/info'), 404, 'not_found');
  assertRefused(await get('/o/abc/info'), 404, 'not_found');
  const listed = await get('/o/list', cafe.auth);
  assert.is(listed.status, 200, listed.text);
  assert.ok(listed.body.offers.some((row: any) => row.id === created.id));
  assert.is((await get('/o/list', stranger.auth)).body.offers.length, 0);
  assert.is((await get('/o/list', pat.auth)).body.offers.length, 0);
  const closed = await post(`/o/${created.id}/close`, {}, cafe.auth);
  assert.is(closed.body.state, 'closed');
  assertRefused(await post(`/o/${created.id}/close`, {}, cafe.auth), 400, 'closed');
  assertRefused(await server.client.request('PATCH', `/o/${created.id}`, { title: 'Again' }, cafe.auth), 400, 'closed');
  const accepted = await post(`/o/${created.id}/accept`, { option_id: 'free' }, pat.auth);
  assert.is(accepted.status, 400, accepted.text);
  assert.is(accepted.body.error, 'closed');
});

test('a profile holding edit_design on the paying design manages the issuer\'s offers for it, with a token carrying edit_design', async () => {
  const agency = await business('Agency');
  await server.engine.sql`
    insert into design_grants (design_id, profile_id, permission, created_at) values (${designId}, ${agency.id}, 'edit_design', now()), (${designId}, ${agency.id}, 'view_design', now())`;
  const made = await post('/o/create', { title: 'Agency deal', amount: '4.00', quantity: 3, design_id: designId, distribution_plan_id: planId }, agency.auth);
  assert.is(made.status, 200, made.text);
  assert.is(made.body.profile_id, cafe.id, 'the offer belongs to the design\'s issuer');
  const patched = await server.client.request('PATCH', `/o/${made.body.id}`, { title: 'Agency deal, improved' }, agency.auth);
  assert.is(patched.status, 200, patched.text);
  assert.ok((await get('/o/list', agency.auth)).body.offers.some((row: any) => row.id === made.body.id));
  assert.is((await get('/o/list', agency.auth)).body.loop_links[designId].manage_url.endsWith(`/design/${designId}`), true);
  const plainToken = { auth: { bearer: await userToken(server, app, agency.id, { concurrent: true, permissions: ['preview_offer'] }) } };
  assert.is((await server.client.request('PATCH', `/o/${made.body.id}`, { title: 'No' }, plainToken)).status, 403, 'the token must carry edit_design');
  const openLoop = await post('/o/create', { title: 'Not theirs', amount: '1.00', quantity: 1, profile_id: cafe.id }, agency.auth);
  assert.is(openLoop.status, 400, 'profile_id is for operators');
  assert.is((await post(`/o/${made.body.id}/close`, {}, agency.auth)).status, 200);
});

test('accept an open loop offer: cash, transfer, profile; dedup_id repeats the answer; show_limit, options and callers are checked', async () => {
  const created = await offer(cafe, { title: 'Five dollars', show_limit: 2 });
  const pat = await person();
  const before = await usd(server, cafe.id);
  const body = { option_id: 'free', quantity: 2, dedup_id: 'first', private: false, referrer_id: cafe.id, 'appdata.campaign': 'spring', message_rules: [{ kind: 'thanks' }] };
  const accepted = await post(`/o/${created.id}/accept`, body, pat.auth);
  assert.is(accepted.status, 200, accepted.text);
  assert.is(accepted.body.confirming, false);
  assert.is(accepted.body.profile.id, pat.id);
  assert.is(accepted.body.transfer.workflow_type, 'purchase_offer');
  assert.is(accepted.body.transfer.completed, true);
  assert.is(accepted.body.transfer['appdata.campaign'], 'spring');
  assert.is(await usd(server, pat.id), '10.00');
  assert.is(Number(before) - Number(await usd(server, cafe.id)), 10);
  const again = await post(`/o/${created.id}/accept`, body, pat.auth);
  assert.is(again.status, 200, again.text);
  assert.is(again.body.transfer.id, accepted.body.transfer.id, 'the same dedup_id answers the same transfer');
  assert.is(await usd(server, pat.id), '10.00');
  const overLimit = await post(`/o/${created.id}/accept`, { option_id: 'free' }, pat.auth);
  assert.is(overLimit.status, 400, 'show_limit counts what this person already accepted');
  assert.ok(overLimit.body.invalid.quantity);
  const sam = await person();
  const tooMany = await post(`/o/${created.id}/accept`, { option_id: 'free', quantity: 3 }, sam.auth);
  assert.ok(tooMany.body.invalid.quantity, tooMany.text);
  assert.is((await post(`/o/${created.id}/accept`, { option_id: 'gold' }, sam.auth)).body.invalid.option_id !== undefined, true);
  assertRefused(await post(`/o/${created.id}/accept`, {}, sam.auth), 400, 'invalid');
  assertRefused(await post('/o/0000000000/accept', { option_id: 'free' }, sam.auth), 404, 'not_found');
  assertRefused(await post(`/o/${created.id}/accept`, { option_id: 'free', referrer_id: sam.id }, sam.auth), 400, 'invalid');
  assert.is((await post(`/o/${created.id}/accept`, { option_id: 'free' }, cafe.auth)).status, 403, 'a business does not accept offers');
  const noScope = { auth: { bearer: await userToken(server, app, sam.id, { concurrent: true, permissions: ['view_wallet'] }) } };
  assertRefused(await post(`/o/${created.id}/accept`, { option_id: 'free' }, noScope), 403, 'insufficient_scope');
  assertRefused(await post(`/o/${created.id}/accept`, { option_id: 'free' }), 401, 'invalid_token');
  const card = await offer(cafe, { title: 'Card only', options: [{ option_id: 'card', payment_type: 'paycard' }] });
  const paycard = await post(`/o/${card.id}/accept`, { option_id: 'card' }, sam.auth);
  assert.is(paycard.status, 400, paycard.text);
  assert.match(paycard.body.error_description, /paycard/);
  const info = await get(`/o/${created.id}/info`);
  assert.is(info.body.offer.purchases_remain, 8);
  await assertAudit('open loop accept');
});

test("an accept's dedup_id through the one wrapper: racing repeats make one accept; another request is 409 dedup_id_reused and moves nothing; keys from before digests compare their fields", async () => {
  const created = await offer(cafe, { title: 'Keyed', show_limit: 5 });
  const pat = await person();
  const body = { option_id: 'free', quantity: 1, dedup_id: 'keyed' };
  const racing = await Promise.all([1, 2, 3, 4].map(() => post(`/o/${created.id}/accept`, body, pat.auth)));
  for (const answer of racing) assert.is(answer.status, 200, answer.text);
  const transferId = racing[0].body.transfer.id;
  assert.equal([...new Set(racing.map((answer) => answer.body.transfer.id))], [transferId], 'every repeat answers the one accept');
  assert.is(await usd(server, pat.id), '5.00');
  const before = await ledgerFingerprint(server.engine);
  assertRefused(await post(`/o/${created.id}/accept`, { ...body, quantity: 2 }, pat.auth), 409, 'dedup_id_reused');
  assertRefused(await post(`/o/${created.id}/accept`, { ...body, referrer_id: cafe.id }, pat.auth), 409, 'dedup_id_reused');
  const another = await offer(cafe, { title: 'Another' });
  assertRefused(await post(`/o/${another.id}/accept`, body, pat.auth), 409, 'dedup_id_reused');
  const [digested] = await server.engine.sql<{ request_digest: string | null }[]>`select request_digest from offer_acceptances where accepter_id = ${pat.id} and dedup_id = 'keyed'`;
  assert.ok(digested.request_digest, 'the key keeps its request\'s digest');
  // A key claimed before migration 1050 has no digest: the acceptance's offer, option, quantity and referrer decide.
  await server.engine.sql`update offer_acceptances set request_digest = null where accepter_id = ${pat.id} and dedup_id = 'keyed'`;
  const repeated = await post(`/o/${created.id}/accept`, body, pat.auth);
  assert.is(repeated.status, 200, repeated.text);
  assert.is(repeated.body.transfer.id, transferId);
  assertRefused(await post(`/o/${created.id}/accept`, { ...body, quantity: 2 }, pat.auth), 409, 'dedup_id_reused');
  assert.is(await ledgerFingerprint(server.engine), before, 'nothing moved after the first accept');
  assert.is((await get(`/o/${created.id}/info`)).body.offer.purchases_remain, 9, 'one unit of stock taken');
  await assertAudit('keyed accepts');
});

test('an accept that would take the accepter over max_per_wallet is a 400 naming quantity, not the 503 of a business that cannot pay', async () => {
  const capped = await post('/design/create', { title: 'Capped Gift', currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  const cappedPlan = (await post(`/design/${capped.body.id}/plan/create`, { title: 'Offers' }, cafe.auth)).body.plan_id;
  assert.is((await server.client.request('PATCH', `/design/${capped.body.id}`, { max_per_wallet: '30.00' }, cafe.auth)).status, 200);
  const created = await offer(cafe, { title: 'Capped deal', amount: '20.00', design_id: capped.body.id, distribution_plan_id: cappedPlan, show_limit: 3 });
  const pat = await person();
  assert.is((await post(`/o/${created.id}/accept`, { option_id: 'free' }, pat.auth)).status, 200);
  const before = await ledgerFingerprint(server.engine);
  const over = await post(`/o/${created.id}/accept`, { option_id: 'free' }, pat.auth);
  assertRefused(over, 400, 'invalid');
  assert.match(over.body.invalid?.quantity ?? '', /max_per_wallet/);
  assert.equal(await ledgerFingerprint(server.engine), before, 'nothing moved');
  assert.is((await get(`/o/${created.id}/info`)).body.offer.purchases_remain, 9, 'the stock taken for the refused accept went back');
  await assertAudit('accept over the cap');
});

test('a brand cash offer issues the design\'s cash through its plan; a service option charges the accepter its price', async () => {
  const created = await offer(cafe, {
    title: 'Gift card deal', amount: '20.00', design_id: designId, distribution_plan_id: planId,
    options: [{ option_id: 'free', payment_type: 'free' }, { option_id: 'buy', payment_type: 'service', price: '15.00' }],
  });
  assert.is(created.loop_id, designId);
  const pat = await person();
  const cafeBefore = Number(await usd(server, cafe.id));
  const free = await post(`/o/${created.id}/accept`, { option_id: 'free' }, pat.auth);
  assert.is(free.status, 200, free.text);
  assert.is(await brand(pat.id, designId), '20.00');
  assert.is(cafeBefore - Number(await usd(server, cafe.id)), 2, 'the business pays the 10% reserve in open loop cash');
  const buyer = await person();
  await issue(server, buyer.id, '15.00');
  const bought = await post(`/o/${created.id}/accept`, { option_id: 'buy' }, buyer.auth);
  assert.is(bought.status, 200, bought.text);
  assert.is(await usd(server, buyer.id), '0.00');
  assert.is(await brand(buyer.id, designId), '20.00');
  const broke = await person();
  const short = await post(`/o/${created.id}/accept`, { option_id: 'buy' }, broke.auth);
  assert.is(short.status, 503, short.text);
  // A deleted plan pays nothing (and never open loop cash instead).
  const doomedPlan = await post(`/design/${designId}/plan/create`, { title: 'Doomed' }, cafe.auth);
  const doomed = await offer(cafe, { title: 'Doomed deal', design_id: designId, distribution_plan_id: doomedPlan.body.plan_id });
  assert.is((await server.client.request('DELETE', `/design/${designId}/plan/${doomedPlan.body.plan_id}`, undefined, cafe.auth)).status, 200);
  const orphan = await post(`/o/${doomed.id}/accept`, { option_id: 'free' }, broke.auth);
  assert.is(orphan.status, 400, orphan.text);
  assert.is(orphan.body.error, 'not_available');
  assert.is(await usd(server, broke.id), '0.00');
  const info = await get(`/o/${created.id}/info`);
  assert.is(info.body.loop_links[designId].title, 'Cafe Gift');
  assert.is(info.body.offer.purchases_remain, 8);
  await assertAudit('brand cash accept');
});

test('a business that cannot pay answers 503 with error, error_description and the canceled transfer; the stock stays', async () => {
  const poor = await business('Poor Cafe');
  const created = await offer(poor, { title: 'Nothing to give' });
  const pat = await person();
  const before = await ledgerFingerprint(server.engine);
  const answer = await post(`/o/${created.id}/accept`, { option_id: 'free' }, pat.auth);
  assert.is(answer.status, 503, answer.text);
  assert.is(answer.body.error, 'transfer_failed');
  assert.match(answer.body.error_description, /insufficient_funds/);
  assert.is(answer.body.transfer.canceled, true);
  assert.is(answer.body.transfer.workflow_type, 'purchase_offer');
  assert.is((await get(`/o/${created.id}/info`)).body.offer.purchases_remain, 10);
  const after = await ledgerFingerprint(server.engine);
  assert.is(after.replace(/"transfers":"\d+"/, ''), before.replace(/"transfers":"\d+"/, ''), 'no cash moved');
  await assertAudit('503');
});

test('a suspended business does not pay out and a suspended person does not accept; nothing changes', async () => {
  const created = await offer(cafe, { title: 'Suspense' });
  const pat = await person();
  const operator = { auth: { operator: true } } as never;
  const before = await ledgerFingerprint(server.engine);
  assert.is((await post(`/admin/profiles/${cafe.id}/wallet`, { action: 'suspend' }, operator)).status, 200);
  const paused = await post(`/o/${created.id}/accept`, { option_id: 'free' }, pat.auth);
  assert.is(paused.status, 400, paused.text);
  assert.is(paused.body.error, 'not_available');
  assert.is((await post(`/admin/profiles/${cafe.id}/wallet`, { action: 'unsuspend' }, operator)).status, 200);
  assert.is((await post(`/admin/profiles/${pat.id}/wallet`, { action: 'suspend' }, operator)).status, 200);
  // A suspended wallet's token does not authenticate at all.
  assertRefused(await post(`/o/${created.id}/accept`, { option_id: 'free' }, pat.auth), 401, 'invalid_token');
  assert.is(await ledgerFingerprint(server.engine), before);
  assert.is((await get(`/o/${created.id}/info`)).body.offer.purchases_remain, 10);
});

test('an offer needing confirmed contact: email required, confirming until the link is followed, then the cash arrives', async () => {
  const created = await offer(cafe, { title: 'Confirmed only', require_confirmation: true });
  const pat = await person();
  const noEmail = await post(`/o/${created.id}/accept`, { option_id: 'free' }, pat.auth);
  assert.is(noEmail.status, 400, noEmail.text);
  assert.ok(noEmail.body.invalid.email);
  const accepted = await post(`/o/${created.id}/accept`, { option_id: 'free', email: 'Pat@Example.com' }, pat.auth);
  assert.is(accepted.status, 200, accepted.text);
  assert.is(accepted.body.confirming, true);
  assert.is(accepted.body.profile, undefined, 'no profile while confirming');
  assert.is(accepted.body.transfer.completed, false);
  assert.is(await usd(server, pat.id), '0.00');
  assert.is((await get(`/o/${created.id}/info`)).body.offer.purchases_remain, 9, 'the stock is held');
  const message = await waitForEmail('pat@example.com');
  assert.is(message.template, 'transfer-offer-confirm-link');
  const code = /\/offer-confirm\/([A-Za-z0-9_-]+)/.exec(message.text)![1];
  const shortcut = await post(`/t/${accepted.body.transfer.id}/accept`, {}, pat.auth);
  assert.is(shortcut.status >= 400 && shortcut.status < 500, true, `only the link completes a confirming accept: ${shortcut.text}`);
  assertRefused(await get('/offer-confirm/wrong-code-0123456789'), 404, 'not_found');
  const confirmed = await get(`/offer-confirm/${code}`);
  assert.is(confirmed.status, 200, confirmed.text);
  assert.is(confirmed.body.transfer.completed, true);
  assert.is(confirmed.body.transfer.id, accepted.body.transfer.id);
  assert.is(await usd(server, pat.id), '5.00');
  assert.ok((await server.engine.services.profiles.confirmedUids(server.engine.sql, pat.id)).includes('email:pat@example.com'));
  const twice = await get(`/offer-confirm/${code}`);
  assert.is(twice.status, 200, 'following the link again changes nothing');
  assert.is(await usd(server, pat.id), '5.00');
  // With a confirmed email the next accept completes at once.
  const other = await offer(cafe, { title: 'Confirmed again', require_confirmation: true });
  const direct = await post(`/o/${other.id}/accept`, { option_id: 'free' }, pat.auth);
  assert.is(direct.status, 200, direct.text);
  assert.is(direct.body.confirming, false);
  assert.is(direct.body.profile.id, pat.id);
  const someoneElse = await person();
  const taken = await post(`/o/${other.id}/accept`, { option_id: 'free', email: 'pat@example.com' }, someoneElse.auth);
  assert.is(taken.status, 400, taken.text);
  // The business retracts a waiting accept: following the link then finds nothing, the stock comes back.
  const sam = await person();
  const waiting = await post(`/o/${created.id}/accept`, { option_id: 'free', email: 'sam@example.com' }, sam.auth);
  assert.is(waiting.body.confirming, true);
  assert.is((await get(`/o/${created.id}/info`)).body.offer.purchases_remain, 8);
  const retracted = await post(`/t/${waiting.body.transfer.id}/retract`, { reason: 'not_available' }, cafe.auth);
  assert.is(retracted.status, 200, retracted.text);
  const samCode = /\/offer-confirm\/([A-Za-z0-9_-]+)/.exec((await waitForEmail('sam@example.com')).text)![1];
  assertRefused(await get(`/offer-confirm/${samCode}`), 404, 'not_found');
  assert.is((await get(`/o/${created.id}/info`)).body.offer.purchases_remain, 9);
  assert.is(await usd(server, sam.id), '0.00');
  await assertAudit('confirmation');
});

test('closed-loop tokens (POST /p/token) commit no open loop cash: brand cash offers leave the reserve owed, plans with fees and priced options are refused', async () => {
  const closedToken = async (body: Record<string, unknown>) => {
    const answer = await server.client.post('/p/token', body, { auth: app.basic });
    assert.is(answer.status, 200, answer.text);
    return { auth: { bearer: answer.body.access_token as string } };
  };
  const cafeClosed = await closedToken({ uid: `service:${cafe.id}`, manager_uid: `service:${cafe.managerId}` });
  const openLoop = await post('/o/create', { title: 'Open loop', amount: '1.00', quantity: 1 }, cafeClosed);
  assert.is(openLoop.status, 403, openLoop.text);
  // A plan whose reserve the business would pay: the offer is made, and its accepts leave the reserve owed (as the token's design sends do).
  const reserved = await post('/o/create', { title: 'Reserved', amount: '1.00', quantity: 2, design_id: designId, distribution_plan_id: planId }, cafeClosed);
  assert.is(reserved.status, 200, reserved.text);
  const cafeUsd = await usd(server, cafe.id);
  const sam = await person();
  const owedBefore = await owedOf(cafe.id);
  const got = await post(`/o/${reserved.body.id}/accept`, { option_id: reserved.body.options[0].option_id }, sam.auth);
  assert.is(got.status, 200, got.text);
  assert.is(await brand(sam.id, designId), '1.00');
  assert.is(await usd(server, cafe.id), cafeUsd, 'the business paid no open loop cash into the reserve');
  assert.is(await owedOf(cafe.id), owedBefore + 10, 'the audit shows the reserve (10% of 1.00) owed by the business');
  // A plan that pays fees at distribution is refused at creation, and after the offer's plan is
  // edited to pay one, its next accept is refused and moves nothing.
  const fees = [{ percentage: '5', loop_id: '0', recipient_type: 'static', recipient_id: (await business('Broker')).id }];
  const feePlan = await post(`/design/${designId}/plan/create`, { title: 'With a fee' }, cafe.auth);
  assert.is((await server.client.request('PATCH', `/design/${designId}/plan/${feePlan.body.plan_id}`, { recipients: fees }, cafe.auth)).status, 200);
  const withFee = await post('/o/create', { title: 'Fee', amount: '1.00', quantity: 1, design_id: designId, distribution_plan_id: feePlan.body.plan_id }, cafeClosed);
  assert.is(withFee.status, 400, withFee.text);
  assert.ok(withFee.body.invalid.distribution_plan_id);
  const laterPlan = await post(`/design/${designId}/plan/create`, { title: 'Fee later' }, cafe.auth);
  const later = await post('/o/create', { title: 'Later', amount: '1.00', quantity: 1, design_id: designId, distribution_plan_id: laterPlan.body.plan_id }, cafeClosed);
  assert.is(later.status, 200, later.text);
  assert.is((await server.client.request('PATCH', `/design/${designId}/plan/${laterPlan.body.plan_id}`, { recipients: fees }, cafe.auth)).status, 200);
  const refused = await post(`/o/${later.body.id}/accept`, { option_id: later.body.options[0].option_id }, sam.auth);
  assert.is(refused.status, 503, refused.text);
  assert.match(refused.text, /open_loop_not_permitted/, refused.text);
  assert.is(await usd(server, cafe.id), cafeUsd);
  assert.is(await brand(sam.id, designId), '1.00');
  const freePlan = await post(`/design/${designId}/plan/create`, { title: 'Free to issue' }, cafe.auth);
  const noReserve = await server.client.request('PATCH', `/design/${designId}/plan/${freePlan.body.plan_id}`, { recipients: [] }, cafe.auth);
  assert.is(noReserve.status, 200, noReserve.text);
  const brandOffer = {
    title: 'Brand only', amount: '3.00', quantity: 5, design_id: designId, distribution_plan_id: freePlan.body.plan_id,
    options: [{ option_id: 'free', payment_type: 'free' }, { option_id: 'buy', payment_type: 'service', price: '1.00' }],
  };
  // A closed-loop token's offer leaves its reserve owed, so it takes no price (issue 34 item 6).
  const pricedByClosed = await post('/o/create', brandOffer, cafeClosed);
  assert.is(pricedByClosed.status, 400, pricedByClosed.text);
  assert.ok(pricedByClosed.body.invalid['options.1.price'], pricedByClosed.text);
  const brandOnly = await post('/o/create', brandOffer, cafe.auth);
  assert.is(brandOnly.status, 200, brandOnly.text);
  const pat = await person();
  await issue(server, pat.id, '5.00');
  const patClosed = await closedToken({ uid: `service:${pat.id}` });
  const priced = await post(`/o/${brandOnly.body.id}/accept`, { option_id: 'buy' }, patClosed);
  assert.is(priced.status, 400, priced.text);
  assert.ok(priced.body.invalid.option_id);
  const free = await post(`/o/${brandOnly.body.id}/accept`, { option_id: 'free' }, patClosed);
  assert.is(free.status, 200, free.text);
  assert.is(await brand(pat.id, designId), '3.00');
  assert.is(await usd(server, pat.id), '5.00');
  await assertAudit('closed loop');
});

/** The reserve a distributor owes for this design in the operator's audit (GET /admin/ledger/audit `owed`), in cents. */
async function owedOf(distributorId: string): Promise<number> {
  const audit = await server.client.request('GET', '/admin/ledger/audit', undefined, { auth: { operator: true } });
  assert.is(audit.status, 200, audit.text);
  const row = audit.body.owed.find((entry: any) => entry.design_id === designId && entry.distributor_id === distributorId);
  return row ? Math.round(Number(row.reserve_owed) * 100) : 0;
}

test("issue 34 item 6: a closed-loop token's offer takes no price, made or changed, and an offer that owes its reserve sells no priced option", async () => {
  const answer = await server.client.post('/p/token', { uid: `service:${cafe.id}`, manager_uid: `service:${cafe.managerId}` }, { auth: app.basic });
  assert.is(answer.status, 200, answer.text);
  const cafeClosed = { auth: { bearer: answer.body.access_token as string } };
  const priced = { title: 'Gift for cash', amount: '40.00', quantity: 3, design_id: designId, distribution_plan_id: planId, options: [{ option_id: 'buy', payment_type: 'service', price: '40.00' }] };
  const refused = await post('/o/create', priced, cafeClosed);
  assert.is(refused.status, 400, refused.text);
  assert.ok(refused.body.invalid['options.0.price'], refused.text);
  // A free offer of the token cannot be given a price later, by it or by the business itself.
  const free = await post('/o/create', { ...priced, options: [{ option_id: 'free', payment_type: 'free' }] }, cafeClosed);
  assert.is(free.status, 200, free.text);
  for (const auth of [cafeClosed, cafe.auth]) {
    const repriced = await server.client.request('PATCH', `/o/${free.body.id}`, { options: priced.options }, auth);
    assert.is(repriced.status, 400, repriced.text);
    assert.ok(repriced.body.invalid['options.0.price'], repriced.text);
  }
  // An offer that owes its reserve from before: its priced option is not sold, and nothing moves.
  const stored = [{ option_id: 'buy', payment_type: 'service', price: '4000' }];
  await server.engine.sql`update offers set options = ${server.engine.sql.json(stored as never)} where id = ${free.body.id}`;
  const sam = await person();
  await issue(server, sam.id, '50.00');
  const before = await ledgerFingerprint(server.engine);
  const bought = await post(`/o/${free.body.id}/accept`, { option_id: 'buy' }, sam.auth);
  assert.is(bought.status, 400, bought.text);
  assert.is(bought.body.error, 'not_available');
  assert.is(await ledgerFingerprint(server.engine), before, 'nothing moved');
  await assertAudit('priced offer owing its reserve');
});

test('50 concurrent accepts of an offer with 20 in stock: exactly 20 succeed, the rest are sold out, nothing oversold', async () => {
  const created = await offer(cafe, { title: 'Rush hour', quantity: 20, amount: '1.00' });
  const people = await Promise.all(Array.from({ length: 50 }, () => person()));
  const before = Number(await usd(server, cafe.id));
  const answers = await Promise.all(people.map((one) => post(`/o/${created.id}/accept`, { option_id: 'free' }, one.auth)));
  const statuses = answers.map((answer) => answer.status);
  assert.is(statuses.filter((status) => status === 200).length, 20, JSON.stringify(answers.filter((a) => a.status !== 200 && a.status !== 400).map((a) => a.text)));
  assert.is(statuses.filter((status) => status === 400).length, 30);
  assert.ok(answers.filter((answer) => answer.status === 400).every((answer) => answer.body.error === 'sold_out'));
  assert.is((await get(`/o/${created.id}/info`)).body.offer.purchases_remain, 0);
  assert.is(before - Number(await usd(server, cafe.id)), 20);
  const paid = await Promise.all(people.map((one) => usd(server, one.id)));
  assert.is(paid.filter((amount) => amount === '1.00').length, 20);
  await assertAudit('concurrency');
});

test('signup_accept: public apps only; creates the person, keeps a PIN hash usable for refresh, answers a token with exactly the spec\'s permissions', async () => {
  const created = await offer(cafe, { title: 'Welcome gift' });
  const form = {
    option_id: 'free', first_name: 'Robin', last_name: 'Vale', app_id: app.clientId, pin: '4321', device_name: 'Robin phone',
    device_uuid: 'device-robin-0001', agreed_terms_and_privacy: 'true',
  };
  const closedApp = await post(`/o/${created.id}/signup_accept`, form, undefined);
  assert.is(closedApp.status, 403, `the test app is not public: ${closedApp.text}`);
  const publicApp = await server.client.post('/admin/apps', { name: 'Public', permissions: [], site: 'default', public: true }, { auth: { operator: true } });
  assert.is(publicApp.status, 200, publicApp.text);
  const publicForm = { ...form, app_id: publicApp.body.client_id };
  for (const [change, field] of [[{ pin: '12345' }, 'pin'], [{ pin: '12a4' }, 'pin'], [{ agreed_terms_and_privacy: 'false' }, 'agreed_terms_and_privacy'], [{ first_name: '' }, 'first_name'], [{ device_uuid: 'x'.repeat(37) }, 'device_uuid']] as const) {
    const refused = await server.client.post(`/o/${created.id}/signup_accept`, { ...publicForm, ...change }, { form: true });
    assert.is(refused.status, 400, refused.text);
    assert.ok(refused.body.invalid[field], `${field}: ${refused.text}`);
  }
  // A refused accept leaves no profile behind.
  const soldOut = await offer(cafe, { title: 'Gone', quantity: 0 });
  const profilesBefore = await countRows(server, 'profiles');
  const refusedAccept = await server.client.post(`/o/${soldOut.id}/signup_accept`, publicForm, { form: true });
  assert.is(refusedAccept.status, 400, refusedAccept.text);
  assert.is(refusedAccept.body.error, 'sold_out');
  assert.is(await countRows(server, 'profiles'), profilesBefore);
  const operator = { auth: { operator: true } } as never;
  await post(`/admin/profiles/${cafe.id}/wallet`, { action: 'suspend' }, operator);
  const refusedInside = await server.client.post(`/o/${created.id}/signup_accept`, publicForm, { form: true });
  await post(`/admin/profiles/${cafe.id}/wallet`, { action: 'unsuspend' }, operator);
  assert.is(refusedInside.status, 400, refusedInside.text);
  assert.is(await countRows(server, 'profiles'), profilesBefore, 'a refusal inside the command rolls the new profile back');
  const poor = await business('Poor Bakery');
  const poorOffer = await offer(poor, { title: 'Empty promise' });
  const profilesBeforeUnpaid = await countRows(server, 'profiles');
  const unpaid = await server.client.post(`/o/${poorOffer.id}/signup_accept`, { ...publicForm, device_uuid: 'device-poor' }, { form: true });
  assert.is(unpaid.status, 503, unpaid.text);
  assert.is(unpaid.body.error, 'transfer_failed');
  assert.is(await countRows(server, 'profiles'), profilesBeforeUnpaid, 'a business that cannot pay leaves no profile behind (issue 25 finding 1)');
  const answer = await server.client.post(`/o/${created.id}/signup_accept`, publicForm, { form: true });
  assert.is(answer.status, 200, answer.text);
  assert.is(answer.body.confirming, false);
  assert.equal(answer.body.token.scope.split(' ').sort(), [...signupAcceptPermissions].sort());
  const profileId = answer.body.profile.id;
  assert.is(answer.body.profile.is_individual, true);
  assert.is(await usd(server, profileId), '5.00');
  const bearer = { auth: { bearer: answer.body.token.access_token } };
  const wallet = await get('/wallet/info', bearer);
  assert.is(wallet.status, 200, wallet.text);
  const stored = await server.engine.sql`select password_hash from authn_device_passwords where profile_id = ${profileId}`;
  assert.is(stored.length, 1);
  assert.not.ok(stored[0].password_hash.includes('4321'), 'only a hash of the PIN is kept');
  const wrongPin = await server.client.post('/token/refresh', { pin: '0000' }, bearer);
  assert.is(wrongPin.status, 401, wrongPin.text);
  const refreshed = await server.client.post('/token/refresh', { pin: '4321' }, bearer);
  assert.is(refreshed.status, 200, refreshed.text);
  // An offer needing confirmation: the person is created but no token until the link is followed.
  const confirmOnly = await offer(cafe, { title: 'Confirm first', require_confirmation: true });
  const noEmail = await server.client.post(`/o/${confirmOnly.id}/signup_accept`, { ...publicForm, device_uuid: 'device-2' }, { form: true });
  assert.is(noEmail.status, 400, noEmail.text);
  const confirming = await server.client.post(`/o/${confirmOnly.id}/signup_accept`, { ...publicForm, device_uuid: 'device-3', email: 'robin@example.com' }, { form: true });
  assert.is(confirming.status, 200, confirming.text);
  assert.is(confirming.body.confirming, true);
  assert.is(confirming.body.token, undefined);
  assert.is(confirming.body.profile, undefined);
  await assertAudit('signup_accept');
});

// Last: it moves the clock a week on, past every token's expiry.
test('a confirmation link not followed within a week: the waiting transfer is canceled as expired and the stock comes back', async () => {
  const created = await offer(cafe, { title: 'Hurry', require_confirmation: true, quantity: 3 });
  const kim = await person();
  const waiting = await post(`/o/${created.id}/accept`, { option_id: 'free', email: 'kim@example.com' }, kim.auth);
  assert.is(waiting.body.confirming, true, waiting.text);
  const code = /\/offer-confirm\/([A-Za-z0-9_-]+)/.exec((await waitForEmail('kim@example.com')).text)![1];
  assert.is((await get(`/o/${created.id}/info`)).body.offer.purchases_remain, 2);
  server.clock.advance(6 * 24 * 60 * 60 * 1000);
  await server.engine.sweeper.runOnce();
  assert.is((await get(`/o/${created.id}/info`)).body.offer.purchases_remain, 2, 'not yet');
  server.clock.advance(2 * 24 * 60 * 60 * 1000);
  await server.engine.sweeper.runOnce();
  assert.is((await get(`/o/${created.id}/info`)).body.offer.purchases_remain, 3);
  const row = await server.engine.sql`select next_activity, canceled, reason from transfers where id = ${waiting.body.transfer.id}`;
  assert.equal([row[0].canceled, row[0].reason], [true, 'expired']);
  assertRefused(await get(`/offer-confirm/${code}`), 404, 'not_found');
  assert.is(await usd(server, kim.id), '0.00');
  await assertAudit('confirmation expiry');
});

test.run();
