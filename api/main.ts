// Starts the API server: config, engine (migrations applied), operator key, HTTP, background
// workers, and a graceful shutdown on SIGINT and SIGTERM.
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig, productionProblems, type Config } from '../engine/config.ts';
import { createEngine, type Engine } from '../engine/engine.ts';
import { openPglite, openPostgres } from '../engine/storage/database.ts';
import { createLogger } from '../engine/logger.ts';
import { operatorKeyFor } from './operator-key.ts';
import { shutdownGraceMs, startupConnectTimeoutMs, startupLockPollMs } from '../engine/limits.ts';
import { authenticatorsFor } from './authenticators.ts';
import { createApp } from './server.ts';
import { surviveOutageRejections } from './http/outage-rejections.ts';
import { attachBidirectional, type Bidirectional } from './feed/socket.ts';

/** Stops start-up with one plain line on stderr and a non-zero exit. */
function refuseToStart(message: string): never {
  process.stderr.write(`Cashloop cannot start: ${message}\n`);
  process.exit(1);
}

/** Resolves with the promise's value, or rejects with a StartupTimeout after timeoutMs. */
function withinStartupTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new StartupTimeout(what)), startupConnectTimeoutMs);
  });
  return Promise.race([promise, timedOut]).finally(() => clearTimeout(timer));
}

class StartupTimeout extends Error {}

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const problems = productionProblems(config);
  if (problems.length > 0) refuseToStart(`production mode cannot start: ${problems.join('; ')}`);

  // Only connecting is bounded in time; a first start's migrations may take longer.
  let engine: Engine;
  const logger = createLogger(config.logLevel, { format: config.logFormat });
  surviveOutageRejections(logger);
  try {
    const database = config.databaseUrl ? await withinStartupTimeout(openPostgres(config.databaseUrl, undefined, config), 'the database') : await openPglite(config.dataDir, logger);
    engine = await createEngine({ config, database, logger });
  } catch (error) {
    refuseToStart(describeStorageError(error, config));
  }
  if (config.redisUrls && !(await engine.ready())) {
    const ready = await withinStartupTimeout(waitForLocks(engine), 'Redis').catch(() => false);
    if (!ready) refuseToStart(`Redis does not answer at ${config.redisUrls.map(hostOf).join(', ')} (REDIS_URL); start it or fix REDIS_URL.`);
  }
  const operator = operatorKeyFor(config);
  const authenticators = authenticatorsFor(engine, operator.key);
  const server = createServer(createApp(engine, authenticators));
  const bidirectional = attachBidirectional(server, engine, authenticators);
  await listenOrRefuse(server, config);
  engine.startBackground();
  logListening(engine, config, server.address() as AddressInfo, operator.file);
  stopOnSignals(engine, server, bidirectional);
}

/** Listens on HOST:PORT, or refuses to start with one line saying why. */
async function listenOrRefuse(server: Server, config: Config): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, resolve);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    refuseToStart(
      code === 'EADDRINUSE'
        ? `port ${config.port} on ${config.host} is already in use (PORT, HOST).`
        : `cannot listen on ${config.host}:${config.port} (${(error as Error).message}).`,
    );
  }
}

/** The start-up line: where it listens, on what storage and locks, where messages and the operator key are. */
function logListening(engine: Engine, config: Config, address: AddressInfo, operatorKeyFile: string | null): void {
  engine.logger.info('cashloop listening', {
    url: `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${address.port}`,
    host: config.host,
    port: address.port,
    mode: config.mode,
    storage: engine.database.kind === 'postgres' ? `postgres ${hostOf(config.databaseUrl!)}` : `pglite ${path.resolve(config.dataDir, 'pglite')}`,
    locks: config.redisUrls ? `redis ${config.redisUrls.map(hostOf).join(', ')}` : 'in-process',
    messages: config.smtpUrl || config.smsWebhookUrl ? [config.smtpUrl ? 'smtp' : null, config.smsWebhookUrl ? 'sms webhook' : null].filter(Boolean).join(', ') : `files in ${path.resolve(config.dataDir, 'messages')}`,
    operatorKeySource: operatorKeyFile ?? 'CASHLOOP_OPERATOR_KEY',
  });
}

/** SIGINT and SIGTERM stop taking requests, finish those in flight (up to the grace period) and close the engine. */
function stopOnSignals(engine: Engine, server: Server, bidirectional: Bidirectional): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    engine.logger.info('shutting down', { signal });
    const forced = setTimeout(() => process.exit(1), shutdownGraceMs);
    forced.unref();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    bidirectional.close();
    server.closeAllConnections?.();
    await closed;
    await engine.close();
    clearTimeout(forced);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

/** host:port of a URL, never its credentials. */
function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || (parsed.protocol.startsWith('redis') ? '6379' : '5432')}${parsed.protocol.startsWith('postgres') ? parsed.pathname : ''}`;
  } catch {
    return '(unparsable URL)';
  }
}

async function waitForLocks(engine: Engine): Promise<boolean> {
  for (;;) {
    if (await engine.locks.ping()) return true;
    await new Promise((resolve) => setTimeout(resolve, startupLockPollMs));
  }
}

/** One line naming what is wrong with the database, from postgres.js's or Node's error. */
function describeStorageError(error: unknown, config: Config): string {
  const where = config.databaseUrl ? `the database at ${hostOf(config.databaseUrl)} (DATABASE_URL)` : `the embedded database in ${path.resolve(config.dataDir, 'pglite')} (DATA_DIR)`;
  if (error instanceof StartupTimeout) return `${where} did not answer within ${startupConnectTimeoutMs / 1000} s.`;
  const code = (error as { code?: string }).code;
  const message = (error as Error).message ?? String(error);
  switch (code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EHOSTUNREACH':
    case 'ETIMEDOUT':
    case 'CONNECT_TIMEOUT':
      return `cannot reach ${where}: ${code}. Is Postgres running?`;
    case '28P01':
    case '28000':
      return `${where} refused the credentials: ${message}. Check the user and password in DATABASE_URL.`;
    case '3D000':
      return `${where} does not exist: ${message}. Create it (createdb) or fix DATABASE_URL.`;
    case 'EACCES':
    case 'EROFS':
      return `cannot write ${where}: ${message}.`;
    default:
      return `${where} failed: ${message}${code ? ` (${code})` : ''}.`;
  }
}

await main();
