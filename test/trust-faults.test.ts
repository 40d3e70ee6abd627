// Proves what Cashloop promises under faults, on a Postgres and Redis the test starts itself (never
// the machine's shared ones): two API processes under concurrent sends survive a kill -9 of one, a
// Redis restart and a Postgres restart; afterwards every 200 is durable, every retry with its
// dedup_id returns the original transfer or runs once, nothing is stuck, the outbox drains and the
// audit balances. With three Redis nodes (a Redlock quorum) one node down changes nothing and two
// down answer 503 busy and change nothing. Set RELIABILITY_TIMELINE_OUT=<file> to write the timeline.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { loadConfig } from '../engine/config.ts';
import { createEngine, type Engine } from '../engine/engine.ts';
import { createLogger } from '../engine/logger.ts';
import { createMetrics } from '../engine/metrics.ts';
import { openPostgres } from '../engine/storage/database.ts';
import { designateIssuer, fund, individual, ledgerFingerprint } from './ledger-support.ts';
import { usesRealServices } from './support/harness.ts';

const pgBin = '/usr/lib/postgresql/15/bin';
const operatorKey = 'faults-operator-key-0123456789abcdef';
const senders = 12;
const phaseMs = { steady: 2500, afterKill: 2500, afterRestart: 2000, afterRedis: 2500, afterPostgres: 3500 };

let pgPort = 0;
let redisPorts: number[] = [];
let dataDir = '';
let databaseUrl = '';
const redisProcesses = new Map<number, ChildProcess>();
const apiProcesses: ChildProcess[] = [];
let engine: Engine | undefined;
// uvu swallows an error thrown by a before hook (the file then reports "0 / 2" and nothing else), so
// the set-up keeps its error and every test throws it, with the steps it took and how long each took.
let setupError: Error | undefined;
const setupSteps: string[] = [];

function run(command: string, args: string[]): void {
  const result = spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal ?? result.error}): ${result.stdout}${result.stderr}`);
}

/** A port nobody listens on now, from the kernel (port 0), so the test's servers never meet another's. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts redis-server on a port and waits until that very process (not another on the port) answers. */
async function startRedis(port: number): Promise<void> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  redisProcesses.set(port, child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output = (output + chunk).slice(-2000)));
  child.stderr!.on('data', (chunk) => (output = (output + chunk).slice(-2000)));
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  await waitFor(async () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`redis-server on ${port} exited ${child.exitCode ?? child.signalCode}: ${output}`);
    const failed = await Promise.race([spawnError, Promise.resolve(undefined)]);
    if (failed) throw new Error(`redis-server did not start: ${failed.message}`);
    const result = spawnSync('redis-cli', ['-p', String(port), 'info', 'server'], { encoding: 'utf8', timeout: 5_000 });
    return new RegExp(`process_id:${child.pid}\\b`).test(result.stdout);
  }, `redis ${port}`, 15_000, () => output);
}

async function stopRedis(port: number): Promise<void> {
  const child = redisProcesses.get(port);
  // A child killed by a signal has a signalCode and no exitCode.
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Polls check until it answers true; a check that throws fails at once with its error. */
async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000, detail: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not come up in ${timeoutMs} ms ${detail()}`);
}

function startApi(redisUrl: string): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/api-process.ts'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, LOCK_KEY_PREFIX: 'faults:', CASHLOOP_OPERATOR_KEY: operatorKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    apiProcesses.push(child);
    let output = '';
    const timer = setTimeout(() => reject(new Error(`API process did not start in 60 s: ${output.slice(-2000)}`)), 60_000);
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /port (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: `http://127.0.0.1:${match[1]}` });
      }
    });
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL' && signal !== 'SIGTERM') console.log(`API process exited ${code ?? signal}: ${output.slice(-2000)}`);
      reject(new Error(`API process exited ${code ?? signal}: ${output.slice(-2000)}`));
    });
  });
}

async function step<T>(what: string, work: () => Promise<T> | T): Promise<T> {
  const startedAt = Date.now();
  try {
    const result = await work();
    setupSteps.push(`${what}: ${Date.now() - startedAt} ms`);
    return result;
  } catch (error) {
    setupSteps.push(`${what}: FAILED after ${Date.now() - startedAt} ms`);
    throw error;
  }
}

function postgresLog(): string {
  try {
    return readFileSync(`${dataDir}/log`, 'utf8').slice(-2000);
  } catch {
    return '';
  }
}

async function setUp(): Promise<void> {
  dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-faults-'));
  spawnSync('chown', ['postgres:postgres', dataDir]);
  pgPort = await freePort();
  await step('initdb', () => run(`${pgBin}/initdb`, ['-D', `${dataDir}/pg`, '-A', 'trust', '-U', 'postgres', '--no-sync']));
  await step(`postgres on ${pgPort}`, () => run(`${pgBin}/pg_ctl`, ['-D', `${dataDir}/pg`, '-o', postgresOptions(), '-w', '-t', '60', '-l', `${dataDir}/log`, 'start']));
  await step('create database', async () => {
    const admin = postgres(`postgres://postgres@127.0.0.1:${pgPort}/postgres`, { max: 1, onnotice: () => {}, connect_timeout: 10 });
    try {
      await admin.unsafe('create database faults');
    } finally {
      await admin.end();
    }
  });
  databaseUrl = `postgres://postgres@127.0.0.1:${pgPort}/faults`;
  for (let index = 0; index < 4; index++) {
    const port = await freePort();
    await step(`redis on ${port}`, () => startRedis(port));
    redisPorts.push(port);
  }
  // The test's own engine (no Redis: it only sets the world up before the API processes start, and reads).
  const config = loadConfig({ DATABASE_URL: databaseUrl, CASHLOOP_MODE: 'sandbox', DATA_DIR: dataDir, LOG_LEVEL: 'error', CASHLOOP_RATE_LIMIT_SCALE: '1000' });
  engine = await step('engine', async () => createEngine({ config, logger: createLogger('error', { silent: true }), metrics: createMetrics(), database: await openPostgres(databaseUrl) }));
}

function postgresOptions(): string {
  return `-p ${pgPort} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off`;
}

test.before(async () => {
  // Faults need a Postgres and Redis to restart: the embedded run has neither.
  if (!usesRealServices) return;
  try {
    await setUp();
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    setupError = new Error(`set-up failed: ${cause}\nsteps: ${setupSteps.join('; ')}\npostgres log: ${postgresLog()}`);
  }
});

test.after(async () => {
  for (const child of apiProcesses) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (engine) await engine.close().catch(() => {});
  for (const port of redisProcesses.keys()) await stopRedis(port);
  if (dataDir) {
    spawnSync('runuser', ['-u', 'postgres', '--', `${pgBin}/pg_ctl`, '-D', `${dataDir}/pg`, '-m', 'immediate', 'stop'], { timeout: 30_000 });
    rmSync(dataDir, { recursive: true, force: true });
  }
});

async function tokenFor(profileId: string): Promise<string> {
  const { apps, tokens } = engine!.services;
  const app = await apps.create({ name: 'Faults', permissions: [], redirectUris: [], site: 'default', isPublic: false, implicitGrant: false });
  const info = await tokens.issue(engine!.sql, {
    clientId: app.clientId, profileId, personalProfileId: profileId, permissions: [...tokens.defaultPermissions], concurrent: true, deviceUuid: null, source: 'authn', now: new Date(),
  });
  return info.access_token;
}

interface Attempt {
  sender: number;
  body: Record<string, string>;
  token: string;
  status: number | 'cut';
  transferId: string | null;
  atMs: number;
}

async function send(url: string, token: string, body: Record<string, string>, timeoutMs = 20_000): Promise<{ status: number | 'cut'; transferId: string | null; error: string | null }> {
  try {
    const response = await fetch(`${url}/wallet/send`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
    });
    const answer = (await response.json().catch(() => ({}))) as { transfer?: { id: string }; error?: string };
    return { status: response.status, transferId: answer.transfer?.id ?? null, error: answer.error ?? null };
  } catch {
    return { status: 'cut', transferId: null, error: null };
  }
}

/** Sends until answered with anything but a 503 or a cut connection, at most four times, a second apart. */
async function sendUntilAnswered(url: string, token: string, body: Record<string, string>): Promise<Awaited<ReturnType<typeof send>>> {
  let result = await send(url, token, body, 30_000);
  for (let tries = 1; tries < 4 && (result.status === 503 || result.status === 'cut'); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    result = await send(url, token, body, 30_000);
  }
  return result;
}

function timeline(attempts: readonly Attempt[], events: readonly { atMs: number; what: string }[]): string {
  const seconds = Math.ceil(Math.max(...attempts.map((attempt) => attempt.atMs)) / 1000);
  const lines = ['| second | answered (2xx) | refused (4xx, 503) | cut off | event |', '|---:|---:|---:|---:|---|'];
  for (let second = 0; second < seconds; second++) {
    const inSecond = attempts.filter((attempt) => Math.floor(attempt.atMs / 1000) === second);
    const what = events.filter((event) => Math.floor(event.atMs / 1000) === second).map((event) => event.what).join('; ');
    lines.push(`| ${second} | ${inSecond.filter((a) => typeof a.status === 'number' && a.status < 300).length} | ${inSecond.filter((a) => typeof a.status === 'number' && a.status >= 400).length} | ${inSecond.filter((a) => a.status === 'cut').length} | ${what} |`);
  }
  return lines.join('\n');
}

// Faults need a Postgres and Redis to restart: on the embedded run the tests are skipped, not passed.
const faultTest = usesRealServices ? test : test.skip;

faultTest('kill -9 of one API process, a Redis restart and a Postgres restart lose nothing and spend nothing twice', async () => {
  if (setupError) throw setupError;
  const people: string[] = [];
  await designateIssuer(engine!);
  for (let index = 0; index < senders; index++) {
    const id = await individual(engine!);
    await fund(engine!, id, '50.00');
    people.push(id);
  }
  const tokens = await Promise.all(people.map(tokenFor));
  const redisUrl = `redis://127.0.0.1:${redisPorts[0]}`;
  const apis = [await startApi(redisUrl), await startApi(redisUrl)];
  const targets = apis.map((api) => api.url);

  const attempts: Attempt[] = [];
  const events: { atMs: number; what: string }[] = [];
  const startedAt = Date.now();
  let running = true;
  const loops = people.map(async (_, sender) => {
    let round = 0;
    while (running) {
      round++;
      const body = { recipient_uid: `service:${people[(sender + 1 + (round % (senders - 1))) % senders]}`, amounts: `0-USD-0.${String(1 + (round % 9)).padStart(2, '0')}`, dedup_id: `s${sender}-r${round}` };
      const target = targets[(sender + round) % targets.length];
      const atMs = Date.now() - startedAt;
      const result = await send(target, tokens[sender], body, 8_000);
      attempts.push({ sender, body, token: tokens[sender], status: result.status, transferId: result.transferId, atMs });
      if (result.status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  const mark = (what: string) => events.push({ atMs: Date.now() - startedAt, what });
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  await pause(phaseMs.steady);
  mark('kill -9 API process A');
  apis[0].child.kill('SIGKILL');
  await pause(phaseMs.afterKill);
  const restarted = await startApi(redisUrl);
  targets[0] = restarted.url;
  mark('API process A restarted');
  await pause(phaseMs.afterRestart);
  mark('Redis restarted');
  await stopRedis(redisPorts[0]);
  await startRedis(redisPorts[0]);
  await pause(phaseMs.afterRedis);
  mark('Postgres restarted');
  run(`${pgBin}/pg_ctl`, ['-D', `${dataDir}/pg`, '-m', 'fast', '-w', '-t', '60', 'restart', '-o', postgresOptions(), '-l', `${dataDir}/log`]);
  await pause(phaseMs.afterPostgres);
  // Load goes on until a send succeeds after the restart (a state, not a time): at most a minute.
  const restartedAtMs = events[events.length - 1].atMs;
  for (let waited = 0; waited < 60_000 && !attempts.some((attempt) => attempt.atMs > restartedAtMs && attempt.status === 200); waited += 250) await pause(250);
  running = false;
  await Promise.all(loops);
  mark('load stopped');
  if (process.env.RELIABILITY_TIMELINE_OUT) writeFileSync(process.env.RELIABILITY_TIMELINE_OUT, `${timeline(attempts, events)}\n`);

  const ok = attempts.filter((attempt) => attempt.status === 200);
  assert.ok(ok.length > 50, `only ${ok.length} sends were answered 200`);
  assert.not.ok(attempts.some((attempt) => typeof attempt.status === 'number' && attempt.status >= 500 && attempt.status !== 503), 'no 500 under faults');

  // Every 200 is durable: its transfer exists and completed.
  const durable = await engine!.sql<{ id: string }[]>`select id from transfers where id = any(${ok.map((attempt) => attempt.transferId!)}::text[]) and completed`;
  assert.is(durable.length, ok.length, 'every 200 was committed');

  // Every retry with its dedup_id returns the original transfer, or runs once.
  // A retry is sent as a client would: after a 503 (Retry-After: 1) or a cut connection it tries again.
  // Each sender retries its own attempts in order, as its client would; the senders retry side by side.
  await Promise.all(people.map(async (_, sender) => {
    for (const attempt of attempts.filter((candidate) => candidate.sender === sender)) {
      const retry = await sendUntilAnswered(targets[1], attempt.token, attempt.body);
      assert.is(retry.status, 200, `retry of ${attempt.body.dedup_id}: ${retry.status} ${retry.error}`);
      if (attempt.status === 200) assert.is(retry.transferId, attempt.transferId, `retry of a 200 (${attempt.body.dedup_id}) returns the original transfer`);
      const again = await sendUntilAnswered(targets[0], attempt.token, attempt.body);
      assert.is(again.transferId, retry.transferId, 'a second retry answers the same transfer');
    }
  }));
  const [{ transfers, keys }] = await engine!.sql<{ transfers: number; keys: number }[]>`
    select (select count(*)::int from transfers where workflow_type = 'profile_to_profile') as transfers, (select count(*)::int from transfer_dedup) as keys`;
  assert.is(transfers, attempts.length, 'each dedup_id ran exactly once');
  assert.is(keys, attempts.length);

  // Nothing is stuck past its deadline, the outbox drains, and the audit balances.
  const [{ stuck }] = await engine!.sql<{ stuck: number }[]>`select count(*)::int as stuck from transfers where not completed and not canceled`;
  assert.is(stuck, 0);
  let outboxDetail = '';
  // The API processes here run no background loop (tests drive the outbox by hand): this engine delivers.
  await waitFor(async () => {
    await engine!.outbox.runOnce();
    const [{ pending }] = await engine!.sql<{ pending: number }[]>`select count(*)::int as pending from outbox where delivered_at is null and failed_at is null`;
    if (pending > 0) outboxDetail = JSON.stringify(await engine!.sql`select kind, attempts, next_attempt_at, last_error from outbox where delivered_at is null and failed_at is null limit 5`);
    return pending === 0;
  }, 'the outbox draining', 30_000, () => outboxDetail);
  const report = await engine!.services.ledger.cash.audit();
  assert.equal(report.problems, []);
  const [{ total }] = await engine!.sql<{ total: string }[]>`select sum(amount)::text as total from balances where currency = 'USD'`;
  assert.is(total, String(50_00 * senders), 'money is conserved');
  const recovered = attempts.filter((attempt) => attempt.atMs > events[events.length - 2].atMs && attempt.status === 200);
  assert.ok(recovered.length > 0, 'sends recover after the Postgres restart');
});

faultTest('three Redis nodes: one down, sends go on; two down, sends answer 503 busy and change nothing', async () => {
  if (setupError) throw setupError;
  const [pat, sam] = [await individual(engine!), await individual(engine!)];
  await fund(engine!, pat, '10.00');
  const token = await tokenFor(pat);
  const quorum = redisPorts.slice(1).map((port) => `redis://127.0.0.1:${port}`).join(',');
  const api = await startApi(quorum);
  const body = (dedup: string) => ({ recipient_uid: `service:${sam}`, amounts: '0-USD-1.00', dedup_id: dedup });
  assert.is((await send(api.url, token, body('q-1'))).status, 200);
  await stopRedis(redisPorts[1]);
  const oneDown = await send(api.url, token, body('q-2'));
  assert.is(oneDown.status, 200, 'a quorum of two of three still locks');
  await stopRedis(redisPorts[2]);
  const before = await ledgerFingerprint(engine!);
  const twoDown = await send(api.url, token, body('q-3'), 60_000);
  assert.is(twoDown.status, 503);
  assert.is(twoDown.error, 'busy');
  assert.is(await ledgerFingerprint(engine!), before, 'a refused send changes nothing');
  await startRedis(redisPorts[1]);
  const back = await send(api.url, token, body('q-3'), 60_000);
  assert.is(back.status, 200, 'with the quorum back the same dedup_id runs');
});

test.run();
