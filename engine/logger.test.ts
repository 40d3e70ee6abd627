// Proves that a log line never carries a secret: sensitive keys are masked at the top and at any
// depth (inside objects, arrays and errors), while the allowed look-alikes (status_code, …) stay;
// and the two formats: JSON lines off a terminal, readable lines on one (progress redrawn in place).
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import winston from 'winston';
import { createLogger, progressField, redact, type LogFormat } from './logger.ts';

test('masks sensitive keys at any depth, inside arrays too, and keeps the allowed look-alikes', () => {
  const masked = redact({
    user: { name: 'ana', password: 'hunter2', nested: { access_token: 'abc', status_code: 401 } },
    attempts: [{ pin: '1234', currency_code: 'USD' }, 'plain'],
    count: 3,
  });
  assert.equal(masked, {
    user: { name: 'ana', password: '[redacted]', nested: { access_token: '[redacted]', status_code: 401 } },
    attempts: [{ pin: '[redacted]', currency_code: 'USD' }, 'plain'],
    count: 3,
  });
});

test('an error becomes its name, message and stack; scalars and deep values pass as they are', () => {
  const error = new TypeError('bad input');
  const masked = redact({ error }) as { error: { name: string; message: string; stack: string } };
  assert.is(masked.error.name, 'TypeError');
  assert.is(masked.error.message, 'bad input');
  assert.ok(masked.error.stack.includes('bad input'));
  assert.is(redact('text'), 'text');
  assert.is(redact(null), null);
});

test('a logger line is JSON with its top-level and nested secrets masked', () => {
  const logger = createLogger('info', { silent: false, format: 'json' });
  logger.clear();
  const stream = new PassThrough();
  let written = '';
  stream.on('data', (chunk: Buffer) => { written += chunk.toString(); });
  logger.add(new winston.transports.Stream({ stream }));
  logger.info('signed in', { authorization: 'Bearer xyz', request: { route_key: 'auth.signin', cookie: 'sid=1' } });
  const line = JSON.parse(written.trim()) as Record<string, unknown>;
  assert.is(line.message, 'signed in');
  assert.is(line.authorization, '[redacted]');
  assert.equal(line.request, { route_key: 'auth.signin', cookie: '[redacted]' });
  assert.not.ok(written.includes('xyz'));
  assert.not.ok(written.includes('sid=1'));
});

/** A logger writing to a stand-in stream that says whether it is a terminal. */
function capture(isTTY: boolean, format: LogFormat = 'auto') {
  let written = '';
  const logger = createLogger('info', { format, stream: { isTTY, write: (text: string) => (written += text) } });
  return { logger, written: () => written };
}

test('off a terminal (auto) every line is JSON, progress lines included, without the progress flag', () => {
  const { logger, written } = capture(false);
  logger.info('migration 1/2 0001_core.sql applied', { step: 1, [progressField]: true });
  logger.info('cashloop listening', { url: 'http://127.0.0.1:8080', token: 'secret-value' });
  const lines = written().trimEnd().split('\n').map((line) => JSON.parse(line));
  assert.is(lines.length, 2);
  assert.is(lines[0].step, 1);
  assert.not.ok(progressField in lines[0]);
  assert.is(lines[1].token, '[redacted]');
});

test('on a terminal (auto) lines are readable: time, level, message, a few fields; progress redrawn in place', () => {
  const { logger, written } = capture(true);
  logger.info('applying 2 of 2 database migrations (a first start takes a while)', { pending: 2, total: 2, [progressField]: true });
  logger.info('migration 1/2 0001_core.sql applied', { step: 1, [progressField]: true });
  logger.info('migrations applied', { migrations: 2, elapsed_ms: 120 });
  logger.info('request', { method: 'GET', path: '/healthz', status: 200, durationMs: 3, requestId: 'abc', route: 'health' });
  logger.warn('database unavailable', { reason: 'ECONNREFUSED', password: 'hunter2' });
  const text = written();
  assert.not.ok(text.includes('{'), text);
  assert.not.ok(text.includes('hunter2'));
  // The progress lines end without a newline and are cleared by the next line.
  assert.match(text, /^\d\d:\d\d:\d\d \x1b\[32minfo \x1b\[0m applying 2 of 2 database migrations \(a first start takes a while\)  pending=2 total=2\r\x1b\[2K/);
  const lines = text.replace(/\x1b\[\d+m/g, '').split(/\r\x1b\[2K|\n/).filter(Boolean);
  assert.equal(lines.map((line) => line.slice(9)), [
    'info  applying 2 of 2 database migrations (a first start takes a while)  pending=2 total=2',
    'info  migration 1/2 0001_core.sql applied  step=1',
    'info  migrations applied  migrations=2 elapsed_ms=120',
    'info  GET /healthz 200 3 ms',
    'warn  database unavailable  reason=ECONNREFUSED password=[redacted]',
  ]);
  assert.is(text.split('\n').length - 1, 3, 'one newline per lasting line, none after a progress line');
});

test('LOG_FORMAT=json on a terminal writes JSON; pretty off a terminal writes readable lines', () => {
  const json = capture(true, 'json');
  json.logger.info('cashloop listening', { url: 'http://127.0.0.1:8080' });
  assert.is(JSON.parse(json.written()).url, 'http://127.0.0.1:8080');
  const pretty = capture(false, 'pretty');
  pretty.logger.info('cashloop listening', { url: 'http://127.0.0.1:8080', mode: 'sandbox' });
  assert.match(pretty.written(), /info  cashloop listening on http:\/\/127\.0\.0\.1:8080 \(open http:\/\/127\.0\.0\.1:8080\/docs for the API reference\)  mode=sandbox\n$/);
});

test.run();
