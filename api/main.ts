// Starts the API server: config, engine (migrations applied), operator key, HTTP, background
// workers, and a graceful shutdown on SIGINT and SIGTERM.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { ConfigError, loadConfig, productionProblems, type Config } from '../engine/config.ts';
import { createEngine } from '../engine/engine.ts';
import { randomSecret } from '../engine/ids.ts';
import { operatorKeyBytes } from '../engine/limits.ts';
import { authenticatorsFor } from './authenticators.ts';
import { createApp } from './server.ts';

const shutdownGraceMs = 10_000;

/** The operator key: CASHLOOP_OPERATOR_KEY, or one created at first start in DATA_DIR/operator-key (mode 0600). */
export function operatorKeyFor(config: Config): { key: string; file: string | null } {
  if (config.operatorKey) return { key: config.operatorKey, file: null };
  const file = path.resolve(config.dataDir, 'operator-key');
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), file };
  mkdirSync(path.dirname(file), { recursive: true });
  const key = randomSecret(operatorKeyBytes);
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return { key, file };
}

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
  if (problems.length > 0) {
    process.stderr.write(`Cashloop cannot start in production:\n${problems.map((problem) => `  ${problem}`).join('\n')}\n`);
    process.exit(1);
  }
  const engine = await createEngine({ config });
  const operator = operatorKeyFor(config);
  const app = createApp(engine, authenticatorsFor(engine, operator.key));
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  engine.startBackground();
  engine.logger.info('cashloop listening', {
    url: `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${config.port}`,
    storage: engine.database.kind,
    locks: config.redisUrls ? 'redis' : 'in-process',
    operatorKeySource: operator.file ?? 'CASHLOOP_OPERATOR_KEY',
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    engine.logger.info('shutting down', { signal });
    const forced = setTimeout(() => process.exit(1), shutdownGraceMs);
    forced.unref();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections?.();
    await engine.close();
    clearTimeout(forced);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

await main();
