// Proves no invitation code confirms an address its holder does not own (issue 34 items 1 and 4): each address gets a code of its own, a code shown to the sender (code_shared) proves no address, an invitation is accepted only through an app of its sender's site, and no start call tells who is registered.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestServer } from './support/http.ts';
import { assertRefused } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { createAuthnApp, must, revealedCode, signUp, type AuthnApp } from './authn-support.ts';
import { issue, person, type LedgerWorld } from './ledger-api-support.ts';

let server: TestServer;
let world: LedgerWorld;
let app: AuthnApp;
test.before(async () => {
  ({ server, world } = await startLedgerServer());
  app = await createAuthnApp(server);
});
test.after(async () => server.close());

const base = { first_name: 'Vic', last_name: 'Tim', url_template: 'https://app.example/join?i=INVITE_ID&c=CODE', sender_name: 'Mallory' };

/** Whether a wallet holds the UID as confirmed. */
async function confirmedHolder(uid: string): Promise<string | null> {
  const rows = await server.engine.sql<{ profile_id: string }[]>`select profile_id from profile_uids where uid = ${uid}`;
  return rows[0]?.profile_id ?? null;
}

/** Starts an accept attempt for `login` and offers `code` as its first factor. */
async function acceptWith(inviteId: string, login: string, code: string, clientId = app.clientId) {
  const start = await server.client.post('/aa/accept', { client_id: clientId, device_uuid: `dev-${login.replace(/[^0-9a-zA-Z]/g, "-")}`.slice(0, 36), login, invite_id: inviteId });
  if (start.status !== 200) return { start, proven: start };
  const proven = await server.client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code }, { auth: { attemptSecret: start.body.secret } });
  return { start, proven };
}

test("the code sent to the inviter's own phone does not prove the victim's email", async () => {
  const sent = must(await server.client.post('/ai/invite', { ...base, email: 'victim.one@gmail.com', phone: '+15555550181' }, { auth: app.basic }));
  const phoneCode = revealedCode(sent, 'phone:+15555550181');
  const emailCode = revealedCode(sent, 'email:victim.one@gmail.com');
  assert.is.not(phoneCode, emailCode, 'each address has a code of its own');
  const { start, proven } = await acceptWith(sent.body.id, 'victim.one@gmail.com', phoneCode);
  assert.is(start.status, 200, start.text);
  assertRefused(proven, 400, 'invalid');
  assert.equal(Object.keys(proven.body.invalid ?? {}), ['code']);
  assert.is(await confirmedHolder('email:victim.one@gmail.com'), null);
  // The email's own code, from the email's own message, still proves it.
  const own = await acceptWith(sent.body.id, 'victim.one@gmail.com', emailCode);
  assert.is(own.proven.status, 200, own.proven.text);
  assert.ok(own.proven.body.authenticated['email:victim.one@gmail.com']);
});

test("a code_shared send's code, which the sender sees, proves no address: the accept attempt sends a fresh code to the login", async () => {
  const mallory = await person(server, world);
  await issue(server, mallory.id, '5.00');
  const sent = await server.client.post('/wallet/send', { recipient_uid: 'email:victim.two@gmail.com', amounts: '0-USD-1.00', invitation_type: 'code_shared' }, mallory.auth);
  assert.is(sent.status, 200, sent.text);
  const shared: string = sent.body.transfer.invitation_code;
  const inviteId: string = sent.body.transfer.invite_id ?? (await server.engine.sql<{ id: string }[]>`select id from invitations order by created_at desc limit 1`)[0].id;
  const { start, proven } = await acceptWith(inviteId, 'victim.two@gmail.com', shared);
  assert.is(start.status, 200, start.text);
  assert.ok(revealedCode(start, 'email:victim.two@gmail.com'), 'a fresh code went to the address itself');
  assertRefused(proven, 400, 'invalid');
  assert.is(await confirmedHolder('email:victim.two@gmail.com'), null);
});

test("an invitation is accepted only through an app of its sender's site", async () => {
  const sent = must(await server.client.post('/ai/invite', { ...base, email: 'victim.three@gmail.com' }, { auth: app.basic }));
  const elsewhere = await server.engine.services.apps.create({ name: 'Other site', permissions: [], redirectUris: [], site: 'elsewhere', isPublic: true, implicitGrant: false });
  const { start } = await acceptWith(sent.body.id, 'victim.three@gmail.com', revealedCode(sent), elsewhere.clientId);
  assertRefused(start, 410, 'unavailable');
  assert.is(await confirmedHolder('email:victim.three@gmail.com'), null);
});

test('no start call tells who is registered: reset, accept and signin-closed answer a registered login as a new one', async () => {
  const registered = await signUp(server.client, app);
  const sent = must(await server.client.post('/ai/invite', { ...base, email: registered.email }, { auth: app.basic }));
  const stranger = must(await server.client.post('/ai/invite', { ...base, email: 'nobody.here@gmail.com' }, { auth: app.basic }));
  const shape = (body: Record<string, unknown>) => ({ profile_id: body.profile_id, profile_title: body.profile_title, signup: body.signup, completed_mfa: body.completed_mfa, code_length: body.code_length });
  const starts: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ['/aa/reset', { login: registered.email }, { login: 'nobody.here@gmail.com' }],
    ['/aa/accept', { login: registered.email, invite_id: sent.body.id }, { login: 'nobody.here@gmail.com', invite_id: stranger.body.id }],
  ];
  for (const [path, known, unknown] of starts) {
    const answers = await Promise.all([known, unknown].map((fields) => server.client.post(path, { client_id: app.clientId, device_uuid: 'probe', ...fields })));
    for (const answer of answers) assert.is(answer.status, 200, `${path}: ${answer.text}`);
    assert.is(answers[0].body.profile_id, null, `${path} hides the registered wallet`);
    assert.equal(shape(answers[0].body), shape(answers[1].body), path);
  }
  const closed = await Promise.all([registered.email, 'nobody.here@gmail.com'].map((login) => server.client.post('/aa/signin-closed', { login, device_uuid: 'probe' }, { auth: app.basic })));
  for (const answer of closed) assert.is(answer.status, 200, answer.text);
  assert.is(closed[0].body.profile_id, null);
  assert.equal(shape(closed[0].body), shape(closed[1].body), '/aa/signin-closed');
  // Once the code is proven, the wallet shows.
  const reset = must(await server.client.post('/aa/reset', { client_id: app.clientId, device_uuid: 'probe-2', login: registered.email }));
  const proven = must(await server.client.post(`${reset.body.attempt_path}auth-uid`, { factor_id: reset.body.factor_id, code: revealedCode(reset) }, { auth: { attemptSecret: reset.body.secret } }));
  assert.is(proven.body.profile_id, registered.profileId);
});

test.run();
