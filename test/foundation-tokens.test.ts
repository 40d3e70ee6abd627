// Proves the token calls (/p/token, select, selectable, refresh, logout) and each row of the spec's access-token state table, with the manual clock.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { concurrentTokenHardExpirationMs, tokenHardExpirationMs, tokenSoftExpirationMs } from '../engine/limits.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { addBusiness, addIndividual, countRows, createApp, setPassword, userToken, type TestApp } from './foundation-helpers.ts';

let server: TestServer;
let app: TestApp;
let otherSiteApp: TestApp;
const password = 'correct horse battery';

test.before(async () => {
  server = await startTestServer();
  app = await createApp(server);
  otherSiteApp = await createApp(server, { site: 'elsewhere' });
});
test.after(async () => server.close());

const bearer = (token: string) => ({ auth: { bearer: token } });
const info = (token: string) => server.client.get('/wallet/info', undefined, bearer(token));
const refresh = (token: string, body: Record<string, unknown> = { password }) => server.client.post('/token/refresh', body, bearer(token));

async function person(): Promise<string> {
  const id = await addIndividual(server, app);
  await setPassword(server, id, password);
  return id;
}

function assertTokenInfo(body: any) {
  assert.equal(Object.keys(body).sort(), ['access_token', 'expires_in', 'hard_expires_in', 'scope', 'token_type']);
  assert.is(body.token_type, 'bearer');
  assert.match(body.access_token, new RegExp(`^t${app.clientId}-\\d+-[A-Za-z0-9_-]+$`));
}

// POST /p/token

test('/p/token issues a closed-loop token for a same-site individual: AccessTokenInfo, expires_in 899', async () => {
  const id = await person();
  const answer = await server.client.post('/p/token', { uid: `service:${id}` }, { auth: app.basic });
  assert.is(answer.status, 200, answer.text);
  assertTokenInfo(answer.body);
  assert.is(answer.body.expires_in, 899);
  assert.is(answer.body.hard_expires_in, tokenHardExpirationMs / 1000 - 1);
  assert.equal(answer.body.scope.split(' '), [...server.engine.services.tokens.closedLoopPermissions]);
  assert.is((await info(answer.body.access_token)).body.profile.id, id);
  const check = await server.engine.services.tokens.authenticate(answer.body.access_token);
  assert.ok(check.ok && check.principal.closedLoopOnly);
});

test('/p/token permissions only limit, within closed loop rights; an empty list means the default', async () => {
  const id = await person();
  const narrowed = await server.client.post('/p/token', { uid: id, permissions: ['send_cash', 'view_wallet', 'send_to_account', 'select_profile'] }, { auth: app.basic });
  assert.is(narrowed.body.scope, 'view_wallet send_cash');
  const empty = await server.client.post('/p/token', { uid: id, permissions: [] }, { auth: app.basic });
  assert.equal(empty.body.scope.split(' '), [...server.engine.services.tokens.closedLoopPermissions]);
  const form = await server.client.post('/p/token', { uid: id, permissions: 'view_wallet apply_design' }, { auth: app.basic, form: true });
  assert.is(form.body.scope, 'view_wallet apply_design');
});

test('/p/token concurrent tokens hard-expire after 15 minutes', async () => {
  const id = await person();
  const answer = await server.client.post('/p/token', { uid: id, concurrent: true }, { auth: app.basic });
  assert.is(answer.body.hard_expires_in, concurrentTokenHardExpirationMs / 1000 - 1);
  assert.is(answer.body.expires_in, 899);
});

test('/p/token for a business needs a manager_uid of a managing personal profile', async () => {
  const managerId = await person();
  const strangerId = await person();
  const businessId = await addBusiness(server, app, managerId);
  const before = await countRows(server, 'access_tokens');
  const missing = await server.client.post('/p/token', { uid: businessId }, { auth: app.basic });
  assertRefused(missing, 400, 'invalid');
  assert.ok('manager_uid' in missing.body.invalid);
  const stranger = await server.client.post('/p/token', { uid: businessId, manager_uid: `service:${strangerId}` }, { auth: app.basic });
  assert.is(stranger.status, 403);
  assert.is(stranger.body.error, 'not_manager');
  const unknown = await server.client.post('/p/token', { uid: businessId, manager_uid: 'service:1000000000' }, { auth: app.basic });
  assertRefused(unknown, 400, 'invalid');
  assert.is(await countRows(server, 'access_tokens'), before);
  const ok = await server.client.post('/p/token', { uid: businessId, manager_uid: managerId }, { auth: app.basic });
  assert.is(ok.status, 200);
  const walletInfo = await info(ok.body.access_token);
  assert.is(walletInfo.body.profile.id, businessId);
  assert.is(walletInfo.body.personal_profile.id, managerId);
});

test('/p/token works only for profiles of the app\'s own site, with control_profile', async () => {
  const id = await person();
  const elsewhere = await server.client.post('/p/token', { uid: id }, { auth: otherSiteApp.basic });
  assertRefused(elsewhere, 400, 'invalid');
  assert.ok('uid' in elsewhere.body.invalid);
  const nobody = await server.client.post('/p/token', { uid: 'email:nobody@example.com' }, { auth: app.basic });
  assertRefused(nobody, 400, 'invalid');
  const limited = await createApp(server, { permissions: ['create_profile', 'get_profile'] });
  const denied = await server.client.post('/p/token', { uid: id }, { auth: limited.basic });
  assert.is(denied.status, 403);
  assert.is(denied.body.error, 'app_denied');
  const noUid = await server.client.post('/p/token', {}, { auth: app.basic });
  assertRefused(noUid, 400, 'invalid');
});

test('/p/token device_uuid: 36 characters pass and attach the device, 37 fail; device_name limited', async () => {
  const id = await person();
  const devices = await countRows(server, 'profile_devices');
  const ok = await server.client.post('/p/token', { uid: id, device_uuid: 'd'.repeat(36), device_name: 'Till 1' }, { auth: app.basic });
  assert.is(ok.status, 200);
  assert.equal(await server.engine.services.profiles.devices(server.engine.sql, id), [{ deviceUuid: 'd'.repeat(36), deviceName: 'Till 1' }]);
  const tooLong = await server.client.post('/p/token', { uid: id, device_uuid: 'd'.repeat(37) }, { auth: app.basic });
  assertRefused(tooLong, 400, 'invalid');
  assert.ok('device_uuid' in tooLong.body.invalid);
  const badChars = await server.client.post('/p/token', { uid: id, device_uuid: 'has space' }, { auth: app.basic });
  assertRefused(badChars, 400, 'invalid');
  const longName = await server.client.post('/p/token', { uid: id, device_name: 'n'.repeat(201) }, { auth: app.basic });
  assertRefused(longName, 400, 'invalid');
  assert.is(await countRows(server, 'profile_devices'), devices + 1);
});

test('/p/token refuses a suspended wallet with 403 not_available', async () => {
  const id = await person();
  const suspend = await server.client.post(`/admin/profiles/${id}/wallet`, { action: 'suspend' }, { auth: { operator: true } });
  assert.equal(suspend.body, { wallet_state: 'suspended' });
  const answer = await server.client.post('/p/token', { uid: id }, { auth: app.basic });
  assert.is(answer.status, 403);
  assert.is(answer.body.error, 'not_available');
});

// Selectable and select

test('GET /token/selectable lists the personal profile and the businesses it manages', async () => {
  const id = await person();
  const businessId = await addBusiness(server, app, id, 'Alpha Books');
  const answer = await server.client.get('/token/selectable', undefined, bearer(await userToken(server, app, id)));
  assert.is(answer.status, 200);
  assert.equal(answer.body.profiles.map((profile: { id: string }) => profile.id), [id, businessId]);
  assert.is(answer.body.profiles[1].title, 'Alpha Books');
  const narrow = await server.client.get('/token/selectable', undefined, bearer(await userToken(server, app, id, { permissions: ['view_wallet'] })));
  assert.is(narrow.status, 403);
  assert.is(narrow.body.error, 'insufficient_scope');
});

test('GET /token/select/<id> gives a token for a managed business; wallet/info then shows personal_profile', async () => {
  const id = await person();
  const businessId = await addBusiness(server, app, id);
  const token = await userToken(server, app, id);
  const answer = await server.client.get(`/token/select/${businessId}`, undefined, bearer(token));
  assert.is(answer.status, 200, answer.text);
  assertTokenInfo(answer.body);
  const walletInfo = await info(answer.body.access_token);
  assert.is(walletInfo.body.profile.id, businessId);
  assert.is(walletInfo.body.personal_profile.id, id);
  assert.is(walletInfo.body.personal_profile.is_individual, true);
  const back = await server.client.get(`/token/select/${id}`, undefined, bearer(answer.body.access_token));
  assert.is(back.status, 200);
  assert.is((await info(back.body.access_token)).body.profile.id, id);
});

test('select errors: 403 not_manager, not_available, insufficient_scope, app_denied; 400 invalid', async () => {
  const id = await person();
  const otherId = await person();
  const othersBusiness = await addBusiness(server, app, otherId);
  const token = await userToken(server, app, id);
  const notManager = await server.client.get(`/token/select/${othersBusiness}`, undefined, bearer(token));
  assert.is(notManager.status, 403);
  assert.is(notManager.body.error, 'not_manager');
  const missing = await server.client.get('/token/select/1000000000', undefined, bearer(token));
  assert.is(missing.status, 403);
  assert.is(missing.body.error, 'not_available');
  const invalid = await server.client.get('/token/select/abc', undefined, bearer(token));
  assert.is(invalid.status, 400);
  assert.is(invalid.body.error, 'invalid');
  const narrow = await server.client.get(`/token/select/${id}`, undefined, bearer(await userToken(server, app, id, { permissions: ['view_wallet'] })));
  assert.is(narrow.body.error, 'insufficient_scope');
  const closedLoop = await server.client.post('/p/token', { uid: id, permissions: [] }, { auth: app.basic });
  await server.engine.sql`update access_tokens set permissions = array_append(permissions, 'select_profile') where source = 'p_token'`;
  const denied = await server.client.get(`/token/select/${id}`, undefined, bearer(closedLoop.body.access_token));
  assert.is(denied.status, 403);
  assert.is(denied.body.error, 'app_denied');
  const businessId = await addBusiness(server, app, id);
  await server.client.post(`/admin/profiles/${businessId}/wallet`, { action: 'close' }, { auth: { operator: true } });
  const closed = await server.client.get(`/token/select/${businessId}`, undefined, bearer(await userToken(server, app, id)));
  assert.is(closed.body.error, 'not_available');
});

// Refresh and logout calls

test('refresh takes the password or PIN as JSON or form; errors: 400 invalid, 400 incorrect_pin, 401 incorrect_password and incorrect_pin', async () => {
  const id = await person();
  const none = await refresh(await userToken(server, app, id), {});
  assert.is(none.status, 400);
  assert.is(none.body.error, 'invalid');
  const noPin = await refresh(await userToken(server, app, id), { pin: '1234' });
  assert.is(noPin.status, 400);
  assert.is(noPin.body.error, 'incorrect_pin');
  const wrong = await refresh(await userToken(server, app, id), { password: 'nope' });
  assert.is(wrong.status, 401);
  assert.is(wrong.body.error, 'incorrect_password');
  server.engine.services.tokens.registerPinVerifier(async (_db, input) => (input.pin === '4321' ? 'match' : 'mismatch'));
  try {
    const wrongPin = await refresh(await userToken(server, app, id), { pin: '0000' });
    assert.is(wrongPin.status, 401);
    assert.is(wrongPin.body.error, 'incorrect_pin');
    const pin = await refresh(await userToken(server, app, id), { pin: '4321' });
    assert.is(pin.status, 200);
  } finally {
    server.engine.services.tokens.registerPinVerifier(async () => 'none');
  }
  const token = await userToken(server, app, id);
  const form = await server.client.post('/token/refresh', { access_token: token, password }, { form: true });
  assert.is(form.status, 200);
  assertTokenInfo(form.body);
  assert.is((await refresh('tbogus-1-xxxxxxxxxxxxxxxxxxxxxx')).body.token_error, 'token_not_recognized');
});

test('logout answers {} and accepts the token in a form field', async () => {
  const id = await person();
  const token = await userToken(server, app, id);
  const answer = await server.client.post('/token/logout', { access_token: token }, { form: true });
  assert.is(answer.status, 200);
  assert.equal(answer.body, {});
  assert.is((await info(token)).body.token_error, 'token_invalid');
});

// The access-token state table, one test per row.

test('state: valid -> soft-expired with time; most calls reject it, refresh and logout accept it', async () => {
  const id = await person();
  const token = await userToken(server, app, id);
  server.clock.advance(tokenSoftExpirationMs - 1000);
  assert.is((await info(token)).status, 200);
  server.clock.advance(1000);
  const rejected = await info(token);
  assert.is(rejected.status, 401);
  assert.equal(rejected.body, { error: 'invalid_token', error_description: rejected.body.error_description, token_error: 'token_expired_soft' });
  assert.is((await server.client.get('/me', undefined, bearer(token))).body.token_error, 'token_expired_soft');
  const refreshed = await refresh(token);
  assert.is(refreshed.status, 200);
  const other = await userToken(server, app, id);
  server.clock.advance(tokenSoftExpirationMs);
  assert.is((await info(other)).body.token_error, 'token_expired_soft');
  assert.is((await server.client.post('/token/logout', {}, bearer(other))).status, 200);
});

test('state: refresh gives a new soft expiration and the same hard expiration; older tokens stop being accepted', async () => {
  const id = await person();
  const older = await userToken(server, app, id);
  const token = await userToken(server, app, id);
  server.clock.advance(tokenSoftExpirationMs + 60_000);
  const answer = await refresh(token);
  assert.is(answer.status, 200);
  assert.is(answer.body.expires_in, 899);
  assert.is(answer.body.hard_expires_in, (tokenHardExpirationMs - tokenSoftExpirationMs - 60_000) / 1000 - 1);
  assert.is((await info(answer.body.access_token)).status, 200);
  assert.is((await info(token)).body.token_error, 'token_invalid');
  assert.is((await info(older)).body.token_error, 'token_invalid');
  const again = await refresh(answer.body.access_token);
  assert.is(again.status, 200);
});

test('state: a refreshed concurrent token keeps its 15-minute hard expiration', async () => {
  const id = await person();
  const issued = await server.client.post('/p/token', { uid: id, concurrent: true }, { auth: app.basic });
  server.clock.advance(10 * 60_000);
  const answer = await refresh(issued.body.access_token);
  assert.is(answer.status, 200);
  assert.is(answer.body.hard_expires_in, 5 * 60 - 1);
  assert.is(answer.body.expires_in, 5 * 60 - 1);
});

test('state: any -> hard-expired when the hard expiration passes; calls and refresh answer 401 token_expired_hard', async () => {
  const id = await person();
  const issued = await server.client.post('/p/token', { uid: id, concurrent: true }, { auth: app.basic });
  server.clock.advance(concurrentTokenHardExpirationMs);
  const call = await info(issued.body.access_token);
  assertRefused(call, 401, 'invalid_token');
  assert.is(call.body.token_error, 'token_expired_hard');
  const refreshed = await refresh(issued.body.access_token);
  assertRefused(refreshed, 401, 'invalid_token');
  assert.is(refreshed.body.token_error, 'token_expired_hard');
  const logout = await server.client.post('/token/logout', {}, bearer(issued.body.access_token));
  assertRefused(logout, 401, 'invalid_token');
  assert.is(logout.body.token_error, 'token_expired_hard');
});

test('state: after the fifth failed refresh the token is refresh locked (401 refresh_locked, even with the right password)', async () => {
  const id = await person();
  const token = await userToken(server, app, id);
  for (let attempt = 1; attempt <= 5; attempt++) {
    const wrong = await refresh(token, { password: `wrong ${attempt}` });
    assert.is(wrong.status, 401);
    assert.is(wrong.body.error, 'incorrect_password', `attempt ${attempt}`);
  }
  const locked = await refresh(token);
  assert.is(locked.status, 401);
  assert.is(locked.body.error, 'refresh_locked');
  assert.is((await refresh(token, { password: 'wrong again' })).body.error, 'refresh_locked');
  assert.is((await info(token)).status, 200);
});

test('state: the first use of a newer non-concurrent token invalidates older ones of the same app, profile and personal profile', async () => {
  const id = await person();
  const otherApp = await createApp(server);
  const first = await userToken(server, app, id);
  const concurrent = await userToken(server, app, id, { concurrent: true });
  const otherAppToken = await userToken(server, otherApp, id);
  const second = await userToken(server, app, id);
  assert.is((await info(first)).status, 200, 'an unused newer token changes nothing');
  assert.is((await info(second)).status, 200);
  assert.is((await info(first)).body.token_error, 'token_invalid');
  assert.is((await info(concurrent)).status, 200, 'concurrent tokens are not invalidated by other tokens');
  assert.is((await info(otherAppToken)).status, 200, 'another app is another scope');
  const newerConcurrent = await userToken(server, app, id, { concurrent: true });
  assert.is((await info(newerConcurrent)).status, 200);
  assert.is((await info(second)).status, 200, 'a concurrent token does not invalidate older ones');
});

test('state: tokens from select and /p/token invalidate only older tokens of the same device', async () => {
  const id = await person();
  const tillA = await server.client.post('/p/token', { uid: id, device_uuid: 'till-a' }, { auth: app.basic });
  const tillB = await server.client.post('/p/token', { uid: id, device_uuid: 'till-b' }, { auth: app.basic });
  assert.is((await info(tillB.body.access_token)).status, 200);
  assert.is((await info(tillA.body.access_token)).status, 200, 'another device keeps its token');
  const tillA2 = await server.client.post('/p/token', { uid: id, device_uuid: 'till-a' }, { auth: app.basic });
  assert.is((await info(tillA2.body.access_token)).status, 200);
  assert.is((await info(tillA.body.access_token)).body.token_error, 'token_invalid');
  assert.is((await info(tillB.body.access_token)).status, 200);

  const businessId = await addBusiness(server, app, id);
  const phone = await userToken(server, app, id, { deviceUuid: 'phone', concurrent: true });
  const laptop = await userToken(server, app, id, { deviceUuid: 'laptop', concurrent: true });
  const fromPhone = await server.client.get(`/token/select/${businessId}`, undefined, bearer(phone));
  assert.is(fromPhone.status, 200);
  const fromLaptop = await server.client.get(`/token/select/${businessId}`, undefined, bearer(laptop));
  assert.is(fromLaptop.status, 200, fromLaptop.text);
  assert.is((await info(fromLaptop.body.access_token)).status, 200);
  assert.is((await info(fromPhone.body.access_token)).status, 200, 'select on another device keeps the other device\'s token');
  const fromPhone2 = await server.client.get(`/token/select/${businessId}`, undefined, bearer(phone));
  assert.is((await info(fromPhone2.body.access_token)).status, 200);
  assert.is((await info(fromPhone.body.access_token)).body.token_error, 'token_invalid');
});

test('state: logout ends every token of the same personal profile and app, including selected and concurrent ones', async () => {
  const id = await person();
  const businessId = await addBusiness(server, app, id);
  const otherApp = await createApp(server);
  const token = await userToken(server, app, id);
  const selected = await server.client.get(`/token/select/${businessId}`, undefined, bearer(token));
  server.clock.advance(tokenSoftExpirationMs);
  const concurrent = await userToken(server, app, id, { concurrent: true });
  const otherAppToken = await userToken(server, otherApp, id);
  assert.is((await server.client.post('/token/logout', {}, bearer(token))).status, 200, 'a soft-expired token may log out');
  for (const ended of [token, concurrent, selected.body.access_token]) {
    const answer = await server.client.post('/token/refresh', { password }, bearer(ended));
    assertRefused(answer, 401, 'invalid_token');
    assert.is(answer.body.token_error, 'token_invalid');
  }
  assert.is((await refresh(otherAppToken)).status, 200, 'another app is untouched');
});

test('a reused authorization code invalidates the tokens it produced', async () => {
  const id = await person();
  const { tokens } = server.engine.services;
  const issued = await tokens.issue(server.engine.sql, {
    clientId: app.clientId, profileId: id, personalProfileId: id, permissions: ['view_wallet'], source: 'oauth', oauthCodeId: 'code-1', now: server.clock.now(),
  });
  assert.is((await info(issued.access_token)).status, 200);
  assert.is(await tokens.revokeForOauthCode(server.engine.sql, 'code-1'), 1);
  assert.is((await info(issued.access_token)).body.token_error, 'token_invalid');
});

test.run();
