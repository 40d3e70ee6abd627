// Proves the command path: transitions persist with a version fence, rejections change nothing,
// timers are delivered exactly once, and outbox effects are delivered after commit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reject } from './command.ts';
import { createTestEngine, type TestEngine } from '../../test/support/harness.ts';
import { counter } from '../../test/support/counter.ts';


let harness: TestEngine;

test.before(async () => {
  harness = await createTestEngine();
  harness.engine.sweeper.register('test_counter', async (unit, timer) => {
    await unit.load(counter, timer.actorId);
    unit.send(counter, timer.actorId, timer.event as never);
  });
});
test.after(async () => harness.close());

async function readCount(id: string): Promise<{ count: number; version: number; state: string }> {
  const rows = await harness.engine.sql<{ snapshot: { context: { count: number } }; version: number; state: string }[]>`
    select snapshot, version, state from actors where kind = 'test_counter' and id = ${id}`;
  return { count: rows[0].snapshot.context.count, version: rows[0].version, state: rows[0].state };
}

test('creates an actor and applies events with a rising version', async () => {
  const { commands } = harness.engine;
  await commands.run('counter.create', [{ kind: 'test_counter', id: 'a' }], async (unit) => {
    unit.create(counter, 'a', { start: 1 });
  });
  await commands.run('counter.add', [{ kind: 'test_counter', id: 'a' }], async (unit) => {
    await unit.load(counter, 'a');
    unit.send(counter, 'a', { type: 'counter.add', by: 2 });
  });
  assert.equal(await readCount('a'), { count: 3, version: 2, state: 'open' });
});

test('a rejected command changes nothing and answers with its value', async () => {
  const answer = await harness.engine.commands.run('counter.add', [{ kind: 'test_counter', id: 'a' }], async (unit) => {
    await unit.load(counter, 'a');
    unit.send(counter, 'a', { type: 'counter.add', by: 100 });
    unit.emit('test.effect', { n: 1 });
    return reject({ error: 'refused' as const });
  });
  assert.equal(answer, { error: 'refused' });
  assert.equal(await readCount('a'), { count: 3, version: 2, state: 'open' });
});

test('an event the machine does not take in its state is refused as null', async () => {
  const result = await harness.engine.commands.run('counter.close', [{ kind: 'test_counter', id: 'a' }], async (unit) => {
    await unit.load(counter, 'a');
    unit.send(counter, 'a', { type: 'counter.close' });
    return unit.send(counter, 'a', { type: 'counter.add', by: 1 });
  });
  assert.is(result, null);
  assert.equal(await readCount('a'), { count: 3, version: 3, state: 'closed' });
});

test('concurrent commands on one actor equal the sequential result', async () => {
  const { commands } = harness.engine;
  await commands.run('counter.create', [{ kind: 'test_counter', id: 'b' }], async (unit) => {
    unit.create(counter, 'b', { start: 0 });
  });
  await Promise.all(
    Array.from({ length: 30 }, (_, index) =>
      commands.run('counter.add', [{ kind: 'test_counter', id: 'b' }], async (unit) => {
        await unit.load(counter, 'b');
        unit.send(counter, 'b', { type: 'counter.add', by: index + 1 });
      }),
    ),
  );
  assert.equal(await readCount('b'), { count: 465, version: 31, state: 'open' });
});

test('a due timer is delivered exactly once, even when two sweeps race', async () => {
  const { commands, sweeper } = harness.engine;
  await commands.run('counter.create', [{ kind: 'test_counter', id: 'c' }], async (unit) => {
    unit.create(counter, 'c', { start: 0 });
    unit.schedule(counter, 'c', 'bump', new Date(unit.now.getTime() + 60_000), { type: 'counter.add', by: 5 });
  });
  assert.is(await sweeper.runOnce(), 0);
  harness.clock.advance(60_000);
  const [first, second] = await Promise.all([sweeper.runOnce(), sweeper.runOnce()]);
  assert.is(first + second >= 1, true);
  assert.is(await sweeper.runOnce(), 0);
  assert.equal((await readCount('c')).count, 5);
});

test('outbox effects run after commit and failures are retried with backoff', async () => {
  const { commands, outbox } = harness.engine;
  const seen: number[] = [];
  let failuresLeft = 1;
  outbox.register('test.effect', async (payload: { n: number }) => {
    if (failuresLeft-- > 0) throw new Error('transport down');
    seen.push(payload.n);
  });
  await commands.run('counter.add', [{ kind: 'test_counter', id: 'a' }], async (unit) => {
    unit.emit('test.effect', { n: 7 });
  });
  await outbox.drain();
  assert.equal(seen, []);
  harness.clock.advance(5_000);
  await outbox.drain();
  assert.equal(seen, [7]);
});

test.run();
