// A test file that prints the id of the process it runs in (test/run.test.ts).
import { test } from 'uvu';

test('prints its process id', () => {
  console.log(`file process: ${process.pid}`);
});

test.run();
