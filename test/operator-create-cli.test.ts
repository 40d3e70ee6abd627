// Proves the operator can do the whole job from the CLI, with no app credentials: create a person
// (with a confirmed email), a business they manage, a design, a plan and an agreement, each a thin
// admin API call; refusals (a taken email, a missing feature, an unknown design) exit 1 with the
// server's reason and change nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runOperatorCli } from './support/cli.ts';
import { startTestServer, type TestServer } from './support/http.ts';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
});
test.after(async () => server.close());

const cli = (...args: string[]) => runOperatorCli(server.baseUrl, args);
const json = async (...args: string[]) => {
  const run = await cli('--json', ...args);
  assert.is(run.code, 0, run.out);
  return JSON.parse(run.stdout);
};

const address = ['--line1', '1 Main St', '--city', 'Springfield', '--country', 'US', '--state', 'IL', '--zip', '62701'];

test('profile create, business create, design create, plan create and agreement add: the whole set-up of a brand', async () => {
  const person = await cli('profile', 'create', '--first-name', 'Pat', '--last-name', 'Owner', '--uid', 'pat.owner@example.com');
  assert.is(person.code, 0, person.out);
  assert.match(person.out, /kind\s+individual/);
  assert.match(person.out, /title\s+Pat Owner/);
  const owner = await json('profile', 'create', '--first-name', 'Sam', '--last-name', 'Member');
  assert.match(owner.id, /^\d{10}$/);

  const cafe = await json('business', 'create', '--name', 'Bean Cafe', '--manager', 'pat.owner@example.com', ...address);
  const shop = await json('business', 'create', '--name', 'Corner Shop', '--manager', owner.id, ...address);
  const shown = await json('profile', 'show', cafe.id);
  assert.is(shown.profile.is_individual, false);
  assert.is(shown.managers.length, 1);

  assert.is((await cli('profile', 'feature', 'add', cafe.id, 'design_gl')).code, 0);
  const design = await cli('design', 'create', '--issuer', cafe.id, '--title', 'Bean Bucks', '--currency', 'USD');
  assert.is(design.code, 0, design.out);
  assert.match(design.out, /gl_design\s+USD\s+unpublished\s+issuer \d{10}\s+Bean Bucks/);
  const designId = (await json('design', 'list')).designs[0].id;

  const plan = await json('plan', 'create', designId, '--title', 'Standard');
  assert.match(plan.plan_id, /^\d+$/);
  const added = await cli('agreement', 'add', designId, '--member', shop.id, '--roles', 'redeemer,settler', '--terms', 'Net 30');
  assert.is(added.code, 0, added.out);
  assert.match(added.out, /inactive\s+member \d{10} \(Corner Shop\)\s+redeemer,settler/);

  const full = await json('design', 'show', designId);
  assert.is(full.issuer_id, cafe.id);
  assert.equal(full.distribution_plans.map((row: any) => row.title), ['Standard']);
  assert.equal(full.agreements.map((row: any) => [row.member_id, row.redeemer, row.settler, row.distributor]), [[shop.id, true, true, false]]);
});

test('refusals exit 1 with the reason and create nothing', async () => {
  await json('profile', 'create', '--first-name', 'Lee', '--last-name', 'First', '--uid', 'lee@example.com');
  const before = (await json('profile', 'list')).profiles.length;
  const taken = await cli('profile', 'create', '--first-name', 'Lee', '--last-name', 'Second', '--uid', 'LEE@example.com');
  assert.is(taken.code, 1);
  assert.match(taken.stderr, 'uid: email:lee@example.com belongs to another profile');
  const badUid = await cli('--json', 'profile', 'create', '--first-name', 'Lee', '--last-name', 'Third', '--uid', 'not a login');
  assert.is(badUid.code, 1);
  assert.is(JSON.parse(badUid.stderr).error, 'invalid');
  assert.is((await json('profile', 'list')).profiles.length, before);

  const noManager = await cli('business', 'create', '--name', 'Orphan', '--manager', 'nobody@example.com', ...address);
  assert.is(noManager.code, 1);
  assert.match(noManager.stderr, '--manager nobody@example.com: no profile has this UID');

  const person = await json('profile', 'create', '--first-name', 'Kim', '--last-name', 'Plain');
  const store = await json('business', 'create', '--name', 'No Feature Store', '--manager', person.id, ...address);
  const designsBefore = (await json('design', 'list')).designs.length;
  const noFeature = await cli('--json', 'design', 'create', '--issuer', store.id, '--title', 'Nope', '--currency', 'USD');
  assert.is(noFeature.code, 1);
  assert.is(JSON.parse(noFeature.stderr).error, 'feature_required');
  assert.is(JSON.parse(noFeature.stderr).message, `A gl_design needs the design_gl feature on profile ${store.id}; the operator adds it with \`cashloop profile feature add ${store.id} design_gl\`.`);
  const noIssuer = await cli('design', 'create', '--issuer', '9999999999', '--title', 'Nope', '--currency', 'USD', '--type', 'overlay_design');
  assert.is(noIssuer.code, 1);
  assert.match(noIssuer.stderr, '--issuer 9999999999: no profile has this UID');
  assert.is((await json('design', 'list')).designs.length, designsBefore);

  const noDesign = await cli('--json', 'plan', 'create', '9999999999', '--title', 'Ghost');
  assert.is(noDesign.code, 1);
  assert.is(JSON.parse(noDesign.stderr).error, 'not_found');
  const noRoles = await cli('agreement', 'add', '9999999999', '--member', person.id, '--roles', 'owner', '--terms', 'x');
  assert.is(noRoles.code, 1);
  assert.match(noRoles.stderr, '--roles takes redeemer, distributor and settler');
});

test.run();
