// A test file that spawns a process and then never ends (test/run.test.ts).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { test } from 'uvu';

test('spawns a process and hangs', async () => {
  spawn('sleep', [process.env.FIXTURE_MARKER!], { stdio: 'ignore' });
  writeFileSync(process.env.FIXTURE_SPAWNED!, 'spawned');
  await new Promise(() => setInterval(() => {}, 1000));
});

test.run();
