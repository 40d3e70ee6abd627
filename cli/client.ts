// The CLI's HTTP client of the admin API: server URL, operator key, JSON in and out, and output
// either as JSON (--json) or as readable lines.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../engine/config.ts';

export const defaultUrl = 'http://127.0.0.1:8080';

export interface GlobalOptions {
  url?: string;
  operatorKey?: string;
  dataDir?: string;
  json?: boolean;
}

export class CliError extends Error {
  constructor(
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/** The operator key: --operator-key, then CASHLOOP_OPERATOR_KEY, then DATA_DIR/operator-key. */
export function resolveOperatorKey(options: GlobalOptions, env?: Record<string, string | undefined>): string {
  if (options.operatorKey) return options.operatorKey;
  const config = loadConfig(env);
  if (config.operatorKey) return config.operatorKey;
  const file = path.resolve(options.dataDir ?? config.dataDir, 'operator-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new CliError(`No operator key: pass --operator-key, set CASHLOOP_OPERATOR_KEY, or run where ${file} exists.`);
}

export interface AdminClient {
  request(method: string, requestPath: string, body?: Record<string, unknown>): Promise<any>;
}

export function adminClient(options: GlobalOptions, env?: Record<string, string | undefined>): AdminClient {
  const baseUrl = options.url ?? defaultUrl;
  return {
    async request(method, requestPath, body) {
      const key = resolveOperatorKey(options, env);
      let response: Response;
      try {
        response = await fetch(new URL(requestPath, baseUrl), {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
      } catch (error) {
        throw new CliError(`Cannot reach the Cashloop server at ${baseUrl} (${(error as Error).message}). Is it running? Use --url.`);
      }
      const text = await response.text();
      let parsed: any;
      try {
        parsed = text ? JSON.parse(text) : {};
      } catch {
        parsed = { raw: text };
      }
      if (!response.ok) {
        const details = parsed.invalid ? ` ${Object.entries(parsed.invalid).map(([field, message]) => `${field}: ${message}`).join('; ')}` : '';
        throw new CliError(`${response.status} ${parsed.error ?? 'error'}: ${parsed.error_description ?? text}${details}`, parsed);
      }
      return parsed;
    },
  };
}

/** The global options of the root program, seen from any subcommand. */
export function globalsOf(command: Command): GlobalOptions {
  return command.optsWithGlobals() as GlobalOptions;
}

export function print(options: GlobalOptions, value: unknown, lines: () => string[]): void {
  if (options.json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  else process.stdout.write(`${lines().join('\n')}\n`);
}

/** Reads a value: the flag if given, else a prompt on a terminal, else an error naming the flag. */
export async function valueOrPrompt(value: string | undefined, flag: string, message: string): Promise<string> {
  if (value !== undefined && value !== '') return value;
  if (!process.stdin.isTTY) throw new CliError(`Missing ${flag}.`);
  const { input } = await import('@inquirer/prompts');
  return input({ message, required: true });
}
