// Proves guessing protection: wrong codes lead to captcha, then to 410, after which even the right
// code no longer works; wrong passwords at sign-in require captcha; attempts expire by timer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { authnAttemptLifetimeMs, authnCaptchaAfterFailures, authnExpireAfterFailures, authnLoginCaptchaAfterFailures } from '../engine/limits.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { currentCommand } from '../engine/actors/command.ts';
import { createAuthnApp, must, revealedCode, signUp, type AuthnApp } from './authn-support.ts';

let server: TestServer;
let app: AuthnApp;
let bypass: string;
test.before(async () => {
  server = await startTestServer();
  app = await createAuthnApp(server);
  const sitekey = must(await server.client.get('/aa/recaptcha_invisible_sitekey'));
  assert.type(sitekey.body.sitekey, 'string');
  bypass = sitekey.body.captcha_bypass;
  assert.type(bypass, 'string');
});
test.after(async () => server.close());

function wrongCode(code: string): string {
  return code.replace(/^./, (digit) => String((Number(digit) + 1) % 10));
}

test('wrong codes require captcha, then expire the attempt; the right code is then refused', async () => {
  const { client } = server;
  const start = must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'guess-1', login: 'guess@example.com' }));
  const auth = { attemptSecret: start.body.secret };
  const path = `${start.body.attempt_path}auth-uid`;
  const right = revealedCode(start);
  const body = { factor_id: start.body.factor_id, code: wrongCode(right) };
  for (let failure = 1; failure <= authnCaptchaAfterFailures; failure++) {
    const answer = await client.post(path, body, { auth });
    assert.is(answer.status, 400);
    assert.is(answer.body.error, 'invalid');
    assert.ok(answer.body.invalid.code);
  }
  const needsCaptcha = await client.post(path, { ...body, code: right }, { auth });
  assert.is(needsCaptcha.status, 400);
  assert.is(needsCaptcha.body.error, 'captcha_required');
  const badCaptcha = await client.post(path, { ...body, code: right, 'g-recaptcha-response': 'made-up' }, { auth });
  assert.is(badCaptcha.body.error, 'captcha_required');
  for (let failure = authnCaptchaAfterFailures + 1; failure < authnExpireAfterFailures; failure++) {
    const answer = await client.post(path, { ...body, 'g-recaptcha-response': bypass }, { auth });
    assertRefused(answer, 400, 'invalid');
  }
  const last = await client.post(path, { ...body, 'g-recaptcha-response': bypass }, { auth });
  assertRefused(last, 410, 'unavailable');
  const rightNow = await client.post(path, { factor_id: start.body.factor_id, code: right, 'g-recaptcha-response': bypass }, { auth });
  assertRefused(rightNow, 410, 'unavailable');
  const other = await client.post(`${start.body.attempt_path}add-factor`, { login: '+15555550199' }, { auth });
  assertRefused(other, 410, 'unavailable');
});

test('captcha_required shows in the AuthnResult once guessing is detected', async () => {
  const { client } = server;
  const start = must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'guess-2', login: 'guess2@example.com' }));
  assert.is(start.body.captcha_required, false);
  const auth = { attemptSecret: start.body.secret };
  const right = revealedCode(start);
  for (let failure = 1; failure <= authnCaptchaAfterFailures; failure++) {
    await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: wrongCode(right) }, { auth });
  }
  const solved = must(await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: right, 'g-recaptcha-response': bypass }, { auth }));
  assert.is(solved.body.captcha_required, true);
});

test('after repeated wrong passwords for a login, sign-in without captcha tells no verdict; a solved captcha tells it again; a completed sign-in clears the guard', async () => {
  const { client } = server;
  const person = await signUp(client, app, { email: 'guarded@example.com', phone: '+15555550122' });
  const attempt = (password: string, captcha?: string) =>
    client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'guess-3', login: person.email, password, ...(captcha ? { 'g-recaptcha-response': captcha } : {}) });
  for (let failure = 1; failure <= authnLoginCaptchaAfterFailures; failure++) assert.is((await attempt('wrong password')).body.error, 'invalid');
  // Right or wrong, the answer is a code step of the same shape (only the right password's code exists).
  const right = must(await attempt(person.password));
  const wrong = must(await attempt('still wrong'));
  // Sandbox reveals the real code; production reveals none, so the answers are alike there.
  const shape = (body: any) => ({ keys: Object.keys(body).filter((key) => key !== 'revealed_codes').sort(), unauthenticated: body.unauthenticated, code_length: body.code_length, completed_mfa: body.completed_mfa, authenticated: body.authenticated });
  assert.equal(shape(wrong.body), shape(right.body));
  assert.is((await attempt('wrong with captcha', bypass)).body.error, 'invalid', 'a solved captcha tells the verdict');
  const code = revealedCode(right);
  const done = must(await client.post(`${right.body.attempt_path}auth-uid`, { factor_id: right.body.factor_id, code }, { auth: { attemptSecret: right.body.secret } }));
  assert.ok(done.body.token?.access_token);
  // Success clears the guard: a wrong password is told at once again.
  assert.is((await attempt('wrong again')).body.error, 'invalid');
});

test('an attempt expires after its lifetime through the durable timer', async () => {
  const { client, engine, clock } = server;
  const start = must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'guess-4', login: 'slow@example.com' }));
  clock.advance(authnAttemptLifetimeMs + 1000);
  assert.ok((await engine.sweeper.runOnce()) >= 1);
  const rows = await engine.sql<{ state: string }[]>`select state from actors where kind = 'authn_attempt' and id = ${start.body.attempt_path.split('/')[2]}`;
  assert.is(rows[0].state, 'expired');
  const late = await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth: { attemptSecret: start.body.secret } });
  assertRefused(late, 410, 'unavailable');
});

test('the captcha is verified before the command, never while it holds locks and a connection', async () => {
  const { client, engine } = server;
  const seen: (string | undefined)[] = [];
  engine.services.authn.setCaptchaVerifier(async () => {
    seen.push(currentCommand());
    return true;
  });
  const signin = await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'guess-captcha', login: 'nobody-here@example.com', password: 'not it at all', 'g-recaptcha-response': 'provider-token-1' });
  assert.is(signin.body.error, 'invalid');
  const start = must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'guess-captcha', login: 'captcha-check@example.com' }));
  const right = revealedCode(start);
  const answer = await client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: right, 'g-recaptcha-response': 'provider-token-2' }, { auth: { attemptSecret: start.body.secret } });
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.is(seen.length, 2, 'both captchas were verified');
  assert.equal(seen, [undefined, undefined], 'no captcha check ran inside a command');
  engine.services.authn.setCaptchaVerifier(async () => false);
});

test.run();
