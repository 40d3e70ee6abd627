// Proves that Redis keys are namespaced by database, so deployments sharing one Redis never share
// a lock or a rate-limit bucket.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { redisKeyPrefix } from './engine.ts';

test('the Redis key prefix names the database; the embedded default has the bare prefix', () => {
  assert.is(redisKeyPrefix('postgres://postgres@127.0.0.1:5432/cashloop_live'), 'cashloop:cashloop_live:');
  assert.is(redisKeyPrefix('postgres://postgres@db.example/other'), 'cashloop:other:');
  assert.is(redisKeyPrefix('postgres://postgres@127.0.0.1:5432'), 'cashloop:');
  assert.is(redisKeyPrefix(undefined), 'cashloop:');
});

test.run();
