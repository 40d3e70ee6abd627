// Proves which database errors the edge answers 503 (retry) rather than 500 (a bug).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isDatabaseUnavailable } from './database.ts';

test('a lost connection and shutdown or connection SQLSTATEs are unavailability; statement errors are not', () => {
  for (const code of ['CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'ECONNREFUSED', '57P01', '57P03', '08006']) assert.ok(isDatabaseUnavailable({ code }), code);
  for (const error of [{ code: '23505' }, { code: '40001' }, { code: 'UNDEFINED_VALUE' }, new Error('x'), null, undefined]) assert.not.ok(isDatabaseUnavailable(error), JSON.stringify(error));
});

test.run();
