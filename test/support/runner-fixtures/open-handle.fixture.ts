// A test file that passes but leaves a timer running, so its process never exits (test/run.test.ts).
import { test } from 'uvu';

test('leaves an interval running', () => {
  setInterval(() => {}, 1000);
});

test.run();
