// Proves profile access (add-individual, add-business, get-by-uid) and the public profile reads with every field rule at its boundary.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { address, addBusiness, addIndividual, countRows, createApp, userToken, type TestApp } from './foundation-helpers.ts';

let server: TestServer;
let app: TestApp;
let otherSiteApp: TestApp;

test.before(async () => {
  server = await startTestServer();
  app = await createApp(server);
  otherSiteApp = await createApp(server, { site: 'elsewhere' });
});
test.after(async () => server.close());

const individual = (fields: Record<string, unknown> = {}) => ({ first_name: 'Pat', last_name: 'Lee', agreed_terms_and_privacy: true, ...fields });
const business = (managerId: string, fields: Record<string, unknown> = {}) => ({
  business_name: 'Corner Cafe',
  manager_uid: `service:${managerId}`,
  business: { ...address, public: true },
  mail: address,
  ...fields,
});

async function expectInvalid(answer: { status: number; body: any }, field: string) {
  assert.is(answer.status, 400, JSON.stringify(answer.body));
  assert.is(answer.body.error, 'invalid');
  assert.ok(answer.body.invalid && field in answer.body.invalid, `expected invalid.${field} in ${JSON.stringify(answer.body)}`);
}

test('add-individual creates a profile and an active wallet; the answer has id and the Profile shape', async () => {
  const answer = await server.client.post('/p/add-individual', individual({ business_name: 'Lee Crafts', phone: '5555550100' }), { auth: app.basic });
  assert.is(answer.status, 200);
  const id = answer.body.id;
  assert.match(id, /^\d{10}$/);
  assert.equal(Object.keys(answer.body.profile).sort(), [
    'accepted_national_currencies', 'address', 'address_data', 'chain_id', 'first_name', 'id', 'image125', 'image24', 'image250w',
    'image25', 'image48', 'image50', 'image73', 'is_individual', 'last_name', 'latitude', 'longitude', 'phone', 'preferred_currency',
    'service_uid', 'support_paycode', 'title', 'unsupported_national_currencies', 'url', 'username',
  ].sort());
  assert.equal(
    { ...answer.body.profile, url: undefined },
    {
      id, title: 'Pat Lee', username: null, is_individual: true, first_name: 'Pat', last_name: 'Lee', url: undefined,
      service_uid: `service:${id}`, image24: null, image25: null, image48: null, image50: null, image73: null, image125: null,
      image250w: null, address: '', address_data: null, latitude: '', longitude: '', phone: '', preferred_currency: '',
      accepted_national_currencies: [], unsupported_national_currencies: [], chain_id: null, support_paycode: false,
    },
  );
  assert.match(answer.body.profile.url, new RegExp(`/p/${id}/$`));
  assert.is(await server.engine.services.profiles.walletState(server.engine.sql, id), 'active');
});

test('add-individual accepts a form body', async () => {
  const answer = await server.client.post('/p/add-individual', individual({ agreed_terms_and_privacy: 'true' }), { auth: app.basic, form: true });
  assert.is(answer.status, 200);
});

test('add-individual needs app credentials and the create_profile app permission', async () => {
  const missing = await server.client.post('/p/add-individual', individual());
  assert.is(missing.status, 401);
  assert.is(missing.body.error, 'invalid_token');
  const wrong = await server.client.post('/p/add-individual', individual(), { auth: { basic: { clientId: app.clientId, clientSecret: 'wrong' } } });
  assertRefused(wrong, 401, 'invalid_token');
  assert.is(wrong.body.token_error, 'app_credentials_changed');
  const unknown = await server.client.post('/p/add-individual', individual(), { auth: { basic: { clientId: '1000000000', clientSecret: 'x' } } });
  assert.is(unknown.body.token_error, 'app_not_found');
  const limited = await createApp(server, { permissions: ['get_profile'] });
  const denied = await server.client.post('/p/add-individual', individual(), { auth: limited.basic });
  assert.is(denied.status, 403);
  assert.is(denied.body.error, 'app_denied');
});

test('add-individual names: 50 characters pass, 51 fail; they start with a letter; U+2000-U+2FFF refused', async () => {
  assert.is((await server.client.post('/p/add-individual', individual({ first_name: 'A'.repeat(50), last_name: 'B'.repeat(50) }), { auth: app.basic })).status, 200);
  const before = await countRows(server, 'profiles');
  await expectInvalid(await server.client.post('/p/add-individual', individual({ first_name: 'A'.repeat(51) }), { auth: app.basic }), 'first_name');
  await expectInvalid(await server.client.post('/p/add-individual', individual({ last_name: 'B'.repeat(51) }), { auth: app.basic }), 'last_name');
  await expectInvalid(await server.client.post('/p/add-individual', individual({ first_name: '1Pat' }), { auth: app.basic }), 'first_name');
  await expectInvalid(await server.client.post('/p/add-individual', individual({ last_name: 'Lee\u2003x' }), { auth: app.basic }), 'last_name');
  await expectInvalid(await server.client.post('/p/add-individual', individual({ first_name: '' }), { auth: app.basic }), 'first_name');
  await expectInvalid(await server.client.post('/p/add-individual', { last_name: 'Lee', agreed_terms_and_privacy: true }, { auth: app.basic }), 'first_name');
  assert.is(await countRows(server, 'profiles'), before);
});

test('add-individual requires agreed_terms_and_privacy true and refuses unknown fields', async () => {
  const before = await countRows(server, 'profiles');
  await expectInvalid(await server.client.post('/p/add-individual', individual({ agreed_terms_and_privacy: false }), { auth: app.basic }), 'agreed_terms_and_privacy');
  await expectInvalid(await server.client.post('/p/add-individual', { first_name: 'Pat', last_name: 'Lee' }, { auth: app.basic }), 'agreed_terms_and_privacy');
  await expectInvalid(await server.client.post('/p/add-individual', individual({ email: 'a@b.com' }), { auth: app.basic }), 'email');
  await expectInvalid(await server.client.post('/p/add-individual', individual({ version: '2' }), { auth: app.basic }), 'version');
  assert.is(await countRows(server, 'profiles'), before);
  assert.is((await server.client.post('/p/add-individual', individual({ version: '1' }), { auth: app.basic })).status, 200);
});

test('add-individual limits: business_name 100, phone 20, home line 50, apartment 20, city 50, zip 20, state blank outside the USA', async () => {
  const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
    [{ business_name: 'b'.repeat(100) }, { business_name: 'b'.repeat(101) }, 'business_name'],
    [{ phone: '1'.repeat(20) }, { phone: '1'.repeat(21) }, 'phone'],
    [{ home: { line1: 'l'.repeat(50) } }, { home: { line1: 'l'.repeat(51) } }, 'home.line1'],
    [{ home: { line2: 'l'.repeat(50) } }, { home: { line2: 'l'.repeat(51) } }, 'home.line2'],
    [{ home: { apartment: 'a'.repeat(20) } }, { home: { apartment: 'a'.repeat(21) } }, 'home.apartment'],
    [{ home: { city: 'c'.repeat(50) } }, { home: { city: 'c'.repeat(51) } }, 'home.city'],
    [{ home: { zip: '9'.repeat(20) } }, { home: { zip: '9'.repeat(21) } }, 'home.zip'],
    [{ home: { country: 'US', state: 'CA' } }, { home: { country: 'CA', state: 'ON' } }, 'home.state'],
    [{ home: { country: 'CA', state: '' } }, { home: { country: 'usa' } }, 'home.country'],
  ];
  for (const [passing, failing, field] of cases) {
    const ok = await server.client.post('/p/add-individual', individual(passing), { auth: app.basic });
    assert.is(ok.status, 200, `${field} at its limit: ${ok.text}`);
    const before = await countRows(server, 'profiles');
    await expectInvalid(await server.client.post('/p/add-individual', individual(failing), { auth: app.basic }), field);
    assert.is(await countRows(server, 'profiles'), before);
  }
});

test('add-business creates a managed business with a public address and sanitized description', async () => {
  const managerId = await addIndividual(server, app);
  const answer = await server.client.post(
    '/p/add-business',
    business(managerId, {
      dba: 'The Cafe',
      web_site: 'https://cafe.example',
      description_html: '<p>Good <strong>coffee</strong><script>alert(1)</script> <img src=x> <a href="https://cafe.example" onclick="x()">site</a></p>',
      phone: '5555550100',
      phone_public: true,
    }),
    { auth: app.basic },
  );
  assert.is(answer.status, 200, answer.text);
  const id = answer.body.id;
  assert.is(answer.body.profile.is_individual, false);
  assert.is(answer.body.profile.title, 'Corner Cafe');
  assert.is(answer.body.profile.first_name, '');
  assert.is(answer.body.profile.address, '1 Main St, Springfield, IL 62701, US');
  assert.equal(answer.body.profile.address_data, { ...address, public: true });
  assert.is(answer.body.profile.phone, '5555550100');
  const { profiles } = server.engine.services;
  assert.equal(await profiles.managers(server.engine.sql, id), [managerId]);
  assert.equal((await profiles.managedBy(server.engine.sql, managerId)).map((profile) => profile.id), [id]);
  const record = await profiles.get(server.engine.sql, id);
  assert.is(record!.descriptionHtml, '<p>Good <strong>coffee</strong>  <a href="https://cafe.example">site</a></p>');
  assert.is(await profiles.walletState(server.engine.sql, id), 'active');
});

test('add-business keeps a private address and phone off the public profile', async () => {
  const managerId = await addIndividual(server, app);
  const answer = await server.client.post('/p/add-business', business(managerId, { business: address, phone: '5555550100' }), { auth: app.basic });
  assert.is(answer.body.profile.address, '');
  assert.is(answer.body.profile.address_data, null);
  assert.is(answer.body.profile.phone, '');
});

test('add-business needs manager_uid naming a personal profile of the same site', async () => {
  const managerId = await addIndividual(server, app);
  const otherSiteManager = await addIndividual(server, otherSiteApp);
  const businessId = await addBusiness(server, app, managerId);
  const before = await countRows(server, 'profiles');
  await expectInvalid(await server.client.post('/p/add-business', business(managerId, { manager_uid: undefined }), { auth: app.basic }), 'manager_uid');
  await expectInvalid(await server.client.post('/p/add-business', business(otherSiteManager), { auth: app.basic }), 'manager_uid');
  await expectInvalid(await server.client.post('/p/add-business', business(businessId), { auth: app.basic }), 'manager_uid');
  await expectInvalid(await server.client.post('/p/add-business', business('1000000000'), { auth: app.basic }), 'manager_uid');
  assert.is(await countRows(server, 'profiles'), before);
  const limited = await createApp(server, { permissions: ['get_profile', 'control_profile'] });
  assertRefused(await server.client.post('/p/add-business', business(managerId), { auth: limited.basic }), 403, 'app_denied');
});

test('add-business limits: names 100, description 3000, address line 50, suite 20, city 50, zip 20, phone 20; US state required', async () => {
  const managerId = await addIndividual(server, app);
  const withAddress = (fields: Record<string, unknown>) => ({ business: { ...address, ...fields } });
  const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
    [{ business_name: 'n'.repeat(100) }, { business_name: 'n'.repeat(101) }, 'business_name'],
    [{ dba: 'd'.repeat(100) }, { dba: 'd'.repeat(101) }, 'dba'],
    [{ web_site: 'w'.repeat(100) }, { web_site: 'w'.repeat(101) }, 'web_site'],
    [{ description_html: 'x'.repeat(3000) }, { description_html: 'x'.repeat(3001) }, 'description_html'],
    [{ phone: '1'.repeat(20) }, { phone: '1'.repeat(21) }, 'phone'],
    [withAddress({ line1: 'l'.repeat(50) }), withAddress({ line1: 'l'.repeat(51) }), 'business.line1'],
    [withAddress({ line2: 'l'.repeat(50) }), withAddress({ line2: 'l'.repeat(51) }), 'business.line2'],
    [withAddress({ suite: 's'.repeat(20) }), withAddress({ suite: 's'.repeat(21) }), 'business.suite'],
    [withAddress({ city: 'c'.repeat(50) }), withAddress({ city: 'c'.repeat(51) }), 'business.city'],
    [withAddress({ zip: '9'.repeat(20) }), withAddress({ zip: '9'.repeat(21) }), 'business.zip'],
    [withAddress({ country: 'CA', state: undefined }), withAddress({ state: undefined }), 'business.state'],
    [withAddress({ state: 'NY' }), withAddress({ state: 'ny' }), 'business.state'],
    [{ mail: { ...address, zip: '1' } }, { mail: { ...address, line1: undefined } }, 'mail.line1'],
    [{ mail: { ...address, city: 'x' } }, { mail: { ...address, country: 'USA' } }, 'mail.country'],
  ];
  for (const [passing, failing, field] of cases) {
    const ok = await server.client.post('/p/add-business', business(managerId, passing), { auth: app.basic });
    assert.is(ok.status, 200, `${field} at its limit: ${ok.text}`);
    const before = await countRows(server, 'profiles');
    await expectInvalid(await server.client.post('/p/add-business', business(managerId, failing), { auth: app.basic }), field);
    assert.is(await countRows(server, 'profiles'), before);
  }
  for (const missing of ['business_name', 'business', 'mail']) {
    await expectInvalid(await server.client.post('/p/add-business', business(managerId, { [missing]: undefined }), { auth: app.basic }), missing);
  }
});

test('get-by-uid finds a same-site profile by profile ID, service UID, email, phone and username, with confirmed_uids', async () => {
  const id = await addIndividual(server, app, { first: 'Robin', last: 'Hill' });
  const { profiles } = server.engine.services;
  await profiles.addConfirmedUid(server.engine.sql, id, 'email:robin@example.com');
  await profiles.addConfirmedUid(server.engine.sql, id, 'phone:+15555550142');
  await profiles.setFlags(server.engine.sql, id, { username: 'robinhill' });
  for (const uid of [id, `service:${id}`, 'email:Robin@Example.com', 'robin@example.com', '+15555550142', 'phone:+15555550142', 'username:robinhill', 'RobinHill']) {
    const answer = await server.client.get('/p/get-by-uid', { uid }, { auth: app.basic });
    assert.is(answer.status, 200);
    assert.is(answer.body.profile?.id, id, `lookup by ${uid}`);
    assert.equal(answer.body.profile.confirmed_uids, [{ uid: 'email:robin@example.com' }, { uid: 'phone:+15555550142' }]);
    assert.is(answer.body.profile.username, 'robinhill');
  }
});

test('get-by-uid answers an object without profile when not found or on another site; 400 for an unreadable uid; 403 without get_profile', async () => {
  const id = await addIndividual(server, app);
  assert.equal((await server.client.get('/p/get-by-uid', { uid: 'email:nobody@example.com' }, { auth: app.basic })).body, {});
  const elsewhere = await server.client.get('/p/get-by-uid', { uid: id }, { auth: otherSiteApp.basic });
  assert.is(elsewhere.status, 200);
  assert.equal(elsewhere.body, {});
  await expectInvalid(await server.client.get('/p/get-by-uid', { uid: 'bogus:thing' }, { auth: app.basic }), 'uid');
  await expectInvalid(await server.client.get('/p/get-by-uid', {}, { auth: app.basic }), 'uid');
  const limited = await createApp(server, { permissions: ['create_profile'] });
  assertRefused(await server.client.get('/p/get-by-uid', { uid: id }, { auth: limited.basic }), 403, 'app_denied');
  assertRefused(await server.client.get('/p/get-by-uid', { uid: id }), 401, 'invalid_token');
});

test('GET /p/<id> and GET /me answer the public Profile; unknown profiles 404', async () => {
  const id = await addIndividual(server, app, { first: 'Sam', last: 'Oak' });
  const open = await server.client.get(`/p/${id}`);
  assert.is(open.status, 200);
  assert.is(open.body.title, 'Sam Oak');
  assertRefused(await server.client.get('/p/1000000000'), 404, 'not_found');
  assertRefused(await server.client.get('/p/nonsense'), 404, 'not_found');
  const token = await userToken(server, app, id, { permissions: [] });
  const me = await server.client.get('/me', undefined, { auth: { bearer: token } });
  assert.is(me.status, 200);
  // /me adds the legacy aliases old OAuth clients read (docs/decisions.md).
  assert.equal(me.body, { ...open.body, display_name: open.body.title, photo50: open.body.image48 });
  const byParam = await server.client.get('/me', { access_token: token });
  assert.is(byParam.body.id, id);
  assert.is((await server.client.get('/me')).body.token_error, 'missing_token');
  assert.is((await server.client.get('/me', undefined, { auth: { bearer: 'tnot-a-token' } })).body.token_error, 'token_not_recognized');
});

test('GET /wallet/info answers {profile: ProfileDetail, related}; POST with an access_token form field works too', async () => {
  const id = await addIndividual(server, app);
  const businessId = await addBusiness(server, app, id);
  const { profiles } = server.engine.services;
  await profiles.addConfirmedUid(server.engine.sql, id, 'email:pat@example.com');
  const token = await userToken(server, app, id);
  const answer = await server.client.get('/wallet/info', undefined, { auth: { bearer: token } });
  assert.is(answer.status, 200);
  assert.is(answer.body.profile.id, id);
  assert.equal(answer.body.profile.holdings, []);
  assert.equal(answer.body.profile.accounts, []);
  assert.equal(answer.body.profile.confirmed_uids, [{ uid: 'email:pat@example.com' }]);
  assert.is(answer.body.profile.service_uid, `service:${id}`);
  assert.equal(answer.body.related.map((profile: { id: string }) => profile.id), [businessId]);
  assert.ok('holdings' in answer.body.related[0]);
  assert.is('personal_profile' in answer.body, false);
  const posted = await server.client.post('/wallet/info', { access_token: token }, { form: true });
  assert.is(posted.status, 200);
  assert.is(posted.body.profile.id, id);
});

test('GET /wallet/info shows providers\' holdings and accounts, and needs view_wallet', async () => {
  const id = await addIndividual(server, app);
  const { profiles } = server.engine.services;
  profiles.registerHoldingsProvider(async (_db, profileId) => (profileId === id ? [{ loop_id: '0', currency: 'USD', amount: '1.25', expiring: [] }] : []));
  profiles.registerAccountsProvider(async (_db, profileId) => (profileId === id ? [{ id: '1', redacted_account_num: 'XXX45', rdfi_name: 'Bank', alias: '', ach_type: 'checking', currency: 'USD' }] : []));
  try {
    const answer = await server.client.get('/wallet/info', undefined, { auth: { bearer: await userToken(server, app, id) } });
    assert.equal(answer.body.profile.holdings, [{ loop_id: '0', currency: 'USD', amount: '1.25', expiring: [] }]);
    assert.is(answer.body.profile.accounts[0].redacted_account_num, 'XXX45');
  } finally {
    profiles.registerHoldingsProvider(async () => []);
    profiles.registerAccountsProvider(async () => []);
  }
  const narrow = await userToken(server, app, id, { permissions: ['send_cash'] });
  const denied = await server.client.get('/wallet/info', undefined, { auth: { bearer: narrow } });
  assert.is(denied.status, 403);
  assert.is(denied.body.error, 'insufficient_scope');
});

test.run();
