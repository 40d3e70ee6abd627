// Proves the outbox's and sweeper's loop: it runs again after each run (a failed one too, reported),
// never overlaps two runs, and starts none after stop.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { periodicRun } from './periodic.ts';

const intervalMs = 5;
const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

test('runs again after each run, a failed one included, one at a time, and stops', async () => {
  let runs = 0;
  let running = 0;
  let overlapped = false;
  const failures: unknown[] = [];
  const loop = periodicRun(async () => {
    running++;
    overlapped ||= running > 1;
    runs++;
    await pause(intervalMs * 2);
    running--;
    if (runs === 1) throw new Error('first run fails');
  }, (error) => failures.push(error));
  loop.start(intervalMs);
  while (runs < 3) await pause(intervalMs);
  loop.stop();
  // A run counts itself as it starts, so one still under way at stop is already in runsAtStop.
  const runsAtStop = runs;
  await pause(intervalMs * 10);
  assert.is(runs, runsAtStop, 'no run starts after stop');
  assert.not.ok(overlapped, 'two runs overlapped');
  assert.is(failures.length, 1);
  assert.match(String(failures[0]), 'first run fails');
});

test.run();
