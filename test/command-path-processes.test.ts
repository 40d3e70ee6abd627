// Proves the command path across processes on real Postgres and Redis: 50 concurrent commands
// on one actor from each of two processes equal the sequential result, and a command whose
// Redis lock expired mid-way cannot commit.
import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LockLostError } from '../engine/locks/lock.ts';
import { createRedlockLocks } from '../engine/locks/redlock.ts';
import { createCommandRunner } from '../engine/actors/command.ts';
import { createMetrics } from '../engine/metrics.ts';
import { counter } from './support/counter.ts';
import { createTestEngine, environmentConfig, usesRealServices, type TestEngine } from './support/harness.ts';

let harness: TestEngine;
test.before(async () => {
  if (usesRealServices) harness = await createTestEngine();
});
test.after(async () => harness?.close());

async function readCounter(id: string): Promise<{ count: number; version: number }> {
  const rows = await harness.engine.sql<{ snapshot: { context: { count: number } }; version: number }[]>`
    select snapshot, version from actors where kind = ${counter.kind} and id = ${id}`;
  return { count: rows[0].snapshot.context.count, version: rows[0].version };
}

function runWorker(actorId: string, count: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/support/command-worker.ts', harness.databaseUrl!, environmentConfig.redisUrls!.join(','), harness.lockKeyPrefix, actorId, String(count)],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`worker exited ${code}: ${output}`))));
  });
}

// Embedded PGlite serves one process and its in-process lock never expires: these stories are
// skipped (counted as skipped) on the embedded run and run on real Postgres and Redis.
const realServicesTest = usesRealServices ? test : test.skip;

realServicesTest('two processes, 50 concurrent commands each on one actor, equal the sequential result', async () => {
  await harness.engine.commands.run('counter.create', [{ kind: counter.kind, id: 'shared' }], async (unit) => {
    unit.create(counter, 'shared', { start: 0 });
  });
  const outputs = await Promise.all([runWorker('shared', 50), runWorker('shared', 50)]);
  assert.ok(outputs.every((output) => output.includes('done')));
  assert.equal(await readCounter('shared'), { count: 100, version: 101 });
});

realServicesTest('a command whose lock expired mid-way cannot commit; the next holder wins', async () => {
  const { engine } = harness;
  await engine.commands.run('counter.create', [{ kind: counter.kind, id: 'expiring' }], async (unit) => {
    unit.create(counter, 'expiring', { start: 0 });
  });
  const prefix = `${harness.lockKeyPrefix}expiry:`;
  // Two lock services, as two processes would have.
  const shortLocks = createRedlockLocks({ urls: environmentConfig.redisUrls!, keyPrefix: prefix, ttlMs: 400 });
  const otherLocks = createRedlockLocks({ urls: environmentConfig.redisUrls!, keyPrefix: prefix, ttlMs: 400 });
  const runner = createCommandRunner({ sql: engine.sql, locks: shortLocks, clock: engine.clock, metrics: createMetrics() });
  const otherRunner = createCommandRunner({ sql: engine.sql, locks: otherLocks, clock: engine.clock, metrics: createMetrics() });
  let release!: () => void;
  const slowBodyStarted = new Promise<void>((resolve) => (release = resolve));
  const slow = runner.run('counter.add', [{ kind: counter.kind, id: 'expiring' }], async (unit) => {
    await unit.load(counter, 'expiring');
    unit.send(counter, 'expiring', { type: 'counter.add', by: 1000 });
    release();
    await new Promise((resolve) => setTimeout(resolve, 1200));
  });
  await slowBodyStarted;
  // The lock vanishes (as when it expires), so the slow holder cannot extend it.
  await shortLocks.clients[0].del(`${prefix}lock:${counter.kind}:expiring`);
  const fast = otherRunner.run('counter.add', [{ kind: counter.kind, id: 'expiring' }], async (unit) => {
    await unit.load(counter, 'expiring');
    unit.send(counter, 'expiring', { type: 'counter.add', by: 1 });
  });
  try {
    const [slowResult, fastResult] = await Promise.allSettled([slow, fast]);
    assert.is(slowResult.status, 'rejected');
    assert.ok((slowResult as PromiseRejectedResult).reason instanceof LockLostError);
    assert.is(fastResult.status, 'fulfilled');
    assert.equal(await readCounter('expiring'), { count: 1, version: 2 });
  } finally {
    await shortLocks.close();
    await otherLocks.close();
  }
});

test.run();
