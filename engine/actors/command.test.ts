// Proves the command path: transitions persist with a version fence, rejections change nothing,
// timers are delivered exactly once, and outbox effects are delivered after commit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertOutsideCommand, CommandTimeoutError, createCommandRunner, currentCommand, type SharedRowLocks, type Unit } from './command.ts';
import { loadConfig } from '../config.ts';
import { createMemoryLocks } from '../locks/memory.ts';
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

/** The rejection the tests declare. */
type Refused = { ok: false; error: 'refused' };
/** True when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

test('a rejected command changes nothing and answers with its value, typed as the body declared', async () => {
  const answer = await harness.engine.commands.run('counter.add', [{ kind: 'test_counter', id: 'a' }], async (unit: Unit<Refused>) => {
    await unit.load(counter, 'a');
    unit.send(counter, 'a', { type: 'counter.add', by: 100 });
    unit.emit('test.effect', { n: 1 });
    if (unit.now.getTime() > 0) return unit.reject({ ok: false, error: 'refused' });
    return { ok: true as const, count: 103 };
  });
  // The answer is the body's result or its declared rejection, nothing wider, so no cast is needed.
  const typed: Equal<typeof answer, { ok: true; count: number } | Refused> = true;
  assert.is(typed, true);
  assert.equal(answer, { ok: false, error: 'refused' });
  if (!answer.ok) assert.is(answer.error, 'refused');
  assert.equal(await readCount('a'), { count: 3, version: 2, state: 'open' });
});

test('a body rejects only with what it declares (checked by tsc); at run time the rejection still rolls back', async () => {
  const { commands } = harness.engine;
  const outside = await commands.run('counter.add', [{ kind: 'test_counter', id: 'a' }], async (unit: Unit<Refused>) => {
    await unit.load(counter, 'a');
    unit.send(counter, 'a', { type: 'counter.add', by: 100 });
    // @ts-expect-error: 'other' is not among the body's declared rejections.
    return unit.reject({ ok: false, error: 'other' });
  });
  const undeclared = await commands.run('counter.add', [{ kind: 'test_counter', id: 'a' }], async (unit) => {
    await unit.load(counter, 'a');
    unit.send(counter, 'a', { type: 'counter.add', by: 100 });
    // @ts-expect-error: a body that declares no rejections cannot reject.
    return unit.reject({ ok: false, error: 'refused' });
  });
  assert.equal([outside, undeclared], [{ ok: false, error: 'other' }, { ok: false, error: 'refused' }]);
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

async function createCounters(ids: string[]): Promise<void> {
  for (const id of ids) {
    await harness.engine.commands.run('counter.create', [{ kind: 'test_counter', id }], async (unit) => {
      unit.create(counter, id, { start: 0 });
    });
  }
}

/** Counter rows as the shared rows of the tests; records each take. */
const taken: string[][] = [];
const counterRows = {
  table: 'actors',
  async take(tx: Parameters<SharedRowLocks['take']>[0], keys: readonly string[]) {
    taken.push([...keys]);
    await tx`select 1 from actors where kind = 'test_counter' and id = any(${[...keys]}::text[]) order by id for update`;
  },
};

/** A shared command that adds `by` to a counter and answers with its transaction's id. */
function sharedAdd(id: string, by: number, after?: (unit: Unit<Refused>) => Promise<void>) {
  return harness.engine.commands.run('counter.add', [{ kind: 'test_counter', id }], async (unit: Unit<Refused>) => {
    await unit.load(counter, id);
    unit.send(counter, id, { type: 'counter.add', by });
    const [row] = await unit.tx<{ txid: string }[]>`select txid_current()::text as txid`;
    await after?.(unit);
    return row.txid;
  }, { shared: { rows: counterRows, keys: [id] } });
}

test('shared commands that hold their locks together commit in one transaction, each with its own answer', async () => {
  await createCounters(['s1', 's2', 's3']);
  taken.length = 0;
  const txids = await Promise.all([sharedAdd('s3', 3), sharedAdd('s1', 1), sharedAdd('s2', 2)]);
  assert.is(new Set(txids).size, 1);
  // The shared rows of all three were taken once, in one ordered statement, before the bodies ran.
  assert.equal(taken, [['s1', 's2', 's3']]);
  assert.equal(await readCount('s1'), { count: 1, version: 2, state: 'open' });
  assert.equal(await readCount('s2'), { count: 2, version: 2, state: 'open' });
  assert.equal(await readCount('s3'), { count: 3, version: 2, state: 'open' });
});

test('a rejection or a failure in a shared transaction changes only its own command', async () => {
  await createCounters(['r1', 'r2', 'r3']);
  const answers = await Promise.allSettled([
    sharedAdd('r1', 10),
    sharedAdd('r2', 20, async (unit) => unit.reject({ ok: false, error: 'refused' })),
    sharedAdd('r3', 30, async (unit) => {
      await unit.tx`select 1/0`;
    }),
  ]);
  assert.is(answers[0].status, 'fulfilled');
  assert.equal(answers[1], { status: 'fulfilled', value: { ok: false, error: 'refused' } });
  assert.is(answers[2].status, 'rejected');
  assert.match(String((answers[2] as PromiseRejectedResult).reason), /division by zero/);
  assert.equal(await readCount('r1'), { count: 10, version: 2, state: 'open' });
  assert.equal(await readCount('r2'), { count: 0, version: 1, state: 'open' });
  assert.equal(await readCount('r3'), { count: 0, version: 1, state: 'open' });
});

test('after-commit listeners hear every commit, alone or shared, with or without effects, once it is visible; a rejection is not heard', async () => {
  await createCounters(['l1', 'l2']);
  const heard: { command: string | undefined; counts: Promise<number[]> }[] = [];
  harness.engine.commands.onCommit(() => {
    heard.push({ command: currentCommand(), counts: Promise.all(['l1', 'l2'].map(async (id) => (await readCount(id)).count)) });
  });
  await harness.engine.commands.run('counter.add', [{ kind: 'test_counter', id: 'l1' }], async (unit) => {
    await unit.load(counter, 'l1');
    unit.send(counter, 'l1', { type: 'counter.add', by: 5 });
  });
  assert.is(heard.length, 1, 'a command with no effects is heard');
  assert.is(heard[0].command, undefined, 'outside the command');
  assert.equal(await heard[0].counts, [5, 0], 'its commit is visible when heard');
  await Promise.all([sharedAdd('l1', 1), sharedAdd('l2', 2)]);
  assert.ok(heard.length >= 2, 'a shared transaction is heard');
  assert.equal(await heard[heard.length - 1].counts, [6, 2]);
  const before = heard.length;
  await sharedAdd('l2', 7, async (unit) => unit.reject({ ok: false, error: 'refused' }));
  assert.is(heard.length, before, 'a rejected command commits nothing and is not heard');
});

test('shared commands on one actor never share a transaction and equal the sequential result', async () => {
  await createCounters(['h']);
  const txids = await Promise.all(Array.from({ length: 10 }, (_, index) => sharedAdd('h', index + 1)));
  assert.is(new Set(txids).size, 10);
  assert.equal(await readCount('h'), { count: 55, version: 11, state: 'open' });
});

test('a command body knows it runs inside a command; slow work there is refused; the lock hold is measured', async () => {
  const { commands, metrics } = harness.engine;
  assert.is(currentCommand(), undefined);
  assert.not.throws(() => assertOutsideCommand('a network call'));
  const inside = await commands.run('counter.inside', [{ kind: 'test_counter', id: 'inside' }], async () => {
    await Promise.resolve();
    let refused = '';
    try {
      assertOutsideCommand('a network call');
    } catch (error) {
      refused = (error as Error).message;
    }
    return { name: currentCommand(), refused };
  });
  assert.is(inside.name, 'counter.inside');
  assert.match(inside.refused, /a network call inside command counter\.inside/);
  assert.is(currentCommand(), undefined);
  const held = await metrics.registry.getSingleMetricAsString('cashloop_command_lock_held_seconds');
  assert.match(held, /cashloop_command_lock_held_seconds_count\{command="counter.inside"\} 1/);
});

test('with scope checks off (production) a body runs without the command scope; the setting is on unless production', async () => {
  const { sql, clock, metrics } = harness.engine;
  const runner = createCommandRunner({ sql, locks: createMemoryLocks(), clock, metrics, scopeChecks: false });
  const inside = await runner.run('counter.unscoped', [{ kind: 'test_counter', id: 'unscoped' }], async () => {
    await Promise.resolve();
    assertOutsideCommand('a network call');
    return currentCommand();
  });
  assert.is(inside, undefined);
  assert.is(loadConfig({}).commandScopeChecks, true);
  assert.is(loadConfig({ NODE_ENV: 'production' }).commandScopeChecks, false);
  assert.is(loadConfig({ NODE_ENV: 'production', CASHLOOP_COMMAND_SCOPE_CHECKS: '1' }).commandScopeChecks, true);
  assert.is(loadConfig({ CASHLOOP_COMMAND_SCOPE_CHECKS: 'false' }).commandScopeChecks, false);
});

test('a command stuck past its deadline answers CommandTimeoutError and lets its locks go', async () => {
  const { sql, clock, metrics } = harness.engine;
  const runner = createCommandRunner({ sql, locks: createMemoryLocks(), clock, metrics, deadlineMs: 200 });
  const lock = [{ kind: 'test_counter', id: 'stuck' }];
  let release = () => {};
  const stuck = runner.run('counter.stuck', lock, () => new Promise<void>((resolve) => (release = resolve)));
  const next = runner.run('counter.next', lock, async () => 'ran');
  let refused: unknown;
  await stuck.catch((error) => (refused = error));
  assert.instance(refused, CommandTimeoutError);
  // (On PGlite, one session at a time: the stuck transaction must end before the next can run.)
  release();
  assert.is(await next, 'ran', 'the next command on the same lock runs once the stuck one gave its locks up');
});

test.run();
