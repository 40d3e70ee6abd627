// The world of the fault tests (test/trust-faults*.test.ts): a Postgres and Redis servers each file
// starts itself (never the machine's shared ones), API processes on them, and the file's own engine
// that sets the world up and reads it. A file calls setUpFaults in its before hook and
// tearDownFaults in its after hook; the bindings below (engine, dataDir, redisPorts...) are live.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { loadConfig } from '../../engine/config.ts';
import { createEngine, type Engine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/logger.ts';
import { createMetrics } from '../../engine/metrics.ts';
import { openPostgres } from '../../engine/storage/database.ts';
import { usesRealServices } from './harness.ts';

export const pgBin = '/usr/lib/postgresql/15/bin';
const operatorKey = 'faults-operator-key-0123456789abcdef';

export let pgPort = 0;
export let redisPorts: number[] = [];
export let dataDir = '';
export let databaseUrl = '';
const redisProcesses = new Map<number, ChildProcess>();
const apiProcesses: ChildProcess[] = [];
export let engine: Engine | undefined;
// uvu swallows an error thrown by a before hook (the file then reports "0 / 2" and nothing else), so
// the set-up keeps its error and every test throws it, with the steps it took and how long each took.
export let setupError: Error | undefined;
const setupSteps: string[] = [];

export function run(command: string, args: string[]): void {
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
export async function startRedis(port: number): Promise<void> {
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

export async function stopRedis(port: number): Promise<void> {
  const child = redisProcesses.get(port);
  // A child killed by a signal has a signalCode and no exitCode.
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Polls check until it answers true; a check that throws fails at once with its error. */
export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 30_000, detail: () => string = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not come up in ${timeoutMs} ms ${detail()}`);
}

/** Starts an API process on the file's Postgres and redisUrl; env adds settings (a shorter request deadline). */
export function startApi(redisUrl: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/api-process.ts'], {
      env: { ...process.env, ...env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, LOCK_KEY_PREFIX: 'faults:', CASHLOOP_OPERATOR_KEY: operatorKey },
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

async function setUp(redisServers: number): Promise<void> {
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
  for (let index = 0; index < redisServers; index++) {
    const port = await freePort();
    await step(`redis on ${port}`, () => startRedis(port));
    redisPorts.push(port);
  }
  // The test's own engine (no Redis: it only sets the world up before the API processes start, and reads).
  const config = loadConfig({ DATABASE_URL: databaseUrl, CASHLOOP_MODE: 'sandbox', DATA_DIR: dataDir, LOG_LEVEL: 'error', CASHLOOP_RATE_LIMIT_SCALE: '1000' });
  engine = await step('engine', async () => createEngine({ config, logger: createLogger('error', { silent: true }), metrics: createMetrics(), database: await openPostgres(databaseUrl) }));
}

/** As run, without blocking the event loop (the load and the probes go on meanwhile). */
function runInBackground(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('runuser', ['-u', 'postgres', '--', command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} failed (${code ?? signal}): ${output}`))));
  });
}

/** Stops the file's Postgres hard (`-m immediate`: no checkpoint, every backend killed), as a crash would. */
export function stopPostgresHard(): Promise<void> {
  return runInBackground(`${pgBin}/pg_ctl`, ['-D', `${dataDir}/pg`, '-m', 'immediate', '-w', '-t', '60', 'stop']);
}

/** Starts the file's Postgres and waits until it accepts connections (it recovers from its WAL first). */
export function startPostgres(): Promise<void> {
  return runInBackground(`${pgBin}/pg_ctl`, ['-D', `${dataDir}/pg`, '-o', postgresOptions(), '-w', '-t', '60', '-l', `${dataDir}/log`, 'start']);
}

/** GET /readyz: 200 or 503, or 'cut' when no answer came within timeoutMs. */
export async function readyz(url: string, timeoutMs = 3_000): Promise<number | 'cut'> {
  try {
    const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 'cut';
  }
}

/**
 * Takes every connection slot of the file's Postgres that is free (one postgres.js pool, each
 * connection reserved until release), so that any new connection is refused with 53300 "too many
 * clients"; answers how many it took.
 */
export async function holdConnectionSlots(): Promise<{ readonly taken: number; takeFree(): Promise<void>; release(): Promise<void> }> {
  const holder = postgres(`postgres://postgres@127.0.0.1:${pgPort}/postgres`, { max: 1000, onnotice: () => {}, connect_timeout: 10 });
  const reserved: { release(): void }[] = [];
  const takeFree = async () => {
    for (;;) {
      try {
        reserved.push(await holder.reserve());
      } catch (error) {
        if ((error as { code?: string }).code !== '53300') throw error;
        return;
      }
    }
  };
  await takeFree();
  return {
    get taken() {
      return reserved.length;
    },
    /** Takes the slots freed since (sessions ended meanwhile). */
    takeFree,
    async release() {
      for (const connection of reserved) connection.release();
      await holder.end({ timeout: 5 });
    },
  };
}

export function postgresOptions(): string {
  return `-p ${pgPort} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off`;
}

/**
 * The set-up of a fault file (its before hook): a Postgres, `redisServers` Redis servers (redisPorts)
 * and the file's engine; nothing on the embedded run, which has no Postgres or Redis to restart.
 */
export async function setUpFaults(redisServers: number): Promise<void> {
  // Faults need a Postgres and Redis to restart: the embedded run has neither.
  if (!usesRealServices) return;
  try {
    await setUp(redisServers);
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    setupError = new Error(`set-up failed: ${cause}\nsteps: ${setupSteps.join('; ')}\npostgres log: ${postgresLog()}`);
  }
}

/** Stops every process the file started and removes its data (its after hook). */
export async function tearDownFaults(): Promise<void> {
  for (const child of apiProcesses) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  if (engine) await engine.close().catch(() => {});
  for (const port of redisProcesses.keys()) await stopRedis(port);
  if (dataDir) {
    spawnSync('runuser', ['-u', 'postgres', '--', `${pgBin}/pg_ctl`, '-D', `${dataDir}/pg`, '-m', 'immediate', 'stop'], { timeout: 30_000 });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function tokenFor(profileId: string): Promise<string> {
  const { apps, tokens } = engine!.services;
  const app = await apps.create({ name: 'Faults', permissions: [], redirectUris: [], site: 'default', isPublic: false, implicitGrant: false });
  const info = await tokens.issue(engine!.sql, {
    clientId: app.clientId, profileId, personalProfileId: profileId, permissions: [...tokens.defaultPermissions], concurrent: true, deviceUuid: null, source: 'authn', now: new Date(),
  });
  return info.access_token;
}

export interface SendResult {
  status: number | 'cut';
  transferId: string | null;
  error: string | null;
  /** The Retry-After header, when there was one. */
  retryAfter: string | null;
}

export async function send(url: string, token: string, body: Record<string, string>, timeoutMs = 20_000): Promise<SendResult> {
  try {
    const response = await fetch(`${url}/wallet/send`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
    });
    const answer = (await response.json().catch(() => ({}))) as { transfer?: { id: string }; error?: string };
    return { status: response.status, transferId: answer.transfer?.id ?? null, error: answer.error ?? null, retryAfter: response.headers.get('retry-after') };
  } catch {
    return { status: 'cut', transferId: null, error: null, retryAfter: null };
  }
}

