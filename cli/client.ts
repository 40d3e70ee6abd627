// The CLI's side of the API: a typed client (cli/api/client.ts) for the server the settings
// resolve, errors turned into plain words, and output either as JSON (--json) or readable lines.
import type { Command } from 'commander';
import { cashloopClient, type CashloopClient } from './api/client.ts';
import { CliError, resolveOperatorKey, resolveServer, type Environment, type GlobalOptions } from './settings.ts';

export { CliError, type GlobalOptions } from './settings.ts';

/** What a call answered: the typed body when the document describes it, otherwise any JSON. */
export type Answered<Data> = [NonNullable<Data>] extends [never] ? any : NonNullable<Data>;

/** Words for the codes the server puts in `invalid`; context carries what the command sent. */
async function plainFieldMessage(field: string, message: string, context: CallContext): Promise<string> {
  switch (message) {
    case 'too_precise': {
      if (!context.currency) return 'too many decimal places for the currency';
      // engine/money.ts is pure (no imports); loaded only on this error path.
      const { currencyScale } = await import('../engine/money.ts');
      const scale = currencyScale(context.currency);
      return `too many decimal places for ${context.currency} (${scale} allowed)`;
    }
    case 'not_positive':
      return 'must be more than zero';
    case 'invalid_amount':
      return 'is not a decimal amount such as 12.50';
    case 'invalid_currency':
      return 'is not an ISO 4217 currency';
    default:
      return /^[a-z_]+$/.test(message) ? message.replace(/_/g, ' ') : message;
  }
}

export interface CallContext {
  /** The currency the command sent, to explain amount errors. */
  currency?: string;
}

/** Turns an error answer into a CliError whose message a person can read. */
async function answerError(response: Response, body: unknown, context: CallContext): Promise<CliError> {
  const parsed = (body && typeof body === 'object' ? body : {}) as { error?: string; error_description?: string; invalid?: Record<string, string> };
  const code = parsed.error ?? `http_${response.status}`;
  if (parsed.invalid && Object.keys(parsed.invalid).length > 0) {
    const parts = await Promise.all(Object.entries(parsed.invalid).map(async ([field, message]) => `${field}: ${await plainFieldMessage(field, message, context)}`));
    return new CliError(parts.join('; '), code, { status: response.status, invalid: parsed.invalid, body });
  }
  const description = parsed.error_description ?? (typeof body === 'string' && body ? body : `the server answered ${response.status}`);
  return new CliError(description, code, { status: response.status, body });
}

export interface OperatorApi {
  client: CashloopClient;
  /** Awaits a typed call; an error answer or an unreachable server becomes a CliError. */
  call<Data>(pending: Promise<{ data?: Data; error?: unknown; response: Response }>, context?: CallContext): Promise<Answered<Data>>;
}

export function operatorApi(options: GlobalOptions, env: Environment): OperatorApi {
  return apiWithBearer(options, env, resolveOperatorKey(options, env));
}

/** The API as a profile sees it: calls carry that profile's access token instead of the operator key. */
export function memberApi(options: GlobalOptions, env: Environment, accessToken: string): OperatorApi {
  return apiWithBearer(options, env, accessToken);
}

function apiWithBearer(options: GlobalOptions, env: Environment, bearer: string): OperatorApi {
  const server = resolveServer(options, env);
  const client = cashloopClient({ baseUrl: server.url, bearer });
  return {
    client,
    async call(pending, context = {}) {
      let result: Awaited<typeof pending>;
      try {
        result = await pending;
      } catch (error) {
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new CliError(
          `Cannot reach the Cashloop server at ${server.url} (chosen from ${server.source}): ${cause?.code ?? cause?.message ?? (error as Error).message}. Is it running? Pass --url or set CASHLOOP_URL.`,
          'unreachable',
        );
      }
      if (!result.response.ok) throw await answerError(result.response, result.error, context);
      return (result.data ?? {}) as never;
    },
  };
}

/** The global options of the root program, seen from any subcommand. */
/** A comma-separated option value as a list, blanks dropped (`--types a, b` -> ['a', 'b']). */
export function commaList(value: string): string[] {
  return String(value).split(',').map((part) => part.trim()).filter(Boolean);
}

export function globalsOf(command: Command): GlobalOptions {
  return command.optsWithGlobals() as GlobalOptions;
}

export function print(options: GlobalOptions, value: unknown, lines: () => string[]): void {
  if (options.json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  else process.stdout.write(`${lines().join('\n')}\n`);
}

/** Rows under a header, each column as wide as its widest cell (numbers right-aligned). */
export function table(header: readonly string[], rows: readonly (readonly unknown[])[], options: { rightAligned?: readonly number[] } = {}): string[] {
  const cells = [header, ...rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '' : String(cell))))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const right = new Set(options.rightAligned ?? []);
  return cells.map((row) =>
    row
      .map((cell, column) => (right.has(column) ? cell.padStart(widths[column]) : column === row.length - 1 ? cell : cell.padEnd(widths[column])))
      .join('  ')
      .trimEnd(),
  );
}

/** Label/value lines with the labels padded to one width. */
export function fields(pairs: readonly (readonly [string, unknown])[]): string[] {
  const width = Math.max(...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${label.padEnd(width)}  ${Array.isArray(value) ? value.join(', ') || '(none)' : value === null || value === undefined || value === '' ? '' : String(value)}`.trimEnd());
}

/** Reads a value: the flag if given, else a prompt on a terminal, else an error naming the flag. */
export async function valueOrPrompt(value: string | undefined, flag: string, message: string): Promise<string> {
  if (value !== undefined && value !== '') return value;
  if (!process.stdin.isTTY) throw new CliError(`Missing ${flag}.`, 'missing_option');
  const { input } = await import('@inquirer/prompts');
  return input({ message, required: true });
}
