// A test file that prints the seed the runner handed it (test/run.test.ts).
import { test } from 'uvu';

test('prints its seed', () => {
  console.log(`seed seen: ${process.env.CASHLOOP_TEST_SEED} (process ${process.pid})`);
});

test.run();
