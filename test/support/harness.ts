// Test harness: each test file gets its own database (a fresh PGlite on a copied data directory,
// or a new database on the real Postgres at DATABASE_URL) and its own Redis key prefix, so runs never collide.
// Databases start as copies of a migrated template (test/support/templates.ts): no initdb and no
// migrations per test.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import postgres from 'postgres';
import { ManualClock, type Clock } from '../../engine/clock.ts';
import { loadConfig, type Config } from '../../engine/config.ts';
import { createEngine, type Engine } from '../../engine/engine.ts';
import { createLogger } from '../../engine/logger.ts';
import { createMetrics } from '../../engine/metrics.ts';
import { openPglite, openPostgres, type Database } from '../../engine/storage/database.ts';
import { copyPgliteTemplate, postgresTemplate } from './templates.ts';

export const environmentConfig: Config = loadConfig();
export const usesRealServices = Boolean(environmentConfig.databaseUrl);

export interface TestDatabase {
  database: Database;
  /** A URL another process can open (real Postgres only). */
  url: string | undefined;
  drop(): Promise<void>;
}

/** Copied PGlite data directories not dropped yet: removed when the process exits, however it ends a test. */
const pgliteDirectories = new Set<string>();
process.on('exit', () => {
  for (const directory of pgliteDirectories) rmSync(directory, { recursive: true, force: true });
});

function databaseUrlWithName(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A fresh database of its own: migrated (a copy of the run's template), or with `empty: true`
 * without a single table (for tests of the migrations themselves).
 */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  if (!environmentConfig.databaseUrl) {
    if (options.empty) {
      const database = await openPglite(undefined);
      return { database, url: undefined, drop: () => database.close() };
    }
    const directory = await copyPgliteTemplate();
    pgliteDirectories.add(directory);
    const database = await openPglite(directory);
    return {
      database,
      url: undefined,
      async drop() {
        await database.close();
        rmSync(directory, { recursive: true, force: true });
        pgliteDirectories.delete(directory);
      },
    };
  }
  const name = `cashloop_test_${randomBytes(6).toString('hex')}`;
  const template = options.empty ? undefined : await postgresTemplate(environmentConfig.databaseUrl);
  const admin = postgres(environmentConfig.databaseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(template ? `create database ${name} template ${template}` : `create database ${name}`);
  // Commits do not wait for their WAL to reach the disk: what a test sees is the same (visibility,
  // locks, constraints), only a crash of the machine's Postgres could lose the last commits, and no
  // test crashes it (test/trust-faults.test.ts restarts a Postgres of its own). Every connection
  // to this database, a spawned server's too, starts with the setting.
  await admin.unsafe(`alter database ${name} set synchronous_commit = off`);
  const url = databaseUrlWithName(environmentConfig.databaseUrl, name);
  const database = await openPostgres(url);
  return {
    database,
    url,
    async drop() {
      await database.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

export interface TestEngine {
  engine: Engine;
  clock: ManualClock;
  config: Config;
  databaseUrl: string | undefined;
  lockKeyPrefix: string;
  close(): Promise<void>;
}

/** An engine on its own fresh database, with a manual clock and quiet logs. */
export async function createTestEngine(options: { clock?: ManualClock; env?: Record<string, string> } = {}): Promise<TestEngine> {
  const testDatabase = await createTestDatabase();
  const clock = options.clock ?? new ManualClock('2026-03-01T12:00:00Z');
  const config = loadConfig({
    DATABASE_URL: testDatabase.url,
    REDIS_URL: environmentConfig.redisUrls?.join(','),
    CASHLOOP_MODE: 'sandbox',
    DATA_DIR: '/tmp/cashloop-test',
    LOG_LEVEL: 'error',
    // Every answer is checked against its route's declared response (the OpenAPI document's schemas).
    CASHLOOP_CHECK_RESPONSES: '1',
    // Suites sign up many people from 127.0.0.1; the rate-limit tests set the scale back to 1.
    CASHLOOP_RATE_LIMIT_SCALE: '1000',
    // Cheap argon2: engine/passwords.test.ts proves the standard cost once.
    CASHLOOP_PASSWORD_HASH_COST: 'test',
    // Image decoding at the API's own priority: on a busy machine the low one can starve a test's upload past its budget.
    CASHLOOP_IMAGE_DECODER_PRIORITY: 'normal',
    // The command path's safety net (assertOutsideCommand, argon2 counted inside commands) stays on in tests.
    CASHLOOP_COMMAND_SCOPE_CHECKS: '1',
    ...options.env,
  });
  const lockKeyPrefix = `cashloop-test:${randomBytes(4).toString('hex')}:`;
  const engine = await createEngine({
    config,
    clock: clock as Clock,
    logger: createLogger('error', { silent: true }),
    metrics: createMetrics(),
    database: testDatabase.database,
    lockKeyPrefix,
  });
  return {
    engine,
    clock,
    config,
    databaseUrl: testDatabase.url,
    lockKeyPrefix,
    async close() {
      await engine.close();
      await testDatabase.drop();
    },
  };
}

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}
