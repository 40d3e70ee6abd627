// Logging: JSON lines for machines, or, on a terminal, one readable line per event (time, level,
// message, the few fields that matter). Secrets never reach a log line: sensitive keys are masked
// at any depth, in both formats.
import winston from 'winston';
import Transport from 'winston-transport';
import { logFieldCharsMax, logReadableFieldsMax } from './limits.ts';

const sensitiveKey = /pass(word)?|pin|code|secret|token|authorization|cookie|captcha|pan|key$/i;
const allowedKeys = new Set(['code_length', 'status_code', 'error_code', 'currency_code', 'route_key']);

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  const copy: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    copy[key] = sensitiveKey.test(key) && !allowedKeys.has(key) ? '[redacted]' : redact(inner, depth + 1);
  }
  return copy;
}

const redactFormat = winston.format((info) => {
  for (const key of Object.keys(info)) {
    if (key === 'level' || key === 'message') continue;
    const value = (info as Record<string, unknown>)[key];
    (info as Record<string, unknown>)[key] = sensitiveKey.test(key) && !allowedKeys.has(key) ? '[redacted]' : redact(value);
  }
  return info;
});

export type Logger = winston.Logger;

/** LOG_FORMAT: `auto` is readable lines when the log stream is a terminal, JSON otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/** A stream logs go to: stderr, or a test's stand-in. */
export interface LogStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/**
 * A line meant to be replaced by the next one on a terminal (a progress count): logged with
 * `{ [progressField]: true }`. JSON output drops the flag and keeps the line.
 */
export const progressField = 'progress';

// What a readable line shows after its message, per message; other lines show their scalar fields.
const readableFields: Record<string, readonly string[]> = {
  'cashloop listening': ['mode', 'storage', 'locks', 'messages', 'operatorKeySource'],
};
const levelColors: Record<string, string> = { error: '\x1b[31m', warn: '\x1b[33m', info: '\x1b[32m', debug: '\x1b[90m' };

function fieldText(value: unknown): string {
  const text = typeof value === 'string' ? (/[\s"=]/.test(value) ? JSON.stringify(value) : value) : JSON.stringify(value);
  return text.length > logFieldCharsMax ? `${text.slice(0, logFieldCharsMax - 1)}…` : text;
}

/** One readable line: `12:04:05 info  message  key=value …` (a request: method, path, status, time). */
export function readableLine(info: Record<string, unknown>, colors: boolean): string {
  const time = typeof info.timestamp === 'string' ? info.timestamp.slice(11, 19) : new Date().toISOString().slice(11, 19);
  const level = String(info.level);
  const shownLevel = colors ? `${levelColors[level] ?? ''}${level.padEnd(5)}\x1b[0m` : level.padEnd(5);
  const message = String(info.message);
  if (message === 'request') return `${time} ${shownLevel} ${info.method} ${info.path} ${info.status} ${info.durationMs} ms`;
  const headline = message === 'cashloop listening' && typeof info.url === 'string' ? `cashloop listening on ${info.url} (open ${info.url}/docs for the API reference)` : message;
  const chosen = readableFields[message]
    ?? Object.keys(info).filter((key) => !['level', 'message', 'timestamp', progressField].includes(key) && typeof info[key] !== 'object').slice(0, logReadableFieldsMax);
  const extra = chosen.filter((key) => info[key] !== undefined).map((key) => `${key}=${fieldText(info[key])}`);
  const error = info.error && typeof info.error === 'object' ? ` error=${fieldText((info.error as { message?: unknown }).message ?? info.error)}` : '';
  return `${time} ${shownLevel} ${headline}${extra.length > 0 ? `  ${extra.join(' ')}` : ''}${error}`;
}

const messageKey = Symbol.for('message');

/** Writes each formatted line; on a terminal a progress line is redrawn in place until the next line. */
class LineTransport extends Transport {
  private progressShown = false;

  constructor(private readonly stream: LogStream, private readonly inPlace: boolean) {
    super();
  }

  override log(info: Record<string | symbol, unknown>, done: () => void): void {
    const line = String(info[messageKey]);
    if (!this.inPlace) {
      this.stream.write(`${line}\n`);
      return done();
    }
    const clear = this.progressShown ? '\r\x1b[2K' : '';
    this.progressShown = info[progressField] === true;
    this.stream.write(this.progressShown ? `${clear}${line}` : `${clear}${line}\n`);
    done();
  }
}

const readableFormat = winston.format((info, options) => {
  (info as Record<symbol, unknown>)[messageKey] = readableLine(info as Record<string, unknown>, (options as { colors?: boolean }).colors === true);
  return info;
});

const dropProgressFormat = winston.format((info) => {
  delete (info as Record<string, unknown>)[progressField];
  return info;
});

export function createLogger(level: string, options: { silent?: boolean; format?: LogFormat; stream?: LogStream } = {}): Logger {
  const stream = options.stream ?? process.stderr;
  const format = options.format ?? 'auto';
  const readable = format === 'pretty' || (format === 'auto' && stream.isTTY === true);
  return winston.createLogger({
    level,
    silent: options.silent ?? false,
    format: readable
      ? winston.format.combine(winston.format.timestamp(), redactFormat(), readableFormat({ colors: stream.isTTY === true }))
      : winston.format.combine(winston.format.timestamp(), redactFormat(), dropProgressFormat(), winston.format.json()),
    transports: [new LineTransport(stream, readable)],
  });
}
