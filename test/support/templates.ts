// Migrated database templates: running initdb and every migration costs seconds per database
// (tens of seconds on a loaded machine), so a run does it once and each test database starts from
// a copy. PGlite: a migrated on-disk data directory, copied for each test database (into memory,
// /dev/shm, where there is one) and for spawned servers. Postgres: a migrated database that `create database … template`
// copies. Templates are keyed by the migrations' text (and PGlite's version), so a changed
// migration makes a new template; the first process to need one builds it, atomically (build
// under a private name, then rename), so parallel files never see a half-built template.
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openPglite, openPostgres } from '../../engine/storage/database.ts';
import { listMigrations, migrate } from '../../engine/storage/migrate.ts';

const templatesDir = path.join(tmpdir(), 'cashloop-test-templates');

function templateKey(): string {
  const digest = createHash('sha256');
  for (const migration of listMigrations()) digest.update(`${migration.name}\n${migration.text}\n`);
  const pgliteVersion = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json'), 'utf8')).version;
  digest.update(`pglite ${pgliteVersion}`);
  return digest.digest('hex').slice(0, 16);
}

let key: string | undefined;
const currentKey = () => (key ??= templateKey());
const privateSuffix = () => `${process.pid}-${randomBytes(4).toString('hex')}`;

/** An on-disk migrated PGlite data directory (DATA_DIR layout: `<dir>/pglite`), built once. */
async function pgliteTemplateDirectory(): Promise<string> {
  const directory = path.join(templatesDir, `pglite-${currentKey()}-datadir`);
  if (existsSync(directory)) return directory;
  const building = `${directory}.${privateSuffix()}`;
  mkdirSync(templatesDir, { recursive: true });
  const database = await openPglite(building);
  try {
    await migrate(database.sql);
  } finally {
    await database.close();
  }
  try {
    renameSync(building, directory);
  } catch {
    // Another process renamed its copy first; either is the same template.
    rmSync(building, { recursive: true, force: true });
  }
  return directory;
}

/**
 * Where test databases and servers' data directories go: the runner's per-run directory
 * (CASHLOOP_TEST_SCRATCH, removed when the run ends, so a killed file leaks nothing), else /dev/shm.
 * In memory because PGlite writes each commit's WAL and fsyncs it: on a disk that costs a test
 * database's start and every commit.
 */
export function testScratchRoot(): string {
  const root = process.env.CASHLOOP_TEST_SCRATCH || (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
  mkdirSync(root, { recursive: true });
  return root;
}

/**
 * A fresh directory holding a copy of the migrated data directory (DATA_DIR layout:
 * `<dir>/pglite`), for openPglite(dir). Copying the files (about 40 MB) is a tenth of what
 * loading the same directory from its tar into PGlite's in-memory file system costs, and
 * PGlite then reads only the pages it needs.
 */
export async function copyPgliteTemplate(): Promise<string> {
  const directory = mkdtempSync(path.join(testScratchRoot(), 'cashloop-pglite-'));
  await seedPgliteDataDir(directory);
  return directory;
}

/**
 * Fills DATA_DIR with a migrated embedded database, so a spawned server (api/main.ts) starts
 * without initdb or migrations. The server still runs its migrations check, which finds nothing to do.
 */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  cpSync(path.join(await pgliteTemplateDirectory(), 'pglite'), path.join(dataDir, 'pglite'), { recursive: true });
}

/** The name of a migrated template database on the Postgres at adminUrl, built on first use. */
export async function postgresTemplate(adminUrl: string): Promise<string> {
  const name = `cashloop_template_${currentKey()}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const found = await admin`select 1 from pg_database where datname = ${name}`;
    if (found.length > 0) return name;
    const building = `cashloop_template_build_${privateSuffix().replace('-', '_')}`;
    await admin.unsafe(`create database ${building}`);
    const url = new URL(adminUrl);
    url.pathname = `/${building}`;
    const database = await openPostgres(url.toString(), 1);
    try {
      await migrate(database.sql);
    } finally {
      await database.close();
    }
    try {
      await admin.unsafe(`alter database ${building} rename to ${name}`);
    } catch {
      // Another process built it first.
      await admin.unsafe(`drop database if exists ${building} with (force)`);
    }
    return name;
  } finally {
    await admin.end();
  }
}

/** Builds the templates a run needs before its files start (the runner calls this once). */
export async function prepareTemplates(databaseUrl: string | undefined): Promise<void> {
  if (databaseUrl) await postgresTemplate(databaseUrl);
  else await pgliteTemplateDirectory();
}
