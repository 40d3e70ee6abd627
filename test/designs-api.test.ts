// Proves every design, plan, agreement and redeemers endpoint over HTTP: success, permission
// denials, field limits at their exact boundaries, and another profile's design.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designKind } from '../engine/designs/machine.ts';
import { publishDesignIn } from '../engine/designs/publish.ts';
import { designPermissions } from '../engine/designs/service.ts';
import { agreementTermsTextCharsMax, designDescriptionCharsMax, designTitleCharsMax, planTitleCharsMax } from '../engine/limits.ts';
import { addBusiness, addIndividual, createApp, userToken, type TestApp } from './foundation-helpers.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';

let server: TestServer;
let app: TestApp;
const allDesign = [...designPermissions, 'create_design'];

interface Actor {
  id: string;
  auth: { auth: { bearer: string } };
}

async function merchant(name: string, features: string[] = ['design_gl'], permissions = allDesign): Promise<Actor> {
  const managerId = await addIndividual(server, app);
  const id = await addBusiness(server, app, managerId, name);
  for (const feature of features) {
    const answer = await api.post(`/admin/profiles/${id}/features`, { feature }, { auth: { operator: true } });
    assert.is(answer.status, 200, answer.text);
  }
  const token = await userToken(server, app, id, { personalProfileId: managerId, concurrent: true, permissions });
  return { id, auth: { auth: { bearer: token } } };
}

async function individual(permissions = allDesign): Promise<Actor> {
  const id = await addIndividual(server, app);
  const token = await userToken(server, app, id, { concurrent: true, permissions });
  return { id, auth: { auth: { bearer: token } } };
}

async function createDesign(owner: Actor, body: Record<string, unknown> = {}): Promise<any> {
  const answer = await api.post('/design/create', { title: 'Cafe Gift', currency: 'USD', design_type: 'gl_design', ...body }, owner.auth);
  assert.is(answer.status, 200, answer.text);
  return answer.body;
}

type Auth = { auth: { bearer: string } } | { auth: { operator: true } } | undefined;
const api = {
  get: (path: string, auth?: Auth) => server.client.request('GET', path, undefined, auth),
  post: (path: string, body: Record<string, unknown>, auth?: Auth) => server.client.request('POST', path, body, auth),
  patch: (path: string, body: Record<string, unknown>, auth?: Auth) => server.client.request('PATCH', path, body, auth),
  delete: (path: string, auth?: Auth) => server.client.request('DELETE', path, undefined, auth),
};

test.before(async () => {
  server = await startTestServer();
  app = await createApp(server);
});

test.after(async () => {
  await server.close();
});

test('a design_gl merchant creates a gl_design and holds every design permission on it', async () => {
  const cafe = await merchant('Cafe One');
  const design = await createDesign(cafe);
  assert.match(design.id, /^\d{10}$/);
  assert.is(design.type, 'gl_design');
  assert.is(design.issuer_id, cafe.id);
  assert.is(design.published, false);
  assert.equal(design.permissions, [...designPermissions].sort());
  assert.equal(design.distribution_plans, []);
  assert.equal(design.agreements, []);
  const listed = await api.get('/design', cafe.auth);
  assert.is(listed.status, 200);
  assert.equal(listed.body.designs.map((row: any) => row.id), [design.id]);
});

test('design types need their features; overlay designs need none', async () => {
  const plain = await merchant('Plain Shop', []);
  const gl = await api.post('/design/create', { title: 'X', currency: 'USD', design_type: 'gl_design' }, plain.auth);
  assert.is(gl.status, 403);
  assert.is(gl.body.error, 'feature_required');
  const open = await api.post('/design/create', { title: 'X', currency: 'USD', design_type: 'open_design' }, plain.auth);
  assertRefused(open, 403, 'feature_required');
  const overlay = await api.post('/design/create', { title: 'X', currency: 'USD', design_type: 'overlay_design' }, plain.auth);
  assert.is(overlay.status, 200, overlay.text);
  const issuer = await merchant('Issuer', ['issue_open_loop']);
  const openDesign = await api.post('/design/create', { title: 'X', currency: 'USD', design_type: 'open_design' }, issuer.auth);
  assert.is(openDesign.status, 200, openDesign.text);
});

test('create: title limit at its boundary, required fields, unknown type and currency', async () => {
  const cafe = await merchant('Cafe Limits');
  const atLimit = await api.post('/design/create', { title: 'T'.repeat(designTitleCharsMax), currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  assert.is(atLimit.status, 200, atLimit.text);
  const over = await api.post('/design/create', { title: 'T'.repeat(designTitleCharsMax + 1), currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  assertRefused(over, 400, 'invalid');
  assert.ok(over.body.invalid.title);
  const missing = await api.post('/design/create', { currency: 'USD', design_type: 'gl_design' }, cafe.auth);
  assertRefused(missing, 400, 'invalid');
  assert.ok(missing.body.invalid.title);
  const badType = await api.post('/design/create', { title: 'X', currency: 'USD', design_type: 'paper_design' }, cafe.auth);
  assertRefused(badType, 400, 'invalid');
  assert.ok(badType.body.invalid.design_type);
});

test('every design call needs its token permission', async () => {
  const cafe = await merchant('Cafe Perms');
  const design = await createDesign(cafe);
  const weak = await merchant('Cafe Weak', ['design_gl'], ['send_cash', 'view_wallet']);
  const calls: Array<[string, string, Record<string, unknown>?]> = [
    ['post', '/design/create', { title: 'X', currency: 'USD', design_type: 'gl_design' }],
    ['get', '/design'],
    ['patch', `/design/${design.id}`, { title: 'Y' }],
    ['delete', `/design/${design.id}`],
    ['post', `/design/${design.id}/plan/create`, { title: 'P' }],
    ['post', `/design/${design.id}/agreement/add`, { uid: `service:${weak.id}`, redeemer: true, terms_text: 'T' }],
    ['post', `/design/${design.id}/agreement/remove`, { ids: ['0000000001'] }],
    ['get', `/design/${design.id}/redeemers`],
  ];
  for (const [method, path, body] of calls) {
    const answer = await (api as any)[method](path, ...(body ? [body, weak.auth] : [weak.auth]));
    assert.is(answer.status, 403, `${method} ${path}: ${answer.text}`);
  }
  // Reading one design needs no design permission on the token, only sight of the design.
  const unseen = await api.get(`/design/${design.id}`, weak.auth);
  assert.is(unseen.status, 404, unseen.text);
  const anonymous = await api.get(`/design/${design.id}`);
  assertRefused(anonymous, 401, 'invalid_token');
});

test("another profile's unpublished design answers as not found; a published one is viewable by everyone", async () => {
  const cafe = await merchant('Cafe Private');
  const design = await createDesign(cafe);
  const stranger = await individual();
  for (const path of [`/design/${design.id}`, `/design/${design.id}/redeemers`]) {
    const answer = await api.get(path, stranger.auth);
    assert.is(answer.status, 404, path);
  }
  const patch = await api.patch(`/design/${design.id}`, { title: 'Mine now' }, stranger.auth);
  assertRefused(patch, 404, 'not_found');
  await server.engine.commands.run('test.publish', [{ kind: designKind.kind, id: design.id }], (unit) => publishDesignIn(unit, design.id));
  const seen = await api.get(`/design/${design.id}`, stranger.auth);
  assert.is(seen.status, 200, seen.text);
  assert.equal(seen.body.permissions, ['view_design']);
  assert.is(seen.body.distribution_plans, undefined);
  assert.is(seen.body.agreements, undefined);
  const edit = await api.patch(`/design/${design.id}`, { title: 'Mine now' }, stranger.auth);
  assertRefused(edit, 403, 'forbidden');
  // Viewable is not granted: the stranger's own list stays empty.
  const listed = await api.get('/design', stranger.auth);
  assert.equal(listed.body.designs, []);
  const remove = await api.delete(`/design/${design.id}`, cafe.auth);
  assert.is(remove.status, 400);
  assert.is(remove.body.error, 'published');
});

test('PATCH: every field, sanitised description at its limit, clearing with null and empty', async () => {
  const cafe = await merchant('Cafe Patch');
  const designer = await individual();
  const design = await createDesign(cafe);
  const html = '<p>Hello <strong>friend</strong><script>alert(1)</script> <a href="https://example.com">shop</a></p>';
  const patched = await api.patch(
    `/design/${design.id}`,
    {
      title: 'Cafe Gift Card', description_html: html, multiple_images: true, waves: true, transferable: false, max_per_wallet: '250.00',
      designer_id: designer.id, featured_id: cafe.id, expire: { mode: 'relative', relative: 365 }, email_freq: 'weekly2', generic_provider: true,
      icon: { style: 'fit' },
    },
    cafe.auth,
  );
  assert.is(patched.status, 200, patched.text);
  const body = patched.body;
  assert.is(body.title, 'Cafe Gift Card');
  assert.not.match(body.description_html, /script/);
  assert.match(body.description_html, /<strong>friend<\/strong>/);
  assert.match(body.description_html, /<a href="https:\/\/example.com"/);
  assert.is(body.transferable, false);
  assert.is(body.max_per_wallet, '250.00');
  assert.is(body.designer_id, designer.id);
  assert.equal(body.expire, { mode: 'relative', absolute: null, relative: 365 });
  assert.is(body.email_freq, 'weekly2');
  assert.equal(body.icon, { media_id: null, style: 'fit' });

  const limit = await api.patch(`/design/${design.id}`, { description_html: 'a'.repeat(designDescriptionCharsMax) }, cafe.auth);
  assert.is(limit.status, 200, limit.text);
  const over = await api.patch(`/design/${design.id}`, { description_html: 'a'.repeat(designDescriptionCharsMax + 1) }, cafe.auth);
  assertRefused(over, 400, 'invalid');
  assert.ok(over.body.invalid.description_html);

  const cleared = await api.patch(`/design/${design.id}`, { description_html: '', max_per_wallet: null, designer_id: '', expire: { mode: null } }, cafe.auth);
  assert.is(cleared.status, 200, cleared.text);
  assert.is(cleared.body.description_html, '');
  assert.is(cleared.body.max_per_wallet, null);
  assert.is(cleared.body.designer_id, null);
  assert.equal(cleared.body.expire, { mode: null, absolute: null, relative: null });

  const absolute = await api.patch(`/design/${design.id}`, { expire: { mode: 'absolute', absolute: '2027-01-01T00:00:00Z' } }, cafe.auth);
  assert.is(absolute.status, 200, absolute.text);
  assert.is(absolute.body.expire.absolute, '2027-01-01T00:00:00.000Z');

  const refusals: Array<[Record<string, unknown>, string]> = [
    [{ max_per_wallet: '1.001' }, 'max_per_wallet'],
    [{ max_per_wallet: '-5' }, 'max_per_wallet'],
    [{ designer_id: '9999999999' }, 'designer_id'],
    [{ expire: { mode: 'relative' } }, 'expire.relative'],
    [{ expire: { mode: 'absolute' } }, 'expire.absolute'],
    [{ email_freq: 'hourly' }, 'email_freq'],
    [{ icon: { media_id: 'nope' } }, 'icon.media_id'],
    [{ colour: 'red' }, ''],
  ];
  const before = await api.get(`/design/${design.id}`, cafe.auth);
  for (const [patch, field] of refusals) {
    const answer = await api.patch(`/design/${design.id}`, patch, cafe.auth);
    assert.is(answer.status, 400, `${JSON.stringify(patch)}: ${answer.text}`);
    if (field) assert.ok(answer.body.invalid?.[field], `${field} in ${answer.text}`);
  }
  const after = await api.get(`/design/${design.id}`, cafe.auth);
  assert.equal(after.body, before.body, 'refused patches change nothing');
});

test('DELETE: an unpublished design goes, then answers 404', async () => {
  const cafe = await merchant('Cafe Delete');
  const design = await createDesign(cafe);
  const removed = await api.delete(`/design/${design.id}`, cafe.auth);
  assert.is(removed.status, 200, removed.text);
  assert.equal(removed.body, {});
  const again = await api.delete(`/design/${design.id}`, cafe.auth);
  assertRefused(again, 404, 'not_found');
  const read = await api.get(`/design/${design.id}`, cafe.auth);
  assertRefused(read, 404, 'not_found');
});

test('plans: create with default terms, patch recipients, title limit, delete then 404', async () => {
  const cafe = await merchant('Cafe Plans');
  const partner = await individual();
  const design = await createDesign(cafe);
  const created = await api.post(`/design/${design.id}/plan/create`, { title: 'P'.repeat(planTitleCharsMax) }, cafe.auth);
  assert.is(created.status, 200, created.text);
  const planId = created.body.plan_id;
  assert.match(planId, /^\d{10}$/);
  const tooLong = await api.post(`/design/${design.id}/plan/create`, { title: 'P'.repeat(planTitleCharsMax + 1) }, cafe.auth);
  assertRefused(tooLong, 400, 'invalid');
  let read = await api.get(`/design/${design.id}`, cafe.auth);
  assert.equal(read.body.distribution_plans[0].recipients, [{ percentage: '100', loop_id: design.id, recipient_type: 'redeemer', recipient_id: '0' }]);

  const recipients = [
    { percentage: '10', loop_id: '0', recipient_type: 'discount', recipient_id: '0' },
    { percentage: '2.5', loop_id: '0', recipient_type: 'static', recipient_id: partner.id },
    { percentage: '87.5', loop_id: design.id, recipient_type: 'redeemer', recipient_id: '0' },
  ];
  const patched = await api.patch(`/design/${design.id}/plan/${planId}`, { title: 'Launch', recipients }, cafe.auth);
  assert.is(patched.status, 200, patched.text);
  assert.is(patched.body.distribution_plans[0].title, 'Launch');
  assert.equal(patched.body.distribution_plans[0].recipients, recipients);

  const refusals = [
    [{ percentage: '100.01', loop_id: design.id, recipient_type: 'redeemer', recipient_id: '0' }],
    [{ percentage: '0', loop_id: design.id, recipient_type: 'redeemer', recipient_id: '0' }],
    [{ percentage: '10', loop_id: '12345', recipient_type: 'redeemer', recipient_id: '0' }],
    [{ percentage: '10', loop_id: design.id, recipient_type: 'discount', recipient_id: '0' }],
    [{ percentage: '10', loop_id: '0', recipient_type: 'static', recipient_id: '9999999999' }],
    [
      { percentage: '60', loop_id: '0', recipient_type: 'discount', recipient_id: '0' },
      { percentage: '50', loop_id: '0', recipient_type: 'static', recipient_id: partner.id },
    ],
    [
      { percentage: '10', loop_id: '0', recipient_type: 'discount', recipient_id: '0' },
      { percentage: '90.0001', loop_id: design.id, recipient_type: 'redeemer', recipient_id: '0' },
    ],
  ];
  for (const rows of refusals) {
    const answer = await api.patch(`/design/${design.id}/plan/${planId}`, { recipients: rows }, cafe.auth);
    assert.is(answer.status, 400, `${JSON.stringify(rows)}: ${answer.text}`);
    assert.ok(answer.body.invalid.recipients, answer.text);
  }
  const unknownPlan = await api.patch(`/design/${design.id}/plan/0000000000`, { title: 'X' }, cafe.auth);
  assertRefused(unknownPlan, 404, 'not_found');

  const deleted = await api.delete(`/design/${design.id}/plan/${planId}`, cafe.auth);
  assert.is(deleted.status, 200, deleted.text);
  assert.is(deleted.body.id, design.id);
  assert.equal(deleted.body.distribution_plans, []);
  const again = await api.delete(`/design/${design.id}/plan/${planId}`, cafe.auth);
  assertRefused(again, 404, 'not_found');
  read = await api.get(`/design/${design.id}`, cafe.auth);
  assert.equal(read.body.distribution_plans, []);
});

test('agreements: add (inactive, or active for the own profile), member told, activate only by the member, deactivate, remove, redeemers', async () => {
  const cafe = await merchant('Cafe Network');
  const design = await createDesign(cafe);
  const store = await merchant('Book Store', []);
  const settler = await merchant('Settle Co', []);
  await server.engine.services.profiles.addConfirmedUid(server.engine.sql, store.id, 'email:books@example.com');

  const own = await api.post(`/design/${design.id}/agreement/add`, { uid: `service:${cafe.id}`, redeemer: true, terms_text: 'Own shop' }, cafe.auth);
  assert.is(own.status, 200, own.text);
  assert.is(own.body.agreement.state, 'active');

  const added = await api.post(
    `/design/${design.id}/agreement/add`,
    { uid: `service:${store.id}`, redeemer: true, distributor: true, terms_text: 'T'.repeat(agreementTermsTextCharsMax), terms_link: 'https://example.com/terms' },
    cafe.auth,
  );
  assert.is(added.status, 200, added.text);
  const agreementId = added.body.agreement.id;
  assert.is(added.body.agreement.state, 'inactive');
  assert.is(added.body.agreements.length, 2);

  const refusals: Array<Record<string, unknown>> = [
    { uid: `service:${store.id}`, terms_text: 'No role' },
    { uid: `service:${store.id}`, redeemer: true, terms_text: 'T'.repeat(agreementTermsTextCharsMax + 1) },
    { uid: `service:${store.id}`, redeemer: true, terms_text: 'x', terms_link: 'ftp://example.com' },
    { uid: 'service:9999999999', redeemer: true, terms_text: 'x' },
  ];
  for (const body of refusals) {
    const answer = await api.post(`/design/${design.id}/agreement/add`, body, cafe.auth);
    assert.is(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
  }

  const settlerAdded = await api.post(`/design/${design.id}/agreement/add`, { uid: `service:${settler.id}`, settler: true, terms_text: 'Settles' }, cafe.auth);
  assert.is(settlerAdded.status, 200, settlerAdded.text);

  // The member sees the design (view_design); a settler also sees the network.
  const memberView = await api.get(`/design/${design.id}`, store.auth);
  assert.is(memberView.status, 200, memberView.text);
  assert.is(memberView.body.agreements, undefined);
  const settlerView = await api.get(`/design/${design.id}`, settler.auth);
  assert.is(settlerView.body.agreements.length, 3);

  // Only the member activates; the owner cannot do it for them.
  const byOwner = await api.post(`/design/${design.id}/agreement/${agreementId}/activate`, {}, cafe.auth);
  assert.is(byOwner.status, 403, byOwner.text);
  let redeemers = await api.get(`/design/${design.id}/redeemers`, cafe.auth);
  assert.equal(redeemers.body.map((row: any) => row.id), [cafe.id]);
  const activated = await api.post(`/design/${design.id}/agreement/${agreementId}/activate`, {}, store.auth);
  assert.is(activated.status, 200, activated.text);
  assert.is(activated.body.agreement.state, 'active');
  redeemers = await api.get(`/design/${design.id}/redeemers`, cafe.auth);
  assert.equal(redeemers.body.map((row: any) => row.id).sort(), [cafe.id, store.id].sort());

  const deactivated = await api.post(`/design/${design.id}/agreement/${agreementId}/deactivate`, {}, cafe.auth);
  assert.is(deactivated.status, 200, deactivated.text);
  assert.is(deactivated.body.agreement.state, 'deactivated');
  redeemers = await api.get(`/design/${design.id}/redeemers`, cafe.auth);
  assert.equal(redeemers.body.map((row: any) => row.id), [cafe.id]);
  const missing = await api.post(`/design/${design.id}/agreement/0000000000/activate`, {}, store.auth);
  assertRefused(missing, 404, 'not_found');

  // The member's remove of another's agreement is skipped silently; the owner's goes through.
  const skipped = await api.post(`/design/${design.id}/agreement/remove`, { ids: [settlerAdded.body.agreement.id] }, store.auth);
  assert.is(skipped.status, 200, skipped.text);
  assert.is(skipped.body.agreements.find((row: any) => row.id === settlerAdded.body.agreement.id).state, 'inactive');
  const message = await server.engine.sql`select payload->>'template' as template from outbox where payload->>'to' = 'books@example.com'`;
  assert.equal(message.map((row: any) => row.template), ['agreement-added']);
  const removed = await api.post(`/design/${design.id}/agreement/remove`, { ids: [agreementId, '0000000000'] }, cafe.auth);
  assert.is(removed.status, 200, removed.text);
  const states = Object.fromEntries(removed.body.agreements.map((row: any) => [row.id, row.state]));
  assert.is(states[agreementId], undefined, 'a removed agreement leaves the list');
  assert.is(states[settlerAdded.body.agreement.id], 'inactive');
});

test.run();
