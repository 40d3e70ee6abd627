// Proves production mode reveals no code: no response carries revealed_codes, captcha_bypass or a
// sandbox code on the authorize page, and no log line holds a code, password, secret or token;
// the codes still reach people (read here from the development sink's files).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import winston from 'winston';
import { authenticatorsFor } from '../api/authenticators.ts';
import { createApp } from '../api/server.ts';
import { ManualClock } from '../engine/clock.ts';
import { loadConfig, type Config } from '../engine/config.ts';
import { createEngine, type Engine } from '../engine/engine.ts';
import { createLogger } from '../engine/logger.ts';
import { createMetrics } from '../engine/metrics.ts';
import { createTestDatabase, environmentConfig, listen, type TestDatabase } from './support/harness.ts';
import { TestClient, testOperatorKey, assertRefused } from './support/http.ts';
import { createAuthnApp, must } from './authn-support.ts';

const logLines: string[] = [];
const secrets: string[] = [];
let engine: Engine;
let database: TestDatabase;
let httpServer: Server;
let client: TestClient;
let dataDir: string;

test.before(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-production-'));
  database = await createTestDatabase();
  const sandboxConfig = loadConfig({ DATABASE_URL: database.url, REDIS_URL: environmentConfig.redisUrls?.join(','), DATA_DIR: dataDir, LOG_LEVEL: 'debug' });
  // Production mode normally demands DATABASE_URL and REDIS_URL; this test-only override lets it run on PGlite too.
  const config: Config = Object.freeze({ ...sandboxConfig, mode: 'production' as const });
  const logger = createLogger('debug');
  logger.clear();
  logger.add(new winston.transports.Stream({ stream: new Writable({ write(chunk, _encoding, done) { logLines.push(String(chunk)); done(); } }) }));
  engine = await createEngine({ config, clock: new ManualClock('2026-03-01T12:00:00Z'), logger, metrics: createMetrics(), database: database.database, lockKeyPrefix: `cashloop-test:prod-${Date.now()}:` });
  httpServer = createServer(createApp(engine, authenticatorsFor(engine, testOperatorKey)));
  client = new TestClient(await listen(httpServer));
});
test.after(async () => {
  await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  await engine.close();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The code in the newest message to an address, from the development sink's files. */
async function codeSentTo(address: string, pattern = /(\d{3}-\d{3}(?:-\d{3})?)/): Promise<string> {
  await engine.outbox.drain();
  const directory = path.join(dataDir, 'messages');
  const files = readdirSync(directory).sort().reverse();
  for (const file of files) {
    const content = readFileSync(path.join(directory, file), 'utf8');
    if (!content.startsWith(`To: ${address}\n`)) continue;
    const match = pattern.exec(content.split('\n\n').slice(1).join('\n\n'));
    if (match) {
      const code = match[1].replace(/-/g, '');
      secrets.push(code, match[1]);
      return code;
    }
  }
  throw new Error(`no message to ${address}`);
}

function noReveal(answer: { text: string }): void {
  assert.not.ok(answer.text.includes('revealed_codes'), answer.text);
  assert.not.ok(answer.text.includes('captcha_bypass'), answer.text);
}

test('sign-up, sign-in, add-uid, invitations and the authorize page reveal no codes', async () => {
  const redirectUri = 'https://client.example/cb';
  const app = await createAuthnApp({ engine } as never, { redirectUris: [redirectUri] });
  secrets.push(app.clientSecret);
  const sitekey = must(await client.get('/aa/recaptcha_invisible_sitekey'));
  assert.is(sitekey.body.captcha_bypass, undefined);

  const start = must(await client.post('/aa/signup', { client_id: app.clientId, device_uuid: 'prod-1', login: 'prod@example.com' }));
  noReveal(start);
  secrets.push(start.body.secret);
  const auth = { attemptSecret: start.body.secret };
  const path1 = start.body.attempt_path;
  noReveal(must(await client.post(`${path1}auth-uid`, { factor_id: start.body.factor_id, code: await codeSentTo('prod@example.com') }, { auth })));
  const added = must(await client.post(`${path1}add-factor`, { login: '+15555550190' }, { auth }));
  noReveal(added);
  must(await client.post(`${path1}auth-uid`, { factor_id: added.body.factor_id, code: await codeSentTo('+15555550190') }, { auth }));
  must(await client.post(`${path1}set-signup-data`, { first_name: 'Pro', last_name: 'Duction' }, { auth }));
  const password = 'production password';
  secrets.push(password);
  must(await client.post(`${path1}set-signup-data`, { password }, { auth }));
  const finished = must(await client.post(`${path1}signup-finish`, { agreed: true }, { auth }));
  secrets.push(finished.body.token.access_token);

  const signin = must(await client.post('/aa/signin', { client_id: app.clientId, device_uuid: 'prod-2', login: 'prod@example.com', password }));
  noReveal(signin);
  secrets.push(signin.body.secret);
  const wrong = await client.post(`${signin.body.attempt_path}auth-uid`, { factor_id: signin.body.factor_id, code: '123456' }, { auth: { attemptSecret: signin.body.secret } });
  assertRefused(wrong, 400, 'invalid');
  const done = must(await client.post(`${signin.body.attempt_path}auth-uid`, { factor_id: signin.body.factor_id, code: await codeSentTo('+15555550190') }, { auth: { attemptSecret: signin.body.secret } }));
  secrets.push(done.body.token.access_token);

  const addUid = must(await client.post('/wallet/add-uid', { login: 'prod2@example.com' }, { auth: { bearer: done.body.token.access_token } }));
  noReveal(addUid);
  secrets.push(addUid.body.secret);
  await codeSentTo('prod2@example.com');

  const invite = must(await client.post('/ai/invite', { first_name: 'Ina', last_name: 'Vite', email: 'ina@example.com', url_template: 'https://x.example/?i=INVITE_ID&c=CODE', sender_name: 'Pro' }, { auth: app.basic }));
  noReveal(invite);
  await codeSentTo('ina@example.com', /code: ([0-9A-Z-]{9})/);

  const page = await fetch(new URL(`/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.clientId, redirect_uri: redirectUri })}`, client.baseUrl));
  const html = await page.text();
  const flow = /name="flow" value="([^"]+)"/.exec(html)![1];
  secrets.push(flow);
  const codePage = await fetch(new URL('/authorize/signin', client.baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `cashloop_authorize=${flow}` },
    body: new URLSearchParams({ flow, login: 'prod@example.com', password }).toString(),
  });
  const codeHtml = await codePage.text();
  assert.ok(codeHtml.includes('id="code"'));
  assert.not.ok(codeHtml.includes('revealed-code'));
  await codeSentTo('+15555550190');
});

test('no log line holds a code, password, secret or token', async () => {
  await engine.outbox.drain();
  assert.ok(logLines.length > 10, 'requests and messages were logged');
  assert.ok(logLines.some((line) => line.includes('development sink')));
  for (const line of logLines) {
    for (const secret of secrets) assert.not.ok(line.includes(secret), `log line holds a secret: ${line}`);
  }
});

test.run();
