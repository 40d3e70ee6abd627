// Proves POST /wallet/add-uid over HTTP: a phone is parsed in every given country and each distinct
// number gets its own code, of which any one confirms that number only; an address another wallet
// holds gets the same answer, an authn-add-conflict message to its owner and no code that works.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { authnExpireAfterFailures } from '../engine/limits.ts';
import { argonHashesInsideCommands, argonVerificationsInsideCommands } from '../engine/passwords.ts';
import { parsePhoneEverywhere } from '../engine/uids.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { createAuthnApp, must, revealedCode, signUp, type AuthnApp, type SignedUp } from './authn-support.ts';

let server: TestServer;
let app: AuthnApp;
let person: SignedUp;
let bearer: { bearer: string };
let bypass: string;

test.before(async () => {
  server = await startTestServer();
  app = await createAuthnApp(server);
  person = await signUp(server.client, app, { email: 'adder@example.com', phone: '+15555550201', deviceUuid: 'adder-phone' });
  bearer = { bearer: person.token };
  bypass = must(await server.client.get('/aa/recaptcha_invisible_sitekey')).body.captcha_bypass;
});
test.after(async () => server.close());

interface QueuedMessage {
  to: string;
  template: string;
}

/** Messages queued in the outbox (delivered or not; delivery erases only the body). */
async function queued(to: string): Promise<QueuedMessage[]> {
  const rows = await server.engine.sql<{ payload: QueuedMessage }[]>`
    select payload from outbox where kind in ('message.email', 'message.sms') and payload ->> 'to' = ${to} order by id`;
  return rows.map((row) => ({ to: row.payload.to, template: row.payload.template }));
}

async function confirmedUids(profileId: string): Promise<string[]> {
  return (await server.engine.services.profiles.confirmedUids(server.engine.sql, profileId)).sort();
}

function addUid(body: Record<string, unknown>) {
  return server.client.post('/wallet/add-uid', body, { auth: bearer });
}

function confirm(added: { body: { attempt_id: string; secret: string } }, code: string, extra: Record<string, unknown> = {}) {
  return server.client.post('/wallet/add-uid-confirm', { attempt_id: added.body.attempt_id, secret: added.body.secret, code, ...extra }, { auth: bearer });
}

test('parsePhoneEverywhere: one number per country whose rules allow it, without repeats', () => {
  assert.equal(parsePhoneEverywhere('555 555 0211', ['US', 'GB']).map((parsed) => [parsed.uid, parsed.country]), [['phone:+15555550211', 'US'], ['phone:+445555550211', 'GB']]);
  assert.equal(parsePhoneEverywhere('202 555 0123', ['US', 'CA']).map((parsed) => parsed.uid), ['phone:+12025550123']);
  assert.equal(parsePhoneEverywhere('+44 55 5555 0211', ['US', 'DE']).map((parsed) => parsed.uid), ['phone:+445555550211']);
  assert.equal(parsePhoneEverywhere('12', ['US', 'GB']), []);
});

test('a phone possible in two countries gets two codes; the second code adds only the second number', async () => {
  const added = must(await addUid({ login: '555 555 0211', uid_type: 'phone', countries: ['US', 'GB'] }));
  assert.is(added.body.code_length, 6);
  assert.equal(added.body.unauthenticated, {
    'phone:+15555550211': { original: '(555) 555-0211', country: 'US' },
    'phone:+445555550211': { original: '055 5555 0211', country: 'GB' },
  });
  assert.is(added.body.revealed_codes.length, 2);
  const usCode = revealedCode(added, 'phone:+15555550211');
  const gbCode = revealedCode(added, 'phone:+445555550211');
  assert.is.not(usCode, gbCode);
  assert.equal((await queued('+15555550211')).map((message) => message.template), ['authn-add-ok']);
  assert.equal((await queued('+445555550211')).map((message) => message.template), ['authn-add-ok']);

  const wrong = await confirm(added, '000000');
  assertRefused(wrong, 400, 'invalid');
  assert.ok(wrong.body.invalid.code);
  const confirmed = must(await confirm(added, gbCode));
  assert.is(confirmed.body.uid, 'phone:+445555550211');
  assert.equal(await confirmedUids(person.profileId), ['email:adder@example.com', 'phone:+15555550201', 'phone:+445555550211']);
  assert.is((await confirm(added, usCode)).status, 410, 'the other number is no longer pending');
  assert.equal(await confirmedUids(person.profileId), ['email:adder@example.com', 'phone:+15555550201', 'phone:+445555550211']);
});

test('numbers already on the wallet get no code; when all are, add-uid still answers 400', async () => {
  const added = must(await addUid({ login: '555 555 0211', uid_type: 'phone', countries: ['GB', 'US'] }));
  assert.equal(Object.keys(added.body.unauthenticated), ['phone:+15555550211']);
  assert.is(added.body.revealed_codes.length, 1);
  const own = await addUid({ login: '555 555 0201', uid_type: 'phone', countries: ['US', 'CA'] });
  assertRefused(own, 400, 'invalid');
  assert.ok(own.body.invalid.login);
});

test('replace_uid works with a code of a multi-country add', async () => {
  const added = must(await addUid({ login: '555 555 0212', countries: ['US', 'GB'] }));
  must(await confirm(added, revealedCode(added, 'phone:+15555550212'), { replace_uid: 'phone:+445555550211' }));
  assert.equal(await confirmedUids(person.profileId), ['email:adder@example.com', 'phone:+15555550201', 'phone:+15555550212']);
});

test('an email of another wallet: the same answer, a conflict message to its owner, and no code works', async () => {
  const owner = await signUp(server.client, app, { email: 'owner@example.com', phone: '+15555550221' });
  const ownerBefore = await confirmedUids(owner.profileId);
  const callerBefore = await confirmedUids(person.profileId);
  const [verificationsBefore, hashesBefore] = [argonVerificationsInsideCommands(), argonHashesInsideCommands()];
  const free = must(await addUid({ login: 'free@example.com' }));
  const taken = must(await addUid({ login: 'Owner@example.com' }));
  assert.equal(Object.keys(taken.body).sort(), Object.keys(free.body).filter((key) => key !== 'revealed_codes').sort());
  assert.match(taken.body.attempt_id, /^\d{10}$/);
  assert.is(taken.body.code_length, free.body.code_length);
  assert.equal(taken.body.unauthenticated, { 'email:owner@example.com': { original: 'Owner@example.com', country: null } });
  assert.is(taken.body.revealed_codes, undefined, 'there is no code to reveal');
  const templates = (await queued('owner@example.com')).map((message) => message.template);
  assert.is(templates.at(-1), 'authn-add-conflict');
  assert.not.ok(templates.includes('authn-add-ok'));

  // Wrong codes count as usual: captcha, then 410; no code ever matches.
  for (let failure = 1; failure < authnExpireAfterFailures; failure++) {
    const answer = await confirm(taken, String(failure).repeat(9), { 'g-recaptcha-response': bypass });
    assert.is(answer.status, 400);
    assert.is(answer.body.error, 'invalid');
    assert.ok(answer.body.invalid.code);
  }
  assertRefused(await confirm(taken, revealedCode(free), { 'g-recaptcha-response': bypass }), 410, 'unavailable');
  // The codes, the conflict's decoy hash and every code check ran before the commands.
  assert.equal([argonVerificationsInsideCommands(), argonHashesInsideCommands()], [verificationsBefore, hashesBefore]);
  assert.equal(await confirmedUids(owner.profileId), ownerBefore);
  assert.equal(await confirmedUids(person.profileId), callerBefore);
});

test('phone numbers of other wallets: conflict messages to them, a code only to the free one', async () => {
  const ownerUs = await signUp(server.client, app, { email: 'owner-us@example.com', phone: '+15555550231' });
  const mixed = must(await addUid({ login: '555 555 0231', countries: ['US', 'GB'] }));
  assert.equal(Object.keys(mixed.body.unauthenticated), ['phone:+15555550231', 'phone:+445555550231']);
  assert.equal(mixed.body.revealed_codes.map((line: string) => line.split(' => ')[1]), ['phone:+445555550231']);
  assert.is((await queued('+15555550231')).at(-1)?.template, 'authn-add-conflict');
  assert.is(must(await confirm(mixed, revealedCode(mixed, 'phone:+445555550231'))).body.uid, 'phone:+445555550231');

  // Every number taken: still a 200 of the same shape, a conflict message to each, no code.
  const ownerGb = await signUp(server.client, app, { email: 'owner-gb@example.com', phone: '+445555550232' });
  const ownerUs2 = await signUp(server.client, app, { email: 'owner-us2@example.com', phone: '+15555550232' });
  const allTaken = must(await addUid({ login: '555 555 0232', countries: ['GB', 'US'] }));
  assert.equal(Object.keys(allTaken.body).sort(), ['attempt_id', 'code_length', 'secret', 'unauthenticated']);
  assert.equal(Object.keys(allTaken.body.unauthenticated), ['phone:+445555550232', 'phone:+15555550232']);
  assert.is(allTaken.body.code_length, 6);
  for (const number of ['+445555550232', '+15555550232']) {
    const templates = (await queued(number)).map((message) => message.template);
    assert.is(templates.at(-1), 'authn-add-conflict', number);
    assert.not.ok(templates.includes('authn-add-ok'), number);
  }
  assertRefused(await confirm(allTaken, '123456'), 400, 'invalid');
  assert.equal(await confirmedUids(ownerUs.profileId), ['email:owner-us@example.com', 'phone:+15555550231']);
  assert.equal(await confirmedUids(ownerGb.profileId), ['email:owner-gb@example.com', 'phone:+445555550232']);
  assert.equal(await confirmedUids(ownerUs2.profileId), ['email:owner-us2@example.com', 'phone:+15555550232']);
});

test.run();
