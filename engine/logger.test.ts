// Proves that a log line never carries a secret: sensitive keys are masked at the top and at any
// depth (inside objects, arrays and errors), while the allowed look-alikes (status_code, …) stay.
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import winston from 'winston';
import { createLogger, redact } from './logger.ts';

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
  const logger = createLogger('info', { silent: false });
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

test.run();
