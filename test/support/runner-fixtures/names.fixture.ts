// A test file with named tests and a skipped one (test/run.test.ts).
import { test } from 'uvu';

test('alpha one', () => {});
test('beta two', () => {});
test.skip('gamma skipped', () => {});

test.run();
