// Proves that strangers cannot lock an owner out with the message budgets (issue 25 finding 8): only start calls that send a message spend a budget, so wrong-password sign-ins and malformed start calls spend none, and after any number of strangers' calls the owner's right password plus right code still signs in. Limits at their production values (scale 1).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rateMessagesPerLoginMax } from '../engine/limits.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { createAuthnApp, must, revealedCode, signUp, type AuthnApp } from './authn-support.ts';

let server: TestServer;
let app: AuthnApp;
test.before(async () => {
  server = await startTestServer({ env: { CASHLOOP_RATE_LIMIT_SCALE: '1' } });
  app = await createAuthnApp(server);
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

test.run();
