// Proves hole 8 of issue 8 is closed: comparing a guess with the operator key (and every secret) takes the same path whatever the guess's length, and /metrics answers only with the operator key.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { constantTimeEqual } from '../engine/ids.ts';
import { startTestServer, testOperatorKey, type TestServer, assertRefused } from './support/http.ts';

const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');

let server: TestServer;
test.before(async () => {
  server = await startTestServer();
});
test.after(async () => server.close());

test('a guess of any length is compared in full, as two 32-byte digests', () => {
  const original = crypto.timingSafeEqual;
  const compared: number[] = [];
  // Watch the comparison itself: syncBuiltinESMExports carries the wrapper to every import of it.
  crypto.timingSafeEqual = ((left: NodeJS.ArrayBufferView, right: NodeJS.ArrayBufferView) => {
    compared.push(left.byteLength, right.byteLength);
    return original(left, right);
  }) as typeof crypto.timingSafeEqual;
  syncBuiltinESMExports();
  try {
    for (const guess of ['', 'x', testOperatorKey.slice(0, -1), testOperatorKey, `${testOperatorKey}x`, 'y'.repeat(4096)]) {
      assert.is(constantTimeEqual(guess, testOperatorKey), guess === testOperatorKey);
    }
  } finally {
    crypto.timingSafeEqual = original;
    syncBuiltinESMExports();
  }
  assert.equal(compared, Array(12).fill(32), 'every guess reaches one comparison of equal-length digests');
});

test('/metrics answers 401 without the operator key or with a wrong one, and the metrics with it', async () => {
  const none = await server.client.get('/metrics');
  assertRefused(none, 401, 'invalid_token');
  assert.not.ok(none.text.includes('cashloop_http_requests_total'));
  const wrong = await server.client.get('/metrics', undefined, { headers: { authorization: 'Bearer not-the-operator-key-at-all' } });
  assertRefused(wrong, 401, 'invalid_token');
  const right = await server.client.get('/metrics', undefined, { auth: { operator: true } });
  assert.is(right.status, 200);
  assert.ok(right.text.includes('cashloop_http_requests_total'));
});

test.run();
