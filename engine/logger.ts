// JSON-line logging. Secrets never reach a log line: sensitive keys are masked at any depth.
import winston from 'winston';

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

export function createLogger(level: string, options: { silent?: boolean } = {}): Logger {
  return winston.createLogger({
    level,
    silent: options.silent ?? false,
    format: winston.format.combine(winston.format.timestamp(), redactFormat(), winston.format.json()),
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'debug'] })],
  });
}
