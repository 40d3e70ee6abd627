// Proves the backup and restore drill of docs/operations.md on a Postgres of its own: a base backup
// (pg_basebackup) plus the WAL archive restore every commit made before and after the backup, to a
// new server on another port; the restored ledger is the same, row for row, and its audit balances.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../engine/config.ts';
import { createEngine, type Engine } from '../engine/engine.ts';
import { createLogger } from '../engine/logger.ts';
import { createMetrics } from '../engine/metrics.ts';
import { openPostgres } from '../engine/storage/database.ts';
import { assertAudit, designateIssuer, fund, individual, ledgerFingerprint } from './ledger-support.ts';
import { usesRealServices } from './support/harness.ts';

const pgBin = '/usr/lib/postgresql/15/bin';
/** The drill's own ports (17600-17601), apart from every other Postgres on the machine. */
const primaryPort = 17600;
const restoredPort = 17601;
const restoreMsMax = 60_000;

let dir = '';
const engines: Engine[] = [];

/** Runs a Postgres program as the postgres user when we are root (Postgres refuses root). */
function run(command: string, args: string[]): string {
  const asPostgres = process.getuid?.() === 0;
  const result = spawnSync(asPostgres ? 'runuser' : command, asPostgres ? ['-u', 'postgres', '--', command, ...args] : args, { encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stdout}${result.stderr}`);
  return result.stdout;
}

function stopServer(dataDir: string): void {
  const asPostgres = process.getuid?.() === 0;
  const args = ['-D', dataDir, '-m', 'immediate', 'stop'];
  spawnSync(asPostgres ? 'runuser' : `${pgBin}/pg_ctl`, asPostgres ? ['-u', 'postgres', '--', `${pgBin}/pg_ctl`, ...args] : args, { timeout: 30_000 });
}

async function openEngine(port: number): Promise<Engine> {
  const url = `postgres://postgres@127.0.0.1:${port}/drill`;
  const config = loadConfig({ DATABASE_URL: url, CASHLOOP_MODE: 'sandbox', DATA_DIR: dir, LOG_LEVEL: 'error' });
  const engine = await createEngine({ config, logger: createLogger('error', { silent: true }), metrics: createMetrics(), database: await openPostgres(url) });
  engines.push(engine);
  return engine;
}

test.after(async () => {
  for (const engine of engines) await engine.close().catch(() => {});
  if (!dir) return;
  stopServer(path.join(dir, 'primary'));
  stopServer(path.join(dir, 'restored'));
  rmSync(dir, { recursive: true, force: true });
});

// The drill needs the Postgres server programs; it runs once per suite, on the Postgres+Redis run.
const drill = usesRealServices ? test : test.skip;

drill('a base backup plus the WAL archive restores every commit, before and after the backup, and the audit balances', async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'cashloop-restore-drill-'));
  const archive = path.join(dir, 'wal-archive');
  const primary = path.join(dir, 'primary');
  const base = path.join(dir, 'base');
  const restored = path.join(dir, 'restored');
  mkdirSync(archive);
  if (process.getuid?.() === 0) spawnSync('chown', ['-R', 'postgres:postgres', dir]);
  run(`${pgBin}/initdb`, ['-D', primary, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  // Every WAL segment is copied to the archive once Postgres has finished it (docs/operations.md, Backups).
  appendFileSync(path.join(primary, 'postgresql.conf'), [
    `port = ${primaryPort}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dir}'`,
    'wal_level = replica', 'archive_mode = on', `archive_command = 'test ! -f ${archive}/%f && cp %p ${archive}/%f'`, 'fsync = off', '',
  ].join('\n'));
  run(`${pgBin}/pg_ctl`, ['-D', primary, '-w', '-t', '60', '-l', path.join(dir, 'primary.log'), 'start']);
  const admin = postgres(`postgres://postgres@127.0.0.1:${primaryPort}/postgres`, { max: 1, onnotice: () => {} });
  await admin.unsafe('create database drill');

  // A ledger before the backup: an issuer, people and the cash issued to them.
  const engine = await openEngine(primaryPort);
  await designateIssuer(engine);
  const people = [await individual(engine), await individual(engine), await individual(engine)];
  for (const person of people) await fund(engine, person, '25.00');

  run(`${pgBin}/pg_basebackup`, ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', base, '--checkpoint=fast', '--wal-method=none', '--no-sync']);

  // Commits after the backup reach the restore only through the archive.
  for (const person of people) await fund(engine, person, '5.00');
  const later = await individual(engine);
  await fund(engine, later, '7.50');
  const fingerprint = await ledgerFingerprint(engine);
  await assertAudit(engine);
  // The segment being written is archived once it is finished: finish it, and wait for the archiver.
  const [{ segment }] = await admin<{ segment: string }[]>`select pg_walfile_name(pg_switch_wal()) as segment`;
  for (let waited = 0; waited < 30_000; waited += 100) {
    const [{ archived }] = await admin<{ archived: string | null }[]>`select last_archived_wal as archived from pg_stat_archiver`;
    if (archived !== null && archived >= segment) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await admin.end();
  // The primary is lost.
  await engine.close();
  stopServer(primary);

  // The restore: the base backup, a restore_command reading the archive, and recovery.signal.
  const startedAt = Date.now();
  run('cp', ['-a', base, restored]);
  appendFileSync(path.join(restored, 'postgresql.auto.conf'), `port = ${restoredPort}\nrestore_command = 'cp ${archive}/%f %p'\narchive_mode = off\n`);
  writeFileSync(path.join(restored, 'recovery.signal'), '');
  if (process.getuid?.() === 0) spawnSync('chown', ['-R', 'postgres:postgres', restored]);
  run(`${pgBin}/pg_ctl`, ['-D', restored, '-w', '-t', '60', '-l', path.join(dir, 'restored.log'), 'start']);
  const check = postgres(`postgres://postgres@127.0.0.1:${restoredPort}/postgres`, { max: 1, onnotice: () => {} });
  for (let waited = 0; ; waited += 100) {
    const [{ recovering }] = await check<{ recovering: boolean }[]>`select pg_is_in_recovery() as recovering`;
    if (!recovering) break;
    assert.ok(waited < restoreMsMax, 'the restored server finished recovery');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await check.end();
  console.log(`ha-restore: restored from the base backup and the archive in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);

  const restoredEngine = await openEngine(restoredPort);
  assert.is(await ledgerFingerprint(restoredEngine), fingerprint, 'the restored ledger is the one lost, commits after the backup included');
  await assertAudit(restoredEngine);
});

test.run();
