// Proves the cost of argon2 hashes: the standard cost (the only one in production mode) once, here,
// while test suites hash at the cheap test cost; a hash of either cost verifies under the other.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from './config.ts';
import { hashSecret, setPasswordHashCost, verifySecret } from './passwords.ts';

test('the standard cost is argon2id with 19 MiB, 2 passes, 1 lane, and its hash verifies', async () => {
  setPasswordHashCost('standard');
  const stored = await hashSecret('correct horse');
  assert.match(stored, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  assert.ok(await verifySecret(stored, 'correct horse'));
  assert.not.ok(await verifySecret(stored, 'wrong horse'));
  setPasswordHashCost('test');
  assert.ok(await verifySecret(stored, 'correct horse'), 'a standard hash still verifies under the test cost');
});

test('the test cost is cheap, and its hashes verify under the standard cost', async () => {
  setPasswordHashCost('test');
  const stored = await hashSecret('123456');
  assert.match(stored, /^\$argon2id\$v=19\$m=64,t=1,p=1\$/);
  setPasswordHashCost('standard');
  assert.ok(await verifySecret(stored, '123456'));
  assert.not.ok(await verifySecret(stored, '123457'));
});

test('the config chooses the cost; production mode always hashes at the standard cost', () => {
  assert.is(loadConfig({}).passwordHashCost, 'standard');
  assert.is(loadConfig({ CASHLOOP_PASSWORD_HASH_COST: 'test' }).passwordHashCost, 'test');
  const production = { CASHLOOP_MODE: 'production', DATABASE_URL: 'postgres://db/x', REDIS_URL: 'redis://r', CASHLOOP_PASSWORD_HASH_COST: 'test' };
  assert.is(loadConfig(production).passwordHashCost, 'standard');
  assert.throws(() => loadConfig({ CASHLOOP_PASSWORD_HASH_COST: 'none' }));
});

test.run();
