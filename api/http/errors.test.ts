// Proves every dependency or deadline outage maps to a 503 busy edge error (never a 500), and that a statement error or a bug maps to none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CommandTimeoutError } from '../../engine/actors/command.ts';
import { LockLostError, LockUnavailableError } from '../../engine/locks/lock.ts';
import { edgeErrors, outageOf } from './errors.ts';

/** An error as ioredis or redis-errors makes it: its class name is its name. */
function redisError(name: string, message: string): Error {
  return Object.assign(new Error(message), { name });
}

test('database, lock, Redis and deadline outages are 503 busy', () => {
  const outages: [unknown, string][] = [
    [new LockUnavailableError(['wallet:1']), 'lock_unavailable'],
    [new LockLostError(), 'lock_lost'],
    [new CommandTimeoutError('wallet.send', 20_000), 'command_deadline'],
    [{ code: '53300' }, 'database_unavailable'],
    [{ code: '25006' }, 'database_unavailable'],
    [{ code: '57P01' }, 'database_unavailable'],
    [{ code: 'ECONNREFUSED' }, 'database_unavailable'],
    [new Error('Connection is closed.'), 'lock_unavailable'],
    [new Error("Stream isn't writeable and enableOfflineQueue options is false"), 'lock_unavailable'],
    [redisError('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 20).'), 'lock_unavailable'],
    [redisError('ReplyError', 'LOADING Redis is loading the dataset in memory'), 'lock_unavailable'],
    [redisError('ReplyError', "READONLY You can't write against a read only replica."), 'lock_unavailable'],
  ];
  for (const [error, outage] of outages) {
    assert.is(outageOf(error), outage, String((error as { code?: string }).code ?? (error as Error).message));
    const mapping = edgeErrors[outageOf(error)!];
    assert.is(mapping.status, 503);
    assert.is(mapping.error, 'busy');
  }
});

test('statement errors, Redis command errors and bugs are not outages', () => {
  for (const error of [{ code: '23505' }, { code: '42703' }, redisError('ReplyError', 'WRONGTYPE Operation against a key holding the wrong kind of value'), new TypeError('x is undefined'), null, undefined, 'text']) {
    assert.is(outageOf(error), null, JSON.stringify(error));
  }
});

test.run();
