// Preloaded by test/run.ts (`npm test -- <file> -t <name>`): runs only the tests whose name contains
// CASHLOOP_TEST_NAME and counts the others as skipped. uvu 0.5.6 has no such option, so a module
// hook edits its runner as it loads (the text below is checked: a changed uvu fails loudly).
import { register } from 'node:module';

if (process.env.CASHLOOP_TEST_NAME) register('./uvu-name-filter-hooks.mjs', import.meta.url);
