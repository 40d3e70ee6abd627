// Proves the guessing and lock-out holes of issue 8 are closed: wrong second-factor codes count per login across attempts (hole 3), wrong passwords by a stranger never turn the owner's right password and right code into a lock-out (hole 5), and production refuses to start without a captcha verifier or a message transport (holes 5 and 6).
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig, productionProblems } from '../engine/config.ts';
import { authnCodeCaptchaAfterFailures, authnLoginCaptchaAfterFailures } from '../engine/limits.ts';
import { argonHashesInsideCommands, argonVerificationsInsideCommands } from '../engine/passwords.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';
import { createAuthnApp, must, revealedCode, signUp, type AuthnApp, type SignedUp } from './authn-support.ts';

let server: TestServer;
let app: AuthnApp;
let bypass: string;
test.before(async () => {
  server = await startTestServer();
  app = await createAuthnApp(server);
  bypass = must(await server.client.get('/aa/recaptcha_invisible_sitekey')).body.captcha_bypass;
});
test.after(async () => server.close());

const signIn = (person: SignedUp, password: string, device: string, captcha?: string) =>
  server.client.post('/aa/signin', { client_id: app.clientId, device_uuid: device, login: person.email, password, ...(captcha ? { 'g-recaptcha-response': captcha } : {}) });

function wrongCode(code: string): string {
  return code.replace(/^./, (digit) => String((Number(digit) + 1) % 10));
}

test('hole 3: eight sign-in attempts with three wrong codes each get no more than the guard allows without a captcha', async () => {
  const person = await signUp(server.client, app, { email: 'codes@example.com', phone: '+15555550141' });
  let toldIncorrect = 0;
  let askedCaptcha = 0;
  let last: { path: string; secret: string; factorId: string; code: string } | null = null;
  for (let attempt = 1; attempt <= 8; attempt++) {
    // The attacker knows the password (phished) and guesses the code sent to the owner's phone.
    const start = must(await signIn(person, person.password, `thief-${attempt}`));
    last = { path: start.body.attempt_path, secret: start.body.secret, factorId: start.body.factor_id, code: revealedCode(start) };
    for (let guess = 1; guess <= 3; guess++) {
      const answer = await server.client.post(`${last.path}auth-uid`, { factor_id: last.factorId, code: wrongCode(last.code) }, { auth: { attemptSecret: last.secret } });
      if (answer.body?.error === 'captcha_required') askedCaptcha++;
      else if (answer.status === 400 && answer.body?.invalid?.code) toldIncorrect++;
    }
  }
  assert.is(toldIncorrect, authnCodeCaptchaAfterFailures, 'wrong codes told without a captcha');
  assert.ok(askedCaptcha >= 8 * 3 - authnCodeCaptchaAfterFailures - 8, `${askedCaptcha} captcha answers`);
  // Not a lock-out: the right code with a solved captcha still signs in.
  const start = must(await signIn(person, person.password, 'owner-phone'));
  const noCaptcha = await server.client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth: { attemptSecret: start.body.secret } });
  assert.is(noCaptcha.body.error, 'captcha_required');
  const done = must(await server.client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start), 'g-recaptcha-response': bypass }, { auth: { attemptSecret: start.body.secret } }));
  assert.ok(done.body.token?.access_token);
});

test('hole 5: after a stranger\'s wrong passwords, the owner\'s right password and right code sign in without a captcha', async () => {
  const person = await signUp(server.client, app, { email: 'owner@example.com', phone: '+15555550142' });
  for (let failure = 1; failure <= authnLoginCaptchaAfterFailures + 2; failure++) await signIn(person, `stranger ${failure}`, 'stranger');
  const start = await signIn(person, person.password, 'owner-laptop');
  assert.is(start.status, 200, start.text);
  assert.is(start.body.completed_mfa, false, 'a code is still asked for');
  const done = must(await server.client.post(`${start.body.attempt_path}auth-uid`, { factor_id: start.body.factor_id, code: revealedCode(start) }, { auth: { attemptSecret: start.body.secret } }));
  assert.is(done.body.completed_mfa, true);
  assert.ok(done.body.token?.access_token);
});

test('hole 5: under the guard a wrong password is not told apart, and its code step never succeeds', async () => {
  const person = await signUp(server.client, app, { email: 'quiet@example.com', phone: '+15555550143' });
  for (let failure = 1; failure <= authnLoginCaptchaAfterFailures; failure++) await signIn(person, `stranger ${failure}`, 'stranger');
  const [verificationsBefore, hashesBefore] = [argonVerificationsInsideCommands(), argonHashesInsideCommands()];
  const wrong = must(await signIn(person, 'not the password', 'stranger'));
  const right = must(await signIn(person, person.password, 'owner'));
  assert.is(wrong.body.completed_mfa, false);
  // Alike, and showing nothing the caller did not type: not whose wallet it is, not the owner's phone.
  for (const answer of [wrong, right]) {
    assert.is(answer.body.profile_id, null);
    assert.is(answer.body.profile_title, null);
    assert.equal(Object.keys(answer.body.unauthenticated), [`email:${person.email}`]);
  }
  assert.type(wrong.body.factor_id, 'string');
  assert.is(wrong.body.revealed_codes, undefined, 'no code exists for a wrong password');
  const guess = await server.client.post(`${wrong.body.attempt_path}auth-uid`, { factor_id: wrong.body.factor_id, code: '123456' }, { auth: { attemptSecret: wrong.body.secret } });
  assertRefused(guess, 400, 'invalid');
  // The decoy factor's hash and the right password's code were made before the command.
  assert.equal([argonVerificationsInsideCommands(), argonHashesInsideCommands()], [verificationsBefore, hashesBefore]);
});

test('holes 5 and 6: production lists a missing captcha verifier and missing transports; sandbox and a complete production config list none', () => {
  const base = { CASHLOOP_MODE: 'production', DATABASE_URL: 'postgres://db/cashloop', REDIS_URL: 'redis://cache:6379' };
  const bare = productionProblems(loadConfig(base));
  assert.is(bare.length, 3, bare.join('\n'));
  assert.ok(bare.every((line) => !line.includes('\n')));
  assert.match(bare.join('\n'), /RECAPTCHA_SECRET/);
  assert.match(bare.join('\n'), /SMTP_URL/);
  assert.match(bare.join('\n'), /SMS_WEBHOOK_URL/);
  const complete = loadConfig({ ...base, RECAPTCHA_SITE_KEY: 'site', RECAPTCHA_SECRET: 'secret', SMTP_URL: 'smtp://mail:25', SMS_WEBHOOK_URL: 'https://sms.example/send' });
  assert.equal(productionProblems(complete), []);
  assert.equal(productionProblems(loadConfig({})), []);
});

test('holes 5 and 6: the server refuses to start in production without them', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    env: { PATH: process.env.PATH, CASHLOOP_MODE: 'production', DATABASE_URL: 'postgres://127.0.0.1:1/none', REDIS_URL: 'redis://127.0.0.1:1', PORT: '0' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.is(run.status, 1, run.stderr);
  assert.match(run.stderr, /RECAPTCHA_SECRET/);
  assert.match(run.stderr, /SMS_WEBHOOK_URL/);
});

test.run();
