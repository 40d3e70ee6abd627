// Proves the guessing and budget limits of issue 25 at their production values (scale 1): only start calls that send a message spend a message budget, so strangers' wrong-password sign-ins and malformed start calls never refuse the owner's right password plus right code (finding 8); POST /wallet/accept-code counts wrong codes per token and per wallet and locks after acceptCodeFailuresMax, and is throttled per token and client address, with 429 and Retry-After (finding 5).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { acceptCodeFailuresMax, rateAcceptCodePerTokenMax, rateMessagesPerLoginMax } from '../engine/limits.ts';
import { userToken } from './foundation-helpers.ts';
import { issue, ledgerWorld, person, type LedgerWorld } from './ledger-api-support.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { captureEmails, type SentEmails } from './support/invitation-codes.ts';
import { createAuthnApp, must, revealedCode, signUp, type AuthnApp } from './authn-support.ts';

let server: TestServer;
let app: AuthnApp;
let world: LedgerWorld;
let emails: SentEmails;
test.before(async () => {
  server = await startTestServer({ env: { CASHLOOP_RATE_LIMIT_SCALE: '1' } });
  emails = captureEmails(server);
  app = await createAuthnApp(server);
  world = await ledgerWorld(server);
});
test.after(async () => server.close());

/** Calls from a stranger's own address (a loopback proxy's X-Forwarded-For), so the owner's address budget is not theirs. */
const fromStranger = (index: number) => ({ headers: { 'x-forwarded-for': `203.0.113.${(index % 200) + 1}` } });

async function messagesTo(address: string): Promise<number> {
  const rows = await server.engine.sql<{ count: number }[]>`select count(*)::int as count from outbox where payload->>'to' = ${address}`;
  return rows[0].count;
}

test("strangers' wrong passwords and malformed start calls never refuse the owner's right password and right code", async () => {
  const owner = await signUp(server.client, app);
  const sentBefore = await messagesTo(owner.email);
  for (let index = 0; index < rateMessagesPerLoginMax * 2; index++) {
    const wrong = await server.client.post('/aa/signin', { client_id: app.clientId, device_uuid: `stranger-${index}`, login: owner.email, password: `wrong guess ${index}` }, fromStranger(index));
    assert.ok(wrong.status === 400 || wrong.status === 200, `a wrong password answers 400 (or a withheld verdict under the guard): ${wrong.text}`);
    const noPassword = await server.client.post('/aa/signin', { client_id: app.clientId, device_uuid: `stranger-${index}`, login: owner.email }, fromStranger(index));
    assertRefused(noPassword, 400, 'invalid');
    const resetWithPassword = await server.client.post('/aa/reset', { client_id: app.clientId, device_uuid: `stranger-${index}`, login: owner.email, password: 'x' }, fromStranger(index));
    assertRefused(resetWithPassword, 400, 'invalid');
  }
  assert.is(await messagesTo(owner.email), sentBefore, 'no stranger made a message reach the owner');
  // Under the login guard the owner's right password goes on to a code sent to the login.
  const start = must(await server.client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'owner-phone', login: owner.email, password: owner.password }));
  const auth = { attemptSecret: start.body.secret };
  const done = must(await server.client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth }));
  assert.is(done.body.completed_mfa, true);
  assert.is(done.body.profile_id, owner.profileId);
});

test('a start that sends a message still spends the login budget: resets past it answer 429 with Retry-After', async () => {
  const login = 'budget@example.com';
  const answers = [];
  for (let index = 0; index <= rateMessagesPerLoginMax; index++) {
    answers.push(await server.client.post('/aa/reset', { client_id: app.clientId, device_uuid: `budget-${index}`, login }, fromStranger(index)));
  }
  assert.is(answers.filter((answer) => answer.status === 200).length, rateMessagesPerLoginMax);
  const last = answers.at(-1)!;
  assertRefused(last, 429, 'rate_limited');
  assert.ok(Number(last.headers.get('retry-after')) >= 1);
  assert.is(await messagesTo(login), rateMessagesPerLoginMax);
});

test('accept-code: wrong codes lock the wallet after the limit, even with the right code, and calls are throttled per token', async () => {
  const alice = await person(server, world);
  const guesser = await person(server, world);
  await issue(server, alice.id, '5.00');
  const invited = await server.client.post('/wallet/send', { recipient_uid: 'email:held.code@example.com', amounts: '0-USD-3.00', invitation_type: 'code_shared' }, { ...alice.auth, form: true });
  assert.is(invited.status, 200, invited.text);
  const code = await emails.codeSentTo('held.code@example.com');
  // Wrong codes from two tokens of one wallet, from many addresses: each a plain 400 until the limit.
  const second = { auth: { bearer: await userToken(server, world.app, guesser.id, { concurrent: true }) } };
  const tokens = [guesser.auth, second];
  for (let index = 0; index < acceptCodeFailuresMax; index++) {
    const wrong = await server.client.post('/wallet/accept-code', { code: `ZZZZ-${String(index).padStart(4, '0')}` }, { ...tokens[index % 2], headers: { 'x-forwarded-for': `198.51.100.${index + 1}` } });
    assertRefused(wrong, 400, 'invalid');
  }
  // The wallet is locked now: a third token of it, with the right code, waits.
  const third = { auth: { bearer: await userToken(server, world.app, guesser.id, { concurrent: true }) } };
  const locked = await server.client.post('/wallet/accept-code', { code }, { ...third, headers: { 'x-forwarded-for': '198.51.100.250' } });
  assertRefused(locked, 429, 'rate_limited');
  assert.ok(Number(locked.headers.get('retry-after')) >= 1);
  // Another wallet with the right code is not held back by the guesser.
  const kim = await person(server, world);
  const accepted = await server.client.post('/wallet/accept-code', { code }, kim.auth);
  assert.is(accepted.status, 200, accepted.text);
  // Calls per token: past the limit even well-formed calls wait.
  const caller = await person(server, world);
  let limited = null;
  for (let index = 0; index <= rateAcceptCodePerTokenMax && !limited; index++) {
    const answer = await server.client.post('/wallet/accept-code', { code: 'AAAA-AAAA' }, { ...caller.auth, headers: { 'x-forwarded-for': `192.0.2.${index + 1}` } });
    if (answer.status === 429) limited = answer;
  }
  assert.ok(limited, 'no 429 within the per-token limit plus one');
});

test.run();
