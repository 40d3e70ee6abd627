// Proves the settings calls over HTTP: add and confirm a UID (with replace_uid), remove a UID only
// while an email and a phone remain, change the password, device passwords (used for refresh and
// sign-in), change the name (individual and business limits) and the profile image renditions.
// Each test signs up its own person, so each runs alone: npm test -- settings-wallet -t "<name>".
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { createAuthnApp, must, revealedCode, signUp, type AuthnApp, type SignedUp } from './authn-support.ts';

let server: TestServer;
let app: AuthnApp;

test.before(async () => {
  server = await startTestServer();
  app = await createAuthnApp(server);
});
test.after(async () => server.close());

/** A new person with the password 'settings password', signed up on the device 'set-phone', and its token. */
async function settingsPerson(uids: { email?: string; phone?: string } = {}): Promise<{ person: SignedUp; bearer: { bearer: string } }> {
  const person = await signUp(server.client, app, { ...uids, password: 'settings password', deviceUuid: 'set-phone' });
  return { person, bearer: { bearer: person.token } };
}

async function confirmedUids(bearer: { bearer: string }): Promise<string[]> {
  const info = must(await server.client.get('/wallet/info', {}, { auth: bearer }));
  return info.body.profile.confirmed_uids.map((entry: { uid: string }) => entry.uid).sort();
}

test('add a UID with a code, replacing another; remove-uid keeps two factor types', async () => {
  const { bearer } = await settingsPerson({ email: 'set@example.com', phone: '+15555550177' });
  const { client } = server;
  const needsCountry = await client.post('/wallet/add-uid', { login: '555 555 0188' }, { auth: bearer });
  assert.ok(needsCountry.body.invalid.countries);
  const added = must(await client.post('/wallet/add-uid', { login: '555 555 0188', uid_type: 'phone', countries: ['US'] }, { auth: bearer }));
  assert.match(added.body.attempt_id, /^\d{10}$/);
  assert.is(added.body.code_length, 6);
  assert.equal(Object.keys(added.body.unauthenticated), ['phone:+15555550188']);
  const wrong = await client.post('/wallet/add-uid-confirm', { attempt_id: added.body.attempt_id, secret: added.body.secret, code: '000000' }, { auth: bearer });
  assertRefused(wrong, 400, 'invalid');
  const badSecret = await client.post('/wallet/add-uid-confirm', { attempt_id: added.body.attempt_id, secret: 'nope', code: revealedCode(added) }, { auth: bearer });
  assertRefused(badSecret, 401, 'invalid_token');
  must(await client.post('/wallet/add-uid-confirm', { attempt_id: added.body.attempt_id, secret: added.body.secret, code: revealedCode(added), replace_uid: 'phone:+15555550177' }, { auth: bearer }));
  assert.equal(await confirmedUids(bearer), ['email:set@example.com', 'phone:+15555550188']);
  const again = await client.post('/wallet/add-uid-confirm', { attempt_id: added.body.attempt_id, secret: added.body.secret, code: revealedCode(added) }, { auth: bearer });
  assertRefused(again, 410, 'unavailable');

  const refused = await client.post('/wallet/remove-uid', { uid: 'phone:+15555550188' }, { auth: bearer });
  assertRefused(refused, 400, 'invalid');
  assert.ok(refused.body.invalid.uid);
  const email2 = must(await client.post('/wallet/add-uid', { login: 'set2@example.com' }, { auth: bearer }));
  assert.is(email2.body.code_length, 9);
  must(await client.post('/wallet/add-uid-confirm', { attempt_id: email2.body.attempt_id, secret: email2.body.secret, code: revealedCode(email2) }, { auth: bearer }));
  must(await client.post('/wallet/remove-uid', { uid: 'email:set@example.com' }, { auth: bearer }));
  assert.equal(await confirmedUids(bearer), ['email:set2@example.com', 'phone:+15555550188']);
  const taken = await signUp(client, app, { email: 'other-owner@example.com', phone: '+15555550189' });
  void taken;
  // Another wallet's address is answered like a free one (test/settings-add-uid.test.ts has the rest).
  const conflict = must(await client.post('/wallet/add-uid', { login: 'other-owner@example.com' }, { auth: bearer }));
  assert.equal(Object.keys(conflict.body.unauthenticated), ['email:other-owner@example.com']);
  const own = await client.post('/wallet/add-uid', { login: 'set2@example.com' }, { auth: bearer });
  assertRefused(own, 400, 'invalid');
});

test('change-password checks the current one and the 8 to 100 character limit', async () => {
  const { bearer } = await settingsPerson();
  const { client } = server;
  const call = (current: string, next: string) => client.post('/wallet/change-password', { current_password: current, new_password: next }, { auth: bearer });
  assert.ok((await call('settings password', 'x'.repeat(7))).body.invalid.new_password);
  assert.ok((await call('settings password', 'x'.repeat(101))).body.invalid.new_password);
  assert.ok((await call('wrong password', 'x'.repeat(8))).body.invalid.current_password);
  must(await call('settings password', 'y'.repeat(100)));
  must(await call('y'.repeat(100), 'z'.repeat(8)));
  must(await call('z'.repeat(8), 'settings password'));
});

test('a device password refreshes tokens and signs in from that device only', async () => {
  const { person, bearer: first } = await settingsPerson();
  let bearer = first;
  const { client } = server;
  const badMethod = await client.post('/wallet/set-device-password', { current_password: 'settings password', access_method: 'face-id' }, { auth: bearer });
  assert.ok(badMethod.body.invalid.access_method);
  assertRefused(await client.post('/wallet/set-device-password', { current_password: 'settings password', access_method: 'a'.repeat(101) }, { auth: bearer }), 400, 'invalid');
  const set = must(await client.post('/wallet/set-device-password', { current_password: 'settings password', access_method: 'a'.repeat(100) }, { auth: bearer }));
  const devicePassword = set.body.device_password as string;
  assert.ok(devicePassword.length >= 24);
  const refreshed = must(await client.post('/token/refresh', { pin: devicePassword }, { auth: bearer }));
  bearer = { bearer: refreshed.body.access_token };
  const signin = must(await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'set-phone', login: person.email, password: devicePassword }));
  assert.is(signin.body.profile_id, person.profileId);
  const otherDevice = await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'other-device', login: person.email, password: devicePassword });
  assertRefused(otherDevice, 400, 'invalid');
  must(await client.post('/wallet/remove-device-password', { access_method: 'a'.repeat(100) }, { auth: bearer }));
  const removed = await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'set-phone', login: person.email, password: devicePassword });
  assertRefused(removed, 400, 'invalid');
});

test('change-name: individual names up to 50 characters and the name rules', async () => {
  const { bearer } = await settingsPerson();
  const { client } = server;
  const call = (body: Record<string, string>) => client.post('/wallet/change-name', body, { auth: bearer });
  assert.ok((await call({ first_name: 'A'.repeat(51), last_name: 'Lee' })).body.invalid.first_name);
  assert.ok((await call({ first_name: 'Pat' })).body.invalid.last_name);
  assert.ok((await call({ first_name: '9Pat', last_name: 'Lee' })).body.invalid.first_name);
  assert.ok((await call({ first_name: 'Pat', last_name: 'Lee', title: 'Cafe' })).body.invalid.title);
  const renamed = must(await call({ first_name: 'A'.repeat(50), last_name: 'Smith' }));
  assert.is(renamed.body.profile.title, `${'A'.repeat(50)} Smith`);
  assert.is(must(await client.get('/me', {}, { auth: bearer })).body.last_name, 'Smith');
});

test('change-name: business title and dba up to 100 characters', async () => {
  const { person, bearer } = await settingsPerson();
  const { engine, client } = server;
  const business = await engine.commands.run('test.business', [], (unit) =>
    engine.services.profiles.createBusinessIn(unit, {
      site: 'default', businessName: 'Corner Cafe', managerProfileId: person.profileId,
      business: { line1: '1 Main St', city: 'Springfield', country: 'US', state: 'IL', zip: '62701' }, mail: { line1: '1 Main St', city: 'Springfield', country: 'US', state: 'IL', zip: '62701' },
    }),
  );
  const selected = must(await client.get(`/token/select/${business.profileId}`, {}, { auth: bearer }));
  const auth = { bearer: selected.body.access_token };
  const call = (body: Record<string, string>) => client.post('/wallet/change-name', body, { auth });
  assert.ok((await call({ title: 'T'.repeat(101) })).body.invalid.title);
  assert.ok((await call({ title: 'Cafe', dba: 'D'.repeat(101) })).body.invalid.dba);
  assert.ok((await call({ dba: 'Cafe' })).body.invalid.title);
  assert.ok((await call({ title: 'Cafe', first_name: 'Pat' })).body.invalid.first_name);
  const renamed = must(await call({ title: 'T'.repeat(100), dba: 'D'.repeat(100) }));
  assert.is(renamed.body.profile.title, 'T'.repeat(100));
});

test('PUT /wallet/image: at least 250 px wide, square renditions 24, 48 and 73 px', async () => {
  const { person, bearer } = await settingsPerson();
  const { client } = server;
  const picture = (width: number, height: number, format: 'png' | 'jpeg' | 'gif') =>
    sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 40 } } }).toFormat(format).toBuffer();
  const put = async (body: Buffer, type = 'image/png') => client.request('PUT', '/wallet/image', undefined, { auth: bearer, rawBody: body, headers: { 'content-type': type } });
  assertRefused(await put(await picture(249, 300, 'png')), 400, 'invalid');
  assertRefused(await put(Buffer.from('not an image'), 'application/octet-stream'), 400, 'invalid');
  assertRefused(await put(await picture(300, 300, 'png'), 'text/plain'), 415, 'invalid');
  must(await put(await picture(250, 400, 'gif'), 'image/gif'));
  const set = must(await put(await picture(600, 300, 'jpeg'), 'image/jpeg'));
  for (const [name, size] of [['image24', 24], ['image48', 48], ['image73', 73], ['image25', 24], ['image50', 48]] as const) {
    const url = new URL(set.body[name], server.baseUrl);
    const response = await fetch(new URL(url.pathname + url.search, server.baseUrl));
    assert.is(response.status, 200, name);
    assert.is(response.headers.get('content-type'), 'image/png');
    const metadata = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    assert.equal([metadata.width, metadata.height], [size, size], name);
  }
  assert.is((await fetch(new URL(`/image/profile/${person.profileId}/25`, server.baseUrl))).status, 200);
  // The public profile carries the same URLs.
  const publicProfile = must(await client.get(`/p/${person.profileId}`));
  for (const name of ['image24', 'image48', 'image73', 'image25', 'image50']) assert.is(publicProfile.body[name], set.body[name], name);
  assert.is((await fetch(new URL(`/image/profile/${person.profileId}/100`, server.baseUrl))).status, 404);
});

test('settings calls need change_settings', async () => {
  const { person } = await settingsPerson();
  const limited = must(await server.client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'set-phone', login: person.email, password: 'settings password', permissions: ['view_wallet'] }));
  const done = must(await server.client.post(`${limited.body.attempt_path}auth-uid`, { factor_id: limited.body.factor_id, code: revealedCode(limited) }, { auth: { attemptSecret: limited.body.secret } }));
  const answer = await server.client.post('/wallet/change-name', { first_name: 'Pat', last_name: 'Lee' }, { auth: { bearer: done.body.token.access_token } });
  assertRefused(answer, 403, 'insufficient_scope');
});

test.run();
