// A test file whose process dies under it, from an error no test catches (test/run.test.ts).
import { test } from 'uvu';

test('crashes its process', async () => {
  console.log(`crashing process: ${process.pid}`);
  await new Promise(() => setImmediate(() => {
    throw new Error('the crash fixture throws outside any test');
  }));
});

test.run();
