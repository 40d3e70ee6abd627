// Proves a newcomer's start-up: a wrong setting stops the real server process with one plain line
// and a non-zero exit; HOST defaults to loopback; /readyz answers (503, bounded by its check's
// timeout) even when Redis hangs; two fresh installations give different ids; an unknown currency is refused with no change.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../engine/config.ts';
import { migrationLog } from '../engine/engine.ts';
import { listMigrations, migrate } from '../engine/storage/migrate.ts';
import { createTestDatabase, createTestEngine, environmentConfig } from './support/harness.ts';
import { seedPgliteDataDir, testScratchRoot } from './support/templates.ts';
import { startTestServer } from './support/http.ts';
import { addIndividual, createApp } from './foundation-helpers.ts';

const root = path.resolve(import.meta.dirname, '..');

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** PATH, and the run's Node options (test/run.ts: WebAssembly on the baseline compiler); no Cashloop setting. */
const baseEnv = { PATH: process.env.PATH ?? '', ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}) };

/** Runs `node api/main.ts` with only the given environment (plus baseEnv) and waits for it to exit (the runner's file timeout catches a hang). */
function runServer(env: Record<string, string>): Promise<Exit> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
      cwd: root,
      env: { ...baseEnv, PORT: '0', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/** The one line start-up printed that is not a JSON log line. */
function plainLines(exit: Exit): string[] {
  return `${exit.stdout}${exit.stderr}`
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('{'));
}

const scratch = mkdtempSync(path.join(testScratchRoot(), 'cashloop-startup-'));
test.after(() => rmSync(scratch, { recursive: true, force: true }));

test('an unreachable database stops start-up with one line', async () => {
  const exit = await runServer({ DATA_DIR: scratch, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/cashloop' });
  assert.is(exit.code, 1);
  const lines = plainLines(exit);
  assert.is(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /^Cashloop cannot start: cannot reach the database at 127\.0\.0\.1:1\/cashloop \(DATABASE_URL\)/);
  assert.not.match(exit.stderr, /    at /, 'no stack trace');
});

(environmentConfig.databaseUrl ? test : test.skip)('a missing database (real Postgres) stops start-up with one line saying so', async () => {
  const missing = new URL(environmentConfig.databaseUrl!);
  missing.pathname = '/cashloop_no_such_database';
  const exit = await runServer({ DATA_DIR: scratch, DATABASE_URL: missing.toString() });
  assert.is(exit.code, 1);
  const lines = plainLines(exit);
  assert.is(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /does not exist.*createdb/);
});

test('production without a message channel stops start-up with one line naming both settings', async () => {
  const exit = await runServer({ DATA_DIR: scratch, CASHLOOP_MODE: 'production', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/cashloop', REDIS_URL: 'redis://127.0.0.1:1' });
  assert.is(exit.code, 1);
  const lines = plainLines(exit);
  assert.is(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], 'SMTP_URL');
  assert.match(lines[0], 'SMS_WEBHOOK_URL');
});

test('a wrong setting is one line', async () => {
  const exit = await runServer({ DATA_DIR: scratch, PORT: 'eighty', REDIS_URL: 'localhost:6379' });
  assert.is(exit.code, 1);
  const lines = plainLines(exit);
  assert.is(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], 'PORT');
  assert.match(lines[0], 'REDIS_URL');
});

test('an unreachable Redis stops start-up with one line and no non-JSON ioredis lines', async () => {
  const env: Record<string, string> = { DATA_DIR: path.join(scratch, 'redis'), REDIS_URL: 'redis://127.0.0.1:1' };
  // A migrated embedded database (the first start's migrations are not what this proves).
  await seedPgliteDataDir(env.DATA_DIR);
  const exit = await runServer(env);
  assert.is(exit.code, 1);
  const lines = plainLines(exit);
  assert.is(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /^Cashloop cannot start: Redis does not answer at 127\.0\.0\.1:1 \(REDIS_URL\)/);
  assert.not.match(`${exit.stdout}${exit.stderr}`, '[ioredis]');
});

test('the server listens on 127.0.0.1 unless HOST says otherwise, and its start-up line says mode, storage, locks and address', async () => {
  assert.is(loadConfig({}).host, '127.0.0.1');
  assert.is(loadConfig({ HOST: '0.0.0.0' }).host, '0.0.0.0');
  await seedPgliteDataDir(path.join(scratch, 'listen'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    cwd: root,
    env: { ...baseEnv, PORT: '0', DATA_DIR: path.join(scratch, 'listen') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // Waits for the line, or for the process to exit without it (no deadline: the runner's file timeout catches a hang).
  const line = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk;
      const found = output.split('\n').find((text) => text.includes('cashloop listening'));
      if (found) resolve(JSON.parse(found));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`the server exited ${code} without a start-up line: ${output}`)));
  });
  const closed = new Promise((resolve) => child.on('close', resolve));
  child.kill('SIGTERM');
  await closed;
  assert.is(line.host, '127.0.0.1');
  assert.is(line.mode, 'sandbox');
  assert.match(String(line.storage), /^pglite /);
  assert.is(line.locks, 'in-process');
  assert.match(String(line.url), /^http:\/\/127\.0\.0\.1:\d+$/);
});

// A first start migrates an empty database, which takes a while: a line before, and one per migration.
test('a first start says what it does while it migrates: a line before, then one per migration applied', async () => {
  const testDatabase = await createTestDatabase({ empty: true });
  const messages: string[] = [];
  const first = listMigrations().slice(0, 3);
  try {
    await migrate(testDatabase.database.sql, first, migrationLog({ info: (message: string) => messages.push(message) }));
  } finally {
    await testDatabase.drop();
  }
  assert.equal(messages, ['applying 3 of 3 database migrations (a first start takes a while)', ...first.map((migration, index) => `migration ${index + 1}/3 ${migration.name} applied`)]);
});

test('/readyz answers 503 (its check times out) when Redis accepts connections but never answers', async () => {
  const sockets: Socket[] = [];
  const silent: TcpServer = createTcpServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as AddressInfo).port;
  const server = await startTestServer({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
  try {
    // An answer at all is the point: an unbounded check would hang here (how fast it answers is for bench/).
    const answer = await server.client.get('/readyz');
    assert.is(answer.status, 503);
  } finally {
    for (const socket of sockets) socket.destroy();
    silent.close();
    server.engine.locks.close().catch(() => {});
    await server.close().catch(() => {});
  }
});

test('two fresh installations give different ids in the same order', async () => {
  const first = await createTestEngine();
  const second = await createTestEngine();
  try {
    const input = { name: 'Shop', permissions: [], redirectUris: [], site: 'default', isPublic: false, implicitGrant: false };
    const [a1, a2] = [await first.engine.services.apps.create(input), await first.engine.services.apps.create(input)];
    const [b1, b2] = [await second.engine.services.apps.create(input), await second.engine.services.apps.create(input)];
    assert.is.not(a1.clientId, b1.clientId);
    assert.is.not(a2.clientId, b2.clientId);
    // The key is kept with the data: a second engine on the same database mints from the same key.
    const stored = await first.engine.sql<{ value: string }[]>`select value from installation_secrets where name = 'id_permutation_key'`;
    assert.is(stored.length, 1);
    assert.is.not(stored[0].value, 'cashloop-id-permutation-v1');
  } finally {
    await first.close();
    await second.close();
  }
});

test('an unknown currency is refused with the spec error body and nothing is issued', async () => {
  const server = await startTestServer();
  try {
    const app = await createApp(server);
    const pat = await addIndividual(server, app);
    const answer = await server.client.post('/admin/ledger/issue', { to_uid: `service:${pat}`, amount: '10.00', currency: 'XYZ' }, { auth: { operator: true } });
    assert.is(answer.status, 400, answer.text);
    assert.is(answer.body.error, 'invalid');
    assert.ok(answer.body.invalid?.currency ?? answer.body.errors, answer.text);
    const notes = await server.engine.sql<{ count: bigint }[]>`select count(*) as count from notes`;
    assert.is(Number(notes[0].count), 0);
  } finally {
    await server.close();
  }
});

test.run();
