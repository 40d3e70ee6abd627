// The API under test: a separate child process (`node --import tsx api/main.ts`), started with
// its environment, awaited on /readyz, and stopped with SIGTERM (the server's graceful path).
import { randomBytes } from 'node:crypto';
import { startChildServer, type ChildServer } from './child-server.ts';

export { freePort, repositoryRoot } from './child-server.ts';

export interface ApiProcess extends ChildServer {
  operatorKey: string;
}

/** `cwd`: another checkout of the project (the gate comparison runs an older commit beside this one). */
/** `env`: settings added to (or overriding) the bench's own, for an A/B of one setting. */
export async function startApiProcess(options: { databaseUrl?: string; redisUrl?: string; dataDir: string; nodeArguments?: string[]; cwd?: string; env?: Record<string, string> }): Promise<ApiProcess> {
  const operatorKey = `bench-operator-${randomBytes(16).toString('hex')}`;
  const env: Record<string, string> = {
    DATA_DIR: options.dataDir,
    LOG_LEVEL: 'error',
    CASHLOOP_MODE: 'sandbox',
    CASHLOOP_OPERATOR_KEY: operatorKey,
    NODE_ENV: 'production',
    // Setup signs up hundreds of wallets from one address; the benchmarks measure sends, not limits.
    CASHLOOP_RATE_LIMIT_SCALE: '1000',
  };
  if (options.databaseUrl) env.DATABASE_URL = options.databaseUrl;
  if (options.redisUrl) env.REDIS_URL = options.redisUrl;
  Object.assign(env, options.env ?? {});
  const server = await startChildServer({ name: 'API', script: 'api/main.ts', env, readyPath: '/readyz', nodeArguments: options.nodeArguments, cwd: options.cwd });
  return { ...server, operatorKey };
}
