// Proves POST /o/<id>/signup_accept cannot mint profiles or drain an offer without limit (issue 25 finding 1): past signupAcceptCaptchaAfterCalls from one client address each call needs a solved captcha, calls are throttled per client address and per offer (429 with Retry-After), and a refused call makes no profile. Limits at their production values (scale 1).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rateSignupAcceptPerAddressMax, rateSignupAcceptPerOfferMax, signupAcceptCaptchaAfterCalls } from '../engine/limits.ts';
import { countRows, type TestApp } from './foundation-helpers.ts';
import { issue, ledgerWorld } from './ledger-api-support.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { brandWorld, type Actor } from './support/brand-world.ts';

let server: TestServer;
let app: TestApp;
let publicAppId: string;
let bypass: string;
let cafe: Actor;
const { business } = brandWorld(() => ({ server, app }), { businessPermissions: ['create_design', 'preview_offer', 'send_cash', 'view_wallet', 'receive_cash'] });

/** A server whose limits are scaled by `scale`, with the cafe, its cash and a public app. */
async function open(scale: string): Promise<void> {
  server = await startTestServer({ env: { CASHLOOP_RATE_LIMIT_SCALE: scale } });
  app = (await ledgerWorld(server)).app;
  cafe = await business('Cafe');
  await issue(server, cafe.id, '1000.00');
  const publicApp = await server.client.post('/admin/apps', { name: 'Public', permissions: [], site: 'default', public: true }, { auth: { operator: true } });
  publicAppId = publicApp.body.client_id;
  bypass = (await server.client.get('/aa/recaptcha_invisible_sitekey')).body.captcha_bypass;
}
test.before(() => open('1'));
test.after(async () => server.close());

const form = (index: number, extra: Record<string, unknown> = {}) => ({
  option_id: 'free', first_name: 'Robin', last_name: `Vale${index}`, app_id: publicAppId, pin: '4321', device_name: 'phone', device_uuid: `device-${index}`,
  agreed_terms_and_privacy: 'true', ...extra,
});

test('one client address: a captcha past the first calls, then 429 with Retry-After; a refused call makes no profile', async () => {
  const created = await server.client.post('/o/create', { title: 'Welcome', amount: '1.00', quantity: 1000, show_limit: 1 }, cafe.auth);
  assert.is(created.status, 200, created.text);
  const path = `/o/${created.body.id}/signup_accept`;
  for (let index = 0; index < signupAcceptCaptchaAfterCalls; index++) assert.is((await server.client.post(path, form(index), { form: true })).status, 200);
  const profilesBefore = await countRows(server, 'profiles');
  const noCaptcha = await server.client.post(path, form(100), { form: true });
  assertRefused(noCaptcha, 400, 'captcha_required');
  assert.is(await countRows(server, 'profiles'), profilesBefore);
  // The refused call still counted against the address's budget (every call does), so one fewer is left.
  let index = signupAcceptCaptchaAfterCalls + 1;
  for (; index < rateSignupAcceptPerAddressMax; index++) {
    const solved = await server.client.post(path, form(index, { 'g-recaptcha-response': bypass }), { form: true });
    assert.is(solved.status, 200, solved.text);
  }
  const beyond = await server.client.post(path, form(index, { 'g-recaptcha-response': bypass }), { form: true });
  assertRefused(beyond, 429, 'rate_limited');
  assert.ok(Number(beyond.headers.get('retry-after')) >= 1);
  assert.is(await countRows(server, 'profiles'), profilesBefore + rateSignupAcceptPerAddressMax - signupAcceptCaptchaAfterCalls - 1);
  // Another address is throttled on its own.
  const elsewhere = await server.client.post(path, form(500), { form: true, headers: { 'x-forwarded-for': '203.0.113.9' } });
  assert.is(elsewhere.status, 200, elsewhere.text);
});

test("many client addresses on one offer: the offer's budget runs out (429 with Retry-After) and the refused calls make no profile", async () => {
  // A tenth of every limit: rateSignupAcceptPerOfferMax / 10 accepts, each from an address of its own (one call per address).
  await server.close();
  const scale = 0.1;
  await open(String(scale));
  const offerMax = Math.round(rateSignupAcceptPerOfferMax * scale);
  const created = await server.client.post('/o/create', { title: 'Open house', amount: '1.00', quantity: 1000, show_limit: 1 }, cafe.auth);
  assert.is(created.status, 200, created.text);
  const path = `/o/${created.body.id}/signup_accept`;
  const from = (index: number) => ({ form: true, headers: { 'x-forwarded-for': `198.51.100.${index + 1}` } });
  for (let index = 0; index < offerMax; index++) {
    const accepted = await server.client.post(path, form(index, { 'g-recaptcha-response': bypass }), from(index));
    assert.is(accepted.status, 200, accepted.text);
  }
  const profilesBefore = await countRows(server, 'profiles');
  for (let index = offerMax; index < offerMax + 3; index++) {
    const beyond = await server.client.post(path, form(index, { 'g-recaptcha-response': bypass }), from(index));
    assertRefused(beyond, 429, 'rate_limited');
    assert.ok(Number(beyond.headers.get('retry-after')) >= 1);
  }
  assert.is(await countRows(server, 'profiles'), profilesBefore, 'no profile past the offer budget');
  const other = await server.client.post('/o/create', { title: 'Other offer', amount: '1.00', quantity: 10, show_limit: 1 }, cafe.auth);
  const elsewhere = await server.client.post(`/o/${other.body.id}/signup_accept`, form(900, { 'g-recaptcha-response': bypass }), from(200));
  assert.is(elsewhere.status, 200, `another offer has its own budget: ${elsewhere.text}`);
});

test.run();
