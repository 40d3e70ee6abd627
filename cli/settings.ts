// Where the CLI finds its server and operator key. The CLI reads its environment here only, and
// never imports engine/ (it is a client of the HTTP API, and must start fast).
//
// Server URL: --url, then CASHLOOP_URL, then http://127.0.0.1:$PORT (the port the server uses),
// then `cashloop config set url`, then http://127.0.0.1:8080.
// Operator key: --operator-key, then CASHLOOP_OPERATOR_KEY, then `cashloop config set
// operator-key`, then the operator-key file in --data-dir, DATA_DIR, the configured data-dir or ./data.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';

export type Environment = Record<string, string | undefined>;

/** The process's environment: the one place the CLI reads it (tests pass their own). */
export function processEnvironment(): Environment {
  return process.env;
}

export const defaultPort = 8080;

export interface GlobalOptions {
  url?: string;
  operatorKey?: string;
  dataDir?: string;
  json?: boolean;
}

/** What `cashloop config set` may store. */
export const configKeys = ['url', 'operator-key', 'data-dir'] as const;
export type ConfigKey = (typeof configKeys)[number];
export type StoredConfig = Partial<Record<ConfigKey, string>>;

export class CliError extends Error {
  constructor(
    message: string,
    /** A short code for --json output: the server's `error`, or the CLI's own. */
    readonly code = 'cli_error',
    readonly details: { status?: number; invalid?: Record<string, string>; body?: unknown } = {},
  ) {
    super(message);
  }
}

/** $XDG_CONFIG_HOME/cashloop/config.json, or ~/.config/cashloop/config.json. */
export function configFile(env: Environment): string {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || homedir(), '.config');
  return path.join(base, 'cashloop', 'config.json');
}

export function readStoredConfig(env: Environment): StoredConfig {
  const file = configFile(env);
  if (!existsSync(file)) return {};
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    return Object.fromEntries(configKeys.flatMap((key) => (typeof parsed[key] === 'string' ? [[key, parsed[key]]] : []))) as StoredConfig;
  } catch {
    throw new CliError(`The config file ${file} is not valid JSON; fix or delete it.`, 'config_invalid');
  }
}

/**
 * Writes the config as a new file readable by its owner only (0600), then renames it over the old
 * one: the file may hold an operator key, and an existing file's own mode (say 0644, made by hand or
 * by an older version) never carries over, nor is the key ever in a file others may read.
 */
export function writeStoredConfig(env: Environment, config: StoredConfig): string {
  const file = configFile(env);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  return file;
}

export interface ResolvedServer {
  url: string;
  /** Where the URL came from, for messages: "--url", "CASHLOOP_URL", "PORT=9000", ... */
  source: string;
}

export function resolveServer(options: GlobalOptions, env: Environment): ResolvedServer {
  if (options.url) return { url: options.url, source: '--url' };
  if (env.CASHLOOP_URL) return { url: env.CASHLOOP_URL, source: 'CASHLOOP_URL' };
  if (env.PORT) return { url: `http://127.0.0.1:${env.PORT}`, source: `PORT=${env.PORT}` };
  const stored = readStoredConfig(env);
  if (stored.url) return { url: stored.url, source: `url in ${configFile(env)}` };
  return { url: `http://127.0.0.1:${defaultPort}`, source: 'the default' };
}

export function resolveOperatorKey(options: GlobalOptions, env: Environment): string {
  if (options.operatorKey) return options.operatorKey;
  if (env.CASHLOOP_OPERATOR_KEY) return env.CASHLOOP_OPERATOR_KEY;
  const stored = readStoredConfig(env);
  if (stored['operator-key']) return stored['operator-key'];
  const dataDir = options.dataDir ?? env.DATA_DIR ?? stored['data-dir'] ?? './data';
  const file = path.resolve(dataDir, 'operator-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new CliError(`No operator key: pass --operator-key, set CASHLOOP_OPERATOR_KEY, or run where ${file} exists (or pass --data-dir).`, 'no_operator_key');
}
