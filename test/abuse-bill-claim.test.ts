// Issue 25 finding 2: a bill's profile_creation_data.email is a claim, not a confirmed UID. The
// profile it creates belongs to the merchant's site and waits for the address's owner: no app takes
// a /p/token for it, a sign-up that has not proved the code does not land in it, and the owner's
// own sign-up on that site, once the code sent to the address is proved, takes it over with its bill.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designPermissions } from '../engine/designs/service.ts';
import { createAuthnApp, must, revealedCode, signUp, type AuthnApp } from './authn-support.ts';
import { addBusiness, addIndividual, createApp, userToken, type TestApp } from './foundation-helpers.ts';
import { ledgerWorld } from './ledger-api-support.ts';
import { assertRefused, startTestServer, type TestServer } from './support/http.ts';

let server: TestServer;
let app: TestApp;
let walletApp: AuthnApp;
const permissions = [...designPermissions, 'create_design', 'view_wallet', 'receive_cash', 'manage_received', 'view_history'];
type Auth = { auth: { bearer: string } };
interface Merchant {
  id: string;
  auth: Auth;
  designId: string;
  planId: string;
}

async function merchant(through: TestApp, name: string): Promise<Merchant> {
  const managerId = await addIndividual(server, through);
  const id = await addBusiness(server, through, managerId, name);
  for (const feature of ['design_gl', 'bill']) must(await server.client.post(`/admin/profiles/${id}/features`, { feature }, { auth: { operator: true } }));
  const auth = { auth: { bearer: await userToken(server, through, id, { personalProfileId: managerId, concurrent: true, permissions }) } };
  const design = must(await server.client.post('/design/create', { title: `${name} Card`, currency: 'USD', design_type: 'gl_design' }, auth));
  const plan = must(await server.client.post(`/design/${design.body.id}/plan/create`, { title: 'Bills' }, auth));
  return { id, auth, designId: design.body.id, planId: plan.body.plan_id };
}

/** Bills a new customer by email; the waiting bill and the profile it names. */
async function billNew(by: Merchant, email: string): Promise<{ transferId: string; customerId: string }> {
  const body = { amount: '12.00', distribution_plan_id: by.planId, profile_creation_data: { first_name: 'Typed', last_name: 'Byshop', email } };
  const answer = must(await server.client.post(`/design/${by.designId}/bill`, body, by.auth));
  const [row] = await server.engine.sql<{ sender_id: string }[]>`select sender_id from transfers where id = ${answer.body.transfer.id}`;
  return { transferId: answer.body.transfer.id, customerId: row.sender_id };
}

const profiles = () => server.engine.services.profiles;

let cafe: Merchant;
test.before(async () => {
  server = await startTestServer();
  app = (await ledgerWorld(server)).app;
  walletApp = await createAuthnApp(server);
  cafe = await merchant(app, 'Claim Cafe');
});
test.after(async () => server.close());

test("the billed email confirms nothing and no app takes a token for the waiting profile", async () => {
  const { transferId, customerId } = await billNew(cafe, 'nia@example.com');
  assert.is(await profiles().findByUid(server.engine.sql, 'email:nia@example.com'), null, 'the typed email is not confirmed');
  assert.equal(await profiles().confirmedUids(server.engine.sql, customerId), []);
  const again = await billNew(cafe, 'Nia@Example.com');
  assert.is(again.customerId, customerId, 'a second bill to the address waits on the same profile');
  assert.is.not(again.transferId, transferId);
  const stranger = await createApp(server, { name: 'Stranger app' });
  for (const through of [stranger, app]) {
    const token = await server.client.post('/p/token', { uid: `service:${customerId}` }, { auth: through.basic });
    assertRefused(token, 400, 'invalid');
    assert.ok(token.body.invalid.uid, token.text);
  }
});

test("a stranger's sign-up, and the owner's before the code, do not land in the waiting profile; after the code the owner owns it and its bills", async () => {
  const { transferId, customerId } = await billNew(cafe, 'owen@example.com');
  const stranger = await signUp(server.client, walletApp, { email: 'stranger@example.com' });
  assert.is.not(stranger.profileId, customerId);

  const start = must(await server.client.post('/aa/signup', { client_id: walletApp.clientId, device_uuid: 'owen-phone', login: 'owen@example.com' }));
  const auth = { attemptSecret: start.body.secret as string };
  const path = start.body.attempt_path as string;
  assert.is(start.body.profile_id, null, 'the start call names no profile');
  must(await server.client.post(`${path}set-signup-data`, { first_name: 'Owen', last_name: 'Owner' }, { auth }));
  must(await server.client.post(`${path}set-signup-data`, { password: 'owen correct horse' }, { auth }));
  assertRefused(await server.client.post(`${path}signup-finish`, { agreed: true }, { auth }), 400, 'invalid');
  const wrong = revealedCode(start) === '000000000' ? '111111111' : '000000000';
  assertRefused(await server.client.post(`${path}auth-uid`, { factor_id: start.body.factor_id, code: wrong }, { auth }), 400, 'invalid');
  assert.ok(await profiles().claimPending(server.engine.sql, customerId), 'a wrong code takes nothing over');
  must(await server.client.post(`${path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth }));
  const phone = must(await server.client.post(`${path}add-factor`, { login: '+15555550177' }, { auth }));
  must(await server.client.post(`${path}auth-uid`, { factor_id: phone.body.factor_id, code: revealedCode(phone) }, { auth }));
  const finished = must(await server.client.post(`${path}signup-finish`, { agreed: true }, { auth }));

  assert.is(finished.body.profile_id, customerId, "the owner's wallet is the profile the bill waited on");
  assert.is(finished.body.profile_title, 'Owen Owner', "the owner's own name replaces the typed one");
  assert.is(await profiles().claimPending(server.engine.sql, customerId), false);
  assert.equal((await profiles().confirmedUids(server.engine.sql, customerId)).sort(), ['email:owen@example.com', 'phone:+15555550177']);
  const owner = { auth: { bearer: finished.body.token.access_token as string } };
  const seen = must(await server.client.get(`/t/${transferId}`, {}, owner));
  assert.is(seen.body.transfer?.id ?? seen.body.id, transferId, 'the owner sees the bill');
  must(await server.client.request('POST', `/t/${transferId}/retract`, { reason: 'other' }, { ...owner, form: true }));
  const [row] = await server.engine.sql<{ canceled: boolean }[]>`select canceled from transfers where id = ${transferId}`;
  assert.is(row.canceled, true, 'the owner acts on the bill');
  const later = await billNew(cafe, 'owen@example.com');
  assert.is(later.customerId, customerId, 'a later bill finds the owner by the proved address');
});

test('a bill of a merchant on another site creates its customer on that site; a sign-up elsewhere does not take it', async () => {
  const harborApp = await createApp(server, { site: 'harbor', name: 'Harbor app' });
  const harbor = await merchant(harborApp, 'Harbor Shop');
  const onDefault = await billNew(cafe, 'ria@example.com');
  const onHarbor = await billNew(harbor, 'ria@example.com');
  assert.is((await profiles().get(server.engine.sql, onHarbor.customerId))!.site, 'harbor', "the customer belongs to the merchant's site");
  assert.is((await profiles().get(server.engine.sql, onDefault.customerId))!.site, 'default');
  assert.is.not(onHarbor.customerId, onDefault.customerId, 'a claim belongs to one site');
  const ria = await signUp(server.client, walletApp, { email: 'ria@example.com' });
  assert.is(ria.profileId, onDefault.customerId, 'the default site sign-up takes the default site profile');
  assert.ok(await profiles().claimPending(server.engine.sql, onHarbor.customerId), "the harbor profile still waits for a sign-up on its own site");
  const token = await server.client.post('/p/token', { uid: `service:${onHarbor.customerId}` }, { auth: harborApp.basic });
  assertRefused(token, 400, 'invalid');
});

test.run();
