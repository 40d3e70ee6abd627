// Proves the Redlock quorum under faults, on Redis servers the test starts itself (never the
// machine's shared ones): with three Redis nodes one node down changes nothing, and two down answer
// 503 busy and change nothing; with the quorum back the same dedup_id runs. (The kill -9 and
// restart story is test/trust-faults.test.ts; both share test/support/faults.ts.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designateIssuer, fund, individual, ledgerFingerprint } from './ledger-support.ts';
import { usesRealServices } from './support/harness.ts';
import * as faults from './support/faults.ts';
import { redisPorts, send, setUpFaults, startApi, startRedis, stopRedis, tearDownFaults, tokenFor } from './support/faults.ts';

// A Postgres and three Redis servers: the quorum.
test.before(() => setUpFaults(3));
test.after(tearDownFaults);

// Faults need Redis servers to stop: on the embedded run the test is skipped, not passed.
const faultTest = usesRealServices ? test : test.skip;

faultTest('three Redis nodes: one down, sends go on; two down, sends answer 503 busy and change nothing', async () => {
  if (faults.setupError) throw faults.setupError;
  await designateIssuer(faults.engine!);
  const [pat, sam] = [await individual(faults.engine!), await individual(faults.engine!)];
  await fund(faults.engine!, pat, '10.00');
  const token = await tokenFor(pat);
  const quorum = redisPorts.map((port) => `redis://127.0.0.1:${port}`).join(',');
  const api = await startApi(quorum);
  const body = (dedup: string) => ({ recipient_uid: `service:${sam}`, amounts: '0-USD-1.00', dedup_id: dedup });
  assert.is((await send(api.url, token, body('q-1'))).status, 200);
  await stopRedis(redisPorts[0]);
  const oneDown = await send(api.url, token, body('q-2'));
  assert.is(oneDown.status, 200, 'a quorum of two of three still locks');
  await stopRedis(redisPorts[1]);
  const before = await ledgerFingerprint(faults.engine!);
  const twoDown = await send(api.url, token, body('q-3'), 60_000);
  assert.is(twoDown.status, 503);
  assert.is(twoDown.error, 'busy');
  assert.is(await ledgerFingerprint(faults.engine!), before, 'a refused send changes nothing');
  await startRedis(redisPorts[0]);
  const back = await send(api.url, token, body('q-3'), 60_000);
  assert.is(back.status, 200, 'with the quorum back the same dedup_id runs');
});

test.run();
