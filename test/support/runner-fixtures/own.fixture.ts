// A test file that asks for a process of its own (test/run.test.ts).
// test-process: own
import { test } from 'uvu';

test('prints its process id', () => {
  console.log(`own process: ${process.pid}`);
});

test.run();
