// docs/brand-cash.md's shell blocks run in order against a fresh server of its own (test/support/docs-pages.ts,
// docs/writing-docs.md). One file per page, so pages run in parallel.
import { testPage } from '../support/docs-pages.ts';

testPage('docs/brand-cash.md');
