// Builds an engine: opens storage (Postgres or embedded PGlite), applies migrations, chooses the
// lock service, and wires every domain service onto the one command path.
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { createLogger, progressField, type Logger } from './logger.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { createMemoryLocks } from './locks/memory.ts';
import type { LockService } from './locks/lock.ts';
import { openPglite, openPostgres, type Database } from './storage/database.ts';
import { migrate, type MigrationProgress } from './storage/migrate.ts';
import { setPasswordHashCost } from './passwords.ts';
import { commandDeadlineMs, idPermutationKeyBytes, outboxIntervalMs, readinessCheckTimeoutMs, sweeperIntervalMs } from './limits.ts';
import { createCommandRunner } from './actors/command.ts';
import { createSweeper } from './actors/sweeper.ts';
import { createOutbox } from './actors/outbox.ts';
import type { Core } from './core.ts';
import { createIdMinter, randomSecret } from './ids.ts';
import { installationSecret } from './storage/installation-store.ts';
import { createServices, type Services } from './services.ts';
import { createRateLimits, type RateLimits } from './ratelimits.ts';

export interface Engine extends Core {
  services: Services;
  /** Rate limits the HTTP edge applies (Redis-backed when Redis is configured). */
  rateLimits: RateLimits;
  /** Storage and locks both answer. */
  ready(): Promise<boolean>;
  /** Starts the sweeper and the outbox poller (the API server does; tests drive them by hand). */
  startBackground(options?: { sweeperIntervalMs?: number; outboxIntervalMs?: number }): void;
  close(): Promise<void>;
}

/**
 * What the HTTP edge may use of the engine: the domain services (without their core), config,
 * clock, metrics and rate limits. Never the database or the command runner: a route that needs a
 * transaction asks a service for the whole operation.
 */
export type EdgeEngine = Pick<Engine, 'config' | 'clock' | 'logger' | 'metrics' | 'rateLimits'> & { services: Omit<Services, 'core'> };

export interface EngineOptions {
  config: Config;
  clock?: Clock;
  logger?: Logger;
  metrics?: Metrics;
  /** An already-open database (tests); otherwise opened from config. */
  database?: Database;
  locks?: LockService;
  /** Key prefix for Redis lock and rate-limit keys; by default one per database (redisKeyPrefix). */
  lockKeyPrefix?: string;
}

/**
 * Redis keys are namespaced by the database they guard: deployments (and test runs) that share
 * one Redis but not one database never share a lock or a rate-limit bucket.
 */
export function redisKeyPrefix(databaseUrl: string | undefined): string {
  const name = databaseUrl ? decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) : '';
  return name ? `cashloop:${name}:` : 'cashloop:';
}

/**
 * A first start applies every migration: one log line before, and one per migration, so a long
 * first start is not silent. They are progress lines: a terminal redraws one line in place, and
 * the summary after them ('migrations applied') stays.
 */
export function migrationLog(logger: { info(message: string, meta?: object): unknown }): MigrationProgress {
  return {
    starting: (pending, total) => logger.info(`applying ${pending} of ${total} database migrations (a first start takes a while)`, { pending, total, [progressField]: true }),
    applied: (migration, step, pending, elapsedMs) => logger.info(`migration ${step}/${pending} ${migration.name} applied`, { migration: migration.name, step, pending, elapsed_ms: elapsedMs, [progressField]: true }),
  };
}

export async function createEngine(options: EngineOptions): Promise<Engine> {
  const { config } = options;
  setPasswordHashCost(config.passwordHashCost);
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel, { format: config.logFormat });
  const metrics = options.metrics ?? createMetrics({ defaultMetrics: true });
  const database = options.database ?? (config.databaseUrl ? await openPostgres(config.databaseUrl, undefined, config) : await openPglite(config.dataDir, logger));
  const migrationStartedMs = performance.now();
  const applied = await migrate(database.sql, undefined, migrationLog(logger));
  if (applied.length > 0) logger.info('migrations applied', { migrations: applied.length, elapsed_ms: Math.round(performance.now() - migrationStartedMs) });
  const keyPrefix = options.lockKeyPrefix ?? redisKeyPrefix(config.databaseUrl);
  // ioredis and Redlock load only when Redis is configured: a sandbox start does not pay for them.
  const redlock = !options.locks && config.redisUrls ? (await import('./locks/redlock.ts')).createRedlockLocks({ urls: config.redisUrls, keyPrefix, logger }) : null;
  const locks = options.locks ?? redlock ?? createMemoryLocks();
  const rateLimits = createRateLimits({ redis: redlock?.clients[0] ?? null, keyPrefix, scale: config.rateLimitScale, logger });
  const sql = database.sql;
  const ids = createIdMinter(await installationSecret(sql, 'id_permutation_key', randomSecret(idPermutationKeyBytes), clock.now()));
  const outbox = createOutbox({ sql, clock, logger, metrics });
  // A command lets its locks go by the request's deadline at the latest (a shorter CASHLOOP_REQUEST_DEADLINE_MS).
  const commands = createCommandRunner({ sql, locks, clock, metrics, ids, scopeChecks: config.commandScopeChecks, deadlineMs: Math.min(commandDeadlineMs, config.requestDeadlineMs), onCommitted: (ids) => outbox.kick(ids) });
  const sweeper = createSweeper({ sql, commands, clock, logger, metrics });
  const core: Core = { config, clock, logger, metrics, database, sql, locks, commands, sweeper, outbox, ids };
  const services = await createServices(core, { redis: redlock?.clients[0] ?? null, keyPrefix });

  return {
    ...core,
    services,
    rateLimits,
    async ready() {
      // Bounded: a database or Redis that does not answer counts as down within the timeout.
      const [databaseUp, locksUp] = await Promise.all([
        withinTimeout(sql`select 1`.then(() => true, () => false), readinessCheckTimeoutMs),
        withinTimeout(locks.ping(), readinessCheckTimeoutMs),
      ]);
      return databaseUp && locksUp;
    },
    startBackground(intervals = {}) {
      sweeper.start(intervals.sweeperIntervalMs ?? sweeperIntervalMs);
      outbox.start(intervals.outboxIntervalMs ?? outboxIntervalMs);
    },
    async close() {
      await services.feed.close();
      await sweeper.stop();
      await outbox.stop();
      await rateLimits.close();
      await locks.close();
      await database.close();
    },
  };
}

/** The check's answer, or false when it has not answered within timeoutMs. */
function withinTimeout(check: Promise<boolean>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  return Promise.race([check.catch(() => false), timedOut]).finally(() => clearTimeout(timer));
}
