// Proves apps switch design_gl, bill and pull_payment for their own site's profiles through
// /p/<id>/features, never the right to issue open loop cash, and never another site's profile.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { addIndividual, createApp, type TestApp } from './foundation-helpers.ts';

let server: TestServer;
let app: TestApp;
let otherSiteApp: TestApp;
let readOnlyApp: TestApp;
let profileId: string;

test.before(async () => {
  server = await startTestServer();
  app = await createApp(server);
  otherSiteApp = await createApp(server, { site: 'elsewhere' });
  readOnlyApp = await createApp(server, { permissions: ['create_profile', 'get_profile'] });
  profileId = await addIndividual(server, app);
});
test.after(async () => server.close());

test('a new profile has no features; PATCH enables and disables them', async () => {
  const { client } = server;
  assert.equal((await client.get(`/p/${profileId}/features`, undefined, { auth: app.basic })).body, { features: [] });
  const enabled = await client.request('PATCH', `/p/${profileId}/features`, { bill: true, design_gl: true }, { auth: app.basic });
  assert.is(enabled.status, 200, enabled.text);
  assert.equal(enabled.body, { features: ['bill', 'design_gl'] });
  const again = await client.request('PATCH', `/p/${profileId}/features`, { bill: 'true', design_gl: 'false', pull_payment: 'true' }, { auth: app.basic, form: true });
  assert.equal(again.body, { features: ['bill', 'pull_payment'] });
  assert.equal((await client.get(`/p/${profileId}/features`, undefined, { auth: app.basic })).body, { features: ['bill', 'pull_payment'] });
});

test('the right to issue open loop cash and unknown features are refused, changing nothing', async () => {
  const { client } = server;
  for (const body of [{ issue_open_loop: true }, { teleport: true }, { bill: 'maybe' }]) {
    const answer = await client.request('PATCH', `/p/${profileId}/features`, body, { auth: app.basic });
    assert.is(answer.status, 400, JSON.stringify(body));
    assert.is(answer.body.error, 'invalid');
  }
  assert.equal((await client.get(`/p/${profileId}/features`, undefined, { auth: app.basic })).body, { features: ['bill', 'pull_payment'] });
});

test('another site, a missing profile, missing credentials and a missing app permission are refused', async () => {
  const { client } = server;
  assertRefused(await client.get(`/p/${profileId}/features`, undefined, { auth: otherSiteApp.basic }), 404, 'not_found');
  assertRefused(await client.request('PATCH', `/p/${profileId}/features`, { bill: false }, { auth: otherSiteApp.basic }), 404, 'not_found');
  assertRefused(await client.get('/p/1000000000/features', undefined, { auth: app.basic }), 404, 'not_found');
  assertRefused(await client.get(`/p/${profileId}/features`), 401, 'invalid_token');
  const denied = await client.request('PATCH', `/p/${profileId}/features`, { bill: false }, { auth: readOnlyApp.basic });
  assertRefused(denied, 403, 'app_denied');
  assert.equal((await client.get(`/p/${profileId}/features`, undefined, { auth: app.basic })).body, { features: ['bill', 'pull_payment'] });
});

test.run();
