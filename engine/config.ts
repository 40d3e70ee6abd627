// The environment, parsed once by one schema and frozen. Nothing else reads process.env.
import { z } from 'zod';
import { databaseIdleInTransactionTimeoutMs, databaseStatementTimeoutMs, feedIdleCloseMs, requestDeadlineMs } from './limits.ts';

const redisUrlList = z
  .string()
  .transform((text) => text.split(',').map((part) => part.trim()).filter(Boolean))
  .pipe(z.array(z.string().regex(/^rediss?:\/\//, 'each Redis URL must start with redis:// or rediss://')).min(1));

const configSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    // Loopback unless asked: sandbox mode reveals codes and /metrics is open (docker-compose sets 0.0.0.0).
    HOST: z.string().default('127.0.0.1'),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must start with postgres:// or postgresql://')
      .optional(),
    REDIS_URL: redisUrlList.optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    CASHLOOP_MODE: z.enum(['sandbox', 'production']).default('sandbox'),
    CASHLOOP_OPERATOR_KEY: z.string().min(16, 'CASHLOOP_OPERATOR_KEY must be at least 16 characters').optional(),
    CASHLOOP_PUBLIC_URL: z.string().url().optional(),
    LOG_LEVEL: z.enum(['error', 'warn', 'info', 'debug']).default('info'),
    // auto: readable lines when the log stream (stderr) is a terminal, JSON lines otherwise.
    LOG_FORMAT: z.enum(['auto', 'json', 'pretty'], { message: 'LOG_FORMAT must be auto, json or pretty' }).default('auto'),
    SMTP_URL: z.string().regex(/^smtps?:\/\//).optional(),
    SMTP_FROM: z.string().default('Cashloop <no-reply@cashloop.local>'),
    SMS_WEBHOOK_URL: z.string().url().optional(),
    RECAPTCHA_SITE_KEY: z.string().min(1).optional(),
    RECAPTCHA_SECRET: z.string().min(1).optional(),
    RECAPTCHA_VERIFY_URL: z.string().url().default('https://www.google.com/recaptcha/api/siteverify'),
    BANK_CONNECTOR_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(0),
    BANK_CONNECTOR_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0),
    CASHLOOP_CHECK_RESPONSES: z.enum(['0', '1', 'false', 'true']).default('0'),
    CASHLOOP_COMMAND_SCOPE_CHECKS: z.enum(['0', '1', 'false', 'true']).optional(),
    NODE_ENV: z.string().optional(),
    CASHLOOP_RATE_LIMIT_SCALE: z.coerce.number().positive().max(1_000_000).default(1),
    CASHLOOP_WEBHOOK_ALLOW_PRIVATE: z.enum(['0', '1', 'false', 'true']).default('0'),
    CASHLOOP_FEED_IDLE_MS: z.coerce.number().int().min(1).max(feedIdleCloseMs).default(feedIdleCloseMs),
    CASHLOOP_PASSWORD_HASH_COST: z.enum(['standard', 'test']).default('standard'),
    CASHLOOP_IMAGE_DECODER_PRIORITY: z.enum(['low', 'normal']).default('low'),
    CASHLOOP_REQUEST_DEADLINE_MS: z.coerce.number().int().min(100).max(600_000).default(requestDeadlineMs),
    CASHLOOP_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(databaseStatementTimeoutMs),
    CASHLOOP_IDLE_IN_TRANSACTION_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(databaseIdleInTransactionTimeoutMs),
  })
  .superRefine((config, context) => {
    if (Boolean(config.RECAPTCHA_SITE_KEY) !== Boolean(config.RECAPTCHA_SECRET)) {
      context.addIssue({ code: 'custom', path: ['RECAPTCHA_SECRET'], message: 'RECAPTCHA_SITE_KEY and RECAPTCHA_SECRET go together' });
    }
    if (config.CASHLOOP_MODE === 'production' && (!config.DATABASE_URL || !config.REDIS_URL)) {
      context.addIssue({
        code: 'custom',
        path: ['CASHLOOP_MODE'],
        message: 'production mode needs DATABASE_URL and REDIS_URL',
      });
    }
  });

export type Config = Readonly<{
  port: number;
  host: string;
  databaseUrl: string | undefined;
  redisUrls: readonly string[] | undefined;
  dataDir: string;
  mode: 'sandbox' | 'production';
  operatorKey: string | undefined;
  /** Base of links the service hands out; CASHLOOP_PUBLIC_URL, else this server's own address and port. */
  publicUrl: string;
  /** CASHLOOP_PUBLIC_URL was set: the URL to show even when a request reached us another way. */
  publicUrlConfigured: boolean;
  logLevel: 'error' | 'warn' | 'info' | 'debug';
  logFormat: 'auto' | 'json' | 'pretty';
  smtpUrl: string | undefined;
  smtpFrom: string;
  smsWebhookUrl: string | undefined;
  recaptchaSiteKey: string | undefined;
  recaptchaSecret: string | undefined;
  recaptchaVerifyUrl: string;
  bankConnectorDelayMs: number;
  bankConnectorFailureRate: number;
  /** Check every 200 answer against its route's declared response schema (tests turn it on; off by default). */
  checkResponses: boolean;
  /**
   * The command path's development safety net: each command body runs in an AsyncLocalStorage
   * scope, so network calls and argon2 inside a command are refused or counted
   * (assertOutsideCommand, currentCommand). CASHLOOP_COMMAND_SCOPE_CHECKS; by default on, and off
   * when NODE_ENV=production or CASHLOOP_MODE=production (the scope costs CPU on every promise).
   */
  commandScopeChecks: boolean;
  /** Multiplies every rate limit of engine/limits.ts (1 in production; the test harness raises it). */
  rateLimitScale: number;
  /** The image decoder process's CPU priority: 'low' (production: uploads take CPU the sends leave) or 'normal' (test suites on busy machines). */
  imageDecoderPriority: 'low' | 'normal';
  /** Webhook deliveries may go to loopback and private addresses over http (always so in sandbox). */
  webhookAllowPrivate: boolean;
  /** A bidirectional connection without a feed subscription closes after this long idle (feedIdleCloseMs; tests shorten it). */
  feedIdleMs: number;
  /**
   * argon2's cost for new hashes: 'standard', or 'test' (cheap, for test suites; never in
   * production mode, which always hashes at the standard cost). Verification reads the cost from the hash.
   */
  passwordHashCost: 'standard' | 'test';
  /** A request that has not begun its answer within this answers 503 busy with Retry-After (requestDeadlineMs). */
  requestDeadlineMs: number;
  /** Postgres sessions' statement_timeout (databaseStatementTimeoutMs; migrations run without it). */
  statementTimeoutMs: number;
  /** Postgres sessions' idle_in_transaction_session_timeout (databaseIdleInTransactionTimeoutMs). */
  idleInTransactionTimeoutMs: number;
}>;

export class ConfigError extends Error {}

/** Parses an environment (process.env by default) into a frozen Config, or throws ConfigError. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'config'}: ${issue.message}`);
    throw new ConfigError(`Cashloop cannot start: ${problems.join('; ')}`);
  }
  const value = parsed.data;
  return Object.freeze({
    port: value.PORT,
    host: value.HOST,
    databaseUrl: value.DATABASE_URL,
    redisUrls: value.REDIS_URL ? Object.freeze([...value.REDIS_URL]) : undefined,
    dataDir: value.DATA_DIR,
    mode: value.CASHLOOP_MODE,
    operatorKey: value.CASHLOOP_OPERATOR_KEY,
    publicUrlConfigured: value.CASHLOOP_PUBLIC_URL !== undefined,
    publicUrl: (value.CASHLOOP_PUBLIC_URL ?? `http://${['0.0.0.0', '::'].includes(value.HOST) ? '127.0.0.1' : value.HOST.includes(':') ? `[${value.HOST}]` : value.HOST}:${value.PORT}`).replace(/\/+$/, ''),
    logLevel: value.LOG_LEVEL,
    logFormat: value.LOG_FORMAT,
    smtpUrl: value.SMTP_URL,
    smtpFrom: value.SMTP_FROM,
    smsWebhookUrl: value.SMS_WEBHOOK_URL,
    recaptchaSiteKey: value.RECAPTCHA_SITE_KEY,
    recaptchaSecret: value.RECAPTCHA_SECRET,
    recaptchaVerifyUrl: value.RECAPTCHA_VERIFY_URL,
    bankConnectorDelayMs: value.BANK_CONNECTOR_DELAY_MS,
    bankConnectorFailureRate: value.BANK_CONNECTOR_FAILURE_RATE,
    checkResponses: value.CASHLOOP_CHECK_RESPONSES === '1' || value.CASHLOOP_CHECK_RESPONSES === 'true',
    commandScopeChecks: value.CASHLOOP_COMMAND_SCOPE_CHECKS === undefined
      ? value.NODE_ENV !== 'production' && value.CASHLOOP_MODE !== 'production'
      : value.CASHLOOP_COMMAND_SCOPE_CHECKS === '1' || value.CASHLOOP_COMMAND_SCOPE_CHECKS === 'true',
    rateLimitScale: value.CASHLOOP_RATE_LIMIT_SCALE,
    imageDecoderPriority: value.CASHLOOP_IMAGE_DECODER_PRIORITY,
    webhookAllowPrivate: value.CASHLOOP_WEBHOOK_ALLOW_PRIVATE === '1' || value.CASHLOOP_WEBHOOK_ALLOW_PRIVATE === 'true',
    feedIdleMs: value.CASHLOOP_FEED_IDLE_MS,
    passwordHashCost: value.CASHLOOP_MODE === 'production' ? 'standard' : value.CASHLOOP_PASSWORD_HASH_COST,
    requestDeadlineMs: value.CASHLOOP_REQUEST_DEADLINE_MS,
    statementTimeoutMs: value.CASHLOOP_STATEMENT_TIMEOUT_MS,
    idleInTransactionTimeoutMs: value.CASHLOOP_IDLE_IN_TRANSACTION_TIMEOUT_MS,
  });
}

/**
 * What keeps a configuration from running in production, one line each (empty when nothing does, and
 * always in sandbox). Pure, so the start-up code can print the list and refuse to start.
 */
export function productionProblems(config: Config): string[] {
  if (config.mode !== 'production') return [];
  const problems: string[] = [];
  if (!config.recaptchaSecret || !config.recaptchaSiteKey) {
    problems.push('production needs RECAPTCHA_SITE_KEY and RECAPTCHA_SECRET: without a captcha verifier no captcha can pass, and anyone could lock an owner out of sign-in');
  }
  if (!config.smtpUrl) problems.push('production needs SMTP_URL: without it email codes would be written to DATA_DIR in clear');
  if (!config.smsWebhookUrl) problems.push('production needs SMS_WEBHOOK_URL: without it SMS codes would be written to DATA_DIR in clear');
  return problems;
}
