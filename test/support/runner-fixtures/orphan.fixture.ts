// A test file that leaves a process running when it ends (test/run.test.ts).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { test } from 'uvu';

test('spawns a process and leaves it running', () => {
  spawn('sleep', [process.env.FIXTURE_MARKER!], { stdio: 'ignore' }).unref();
  writeFileSync(process.env.FIXTURE_SPAWNED!, 'spawned');
});

test.run();
