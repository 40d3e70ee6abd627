// The API under test: a separate child process started as `npm start` starts it (`node [its
// options] --import tsx api/main.ts`), with its environment, awaited on /readyz, and stopped with
// SIGTERM (the server's graceful path).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repositoryRoot, startChildServer, type ChildServer } from './child-server.ts';

export { freePort, repositoryRoot } from './child-server.ts';

export interface ApiProcess extends ChildServer {
  operatorKey: string;
}

/**
 * The node options of `npm start` in the checkout at `root` (its package.json's start script, `node
 * [options] --import tsx api/main.ts`): the bench starts the API as a user does, V8 flags included.
 */
export function startNodeOptions(root: string): string[] {
  const start: string = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts.start;
  const match = /^node((?: --[a-z0-9-]+(?:=\S+)?)*) --import tsx api\/main\.ts$/.exec(start);
  if (!match) throw new Error(`npm start is not "node [options] --import tsx api/main.ts": ${start}`);
  return match[1].split(' ').filter(Boolean);
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
  const nodeArguments = [...startNodeOptions(options.cwd ?? repositoryRoot), ...(options.nodeArguments ?? [])];
  const server = await startChildServer({ name: 'API', script: 'api/main.ts', env, readyPath: '/readyz', nodeArguments, cwd: options.cwd });
  return { ...server, operatorKey };
}

/** What a phase that stopped early notes in its result (the error's first lines, the API's last output) and logs. */
export function noteStoppedEarly(result: { notes: string[] }, api: ApiProcess | null, log: (message: string) => void, phase: string, error: unknown): void {
  result.notes.push(`stopped early: ${String((error as Error).stack ?? error).split('\n').slice(0, 4).join(' | ')}`);
  if (api) result.notes.push(`API process output (tail): ${api.output().slice(-2000)}`);
  log(`${phase} stopped early: ${String(error)}`);
}
