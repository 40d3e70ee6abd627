// Proves the operator CLI for designs: `cashloop design list`, `design show ID`, an agreement's whole
// life (add, show, activate by its member, deactivate, remove), readable and with --json, against a
// real server; unknown ids and a wrong key exit 1.
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designPermissions } from '../engine/designs/service.ts';
import { addBusiness, addIndividual, createApp, userToken } from './foundation-helpers.ts';
import { runCliCaptured, runOperatorCli } from './support/cli.ts';
import { startTestServer, type TestServer } from './support/http.ts';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
});
test.after(async () => server.close());

const cli = (...args: string[]) => runOperatorCli(server.baseUrl, args);

test('design list, design show and agreement list, readable and --json', async () => {
  const app = await createApp(server);
  const managerId = await addIndividual(server, app);
  const cafeId = await addBusiness(server, app, managerId, 'CLI Cafe');
  const memberId = await addBusiness(server, app, managerId, 'CLI Member');
  assert.is((await cli('profile', 'feature', 'add', cafeId, 'design_gl')).code, 0);
  const bearer = await userToken(server, app, cafeId, { personalProfileId: managerId, concurrent: true, permissions: [...designPermissions, 'create_design'] });
  const auth = { auth: { bearer } };

  assert.match((await cli('design', 'list')).out, '(no designs)');
  const created = await server.client.post('/design/create', { title: 'Bean Bucks', currency: 'USD', design_type: 'gl_design' }, auth);
  assert.is(created.status, 200, created.text);
  const designId = created.body.id;
  const plan = await server.client.post(`/design/${designId}/plan/create`, { title: 'Standard' }, auth);
  assert.is(plan.status, 200, plan.text);
  const added = await server.client.post(`/design/${designId}/agreement/add`, { uid: `service:${memberId}`, redeemer: true, settler: true, terms_text: 'Net 30' }, auth);
  assert.is(added.status, 200, added.text);
  const image = await sharp({ create: { width: 800, height: 450, channels: 3, background: '#336699' } }).png().toBuffer();
  const put = await server.client.request('PUT', `/design/${designId}/image`, undefined, { ...auth, rawBody: image, headers: { 'content-type': 'image/png' } });
  assert.is(put.status, 200, put.text);

  const list = await cli('design', 'list');
  assert.is(list.code, 0, list.out);
  assert.match(list.out, designId);
  assert.match(list.out, 'gl_design');
  assert.match(list.out, 'unpublished');
  assert.match(list.out, `issuer ${cafeId}  Bean Bucks`);
  const listJson = JSON.parse((await cli('--json', 'design', 'list')).stdout);
  assert.equal(listJson.designs.map((row: any) => row.id), [designId]);

  const show = await cli('design', 'show', designId);
  assert.is(show.code, 0, show.out);
  assert.match(show.out, 'title            Bean Bucks');
  assert.match(show.out, `/media/design/${put.body.image.media_id}/full`);
  assert.match(show.out, `${plan.body.plan_id} Standard`);
  assert.match(show.out, 'agreements       1');
  const showJson = JSON.parse((await cli('design', 'show', designId, '--json')).stdout);
  assert.is(showJson.id, designId);
  assert.is(showJson.distribution_plans.length, 1);
  assert.is(showJson.image.media_id, put.body.image.media_id);

  const agreements = await cli('agreement', 'list', designId);
  assert.is(agreements.code, 0, agreements.out);
  assert.match(agreements.out, `${added.body.agreement.id}  inactive     member ${memberId} (CLI Member)  redeemer,settler  "Net 30"`);
  const agreementsJson = JSON.parse((await cli('--json', 'agreement', 'list', designId)).stdout);
  assert.is(agreementsJson.design_id, designId);
  assert.equal(agreementsJson.agreements.map((row: any) => [row.id, row.state]), [[added.body.agreement.id, 'inactive']]);
});

test('an agreement from the CLI: add by any UID, show, activate with the member\'s token, deactivate, remove', async () => {
  const app = await createApp(server);
  const managerId = await addIndividual(server, app);
  const cafeId = await addBusiness(server, app, managerId, 'Life Cafe');
  const memberId = await addBusiness(server, app, managerId, 'Life Member');
  assert.is((await cli('profile', 'feature', 'add', `service:${cafeId}`, 'design_gl')).code, 0);
  const design = await cli('--json', 'design', 'create', '--issuer', cafeId, '--title', 'Life Bucks', '--currency', 'USD');
  assert.is(design.code, 0, design.out);
  const designId = JSON.parse(design.stdout).id;

  const added = await cli('agreement', 'create', designId, '--member', `service:${memberId}`, '--roles', 'redeemer', '--terms', 'Net 30');
  assert.is(added.code, 0, added.out);
  const agreementId = /agreement (\d{10})  inactive/.exec(added.stdout)![1];
  assert.match(added.stdout, `cashloop agreement activate ${designId} ${agreementId} --token`);
  assert.match((await cli('agreement', 'show', designId, agreementId)).stdout, /inactive\s+member \d{10} \(Life Member\)\s+redeemer\nterms  Net 30/);

  // Activation is the member's: the operator key alone cannot give it, another profile's token is refused.
  const withoutToken = await cli('agreement', 'activate', designId, agreementId);
  assert.is(withoutToken.code, 1);
  assert.match(withoutToken.stderr, 'Only the member activates an agreement');
  const cafeToken = await userToken(server, app, cafeId, { personalProfileId: managerId, concurrent: true, permissions: [...designPermissions] });
  const byOwner = await cli('agreement', 'activate', designId, agreementId, '--token', cafeToken);
  assert.is(byOwner.code, 1);
  assert.match(byOwner.stderr, 'Only the member named in the agreement may activate it.');
  const memberToken = await userToken(server, app, memberId, { personalProfileId: managerId, concurrent: true, permissions: [...designPermissions] });
  const activated = await cli('agreement', 'activate', designId, agreementId, '--token', memberToken);
  assert.is(activated.code, 0, activated.out);
  assert.match(activated.stdout, `agreement ${agreementId}  active`);

  const deactivated = await cli('agreement', 'deactivate', designId, agreementId);
  assert.is(deactivated.code, 0, deactivated.out);
  assert.match(deactivated.stdout, `agreement ${agreementId}  deactivated`);
  const removed = await cli('agreement', 'remove', designId, agreementId);
  assert.is(removed.code, 0, removed.out);
  assert.match(removed.stdout, `removed agreement ${agreementId}; 0 left on design ${designId}`);
  const again = await cli('agreement', 'remove', designId, agreementId);
  assert.is(again.code, 1);
  assert.match(again.stderr, /no such agreement/i);
  const gone = await cli('agreement', 'show', designId, agreementId);
  assert.is(gone.code, 1);
  assert.match(gone.stderr, `Design ${designId} has no agreement ${agreementId}`);
});

test('unknown designs and a wrong operator key exit 1 with the server\'s error', async () => {
  const missing = await cli('design', 'show', '9999999999');
  assert.is(missing.code, 1);
  assert.match(missing.out, /no such design/i);
  assert.is((await cli('agreement', 'list', 'nope')).code, 1);
  const wrongKey = await runCliCaptured(server.baseUrl, ['--operator-key', 'wrong-key', 'design', 'list']);
  assert.is(wrongKey.code, 1);
  assert.match(wrongKey.stderr, 'Wrong operator key.');
});

test.run();
