// Part 1 of the docs pages against one server: the run's seeded shuffle of every runnable page is
// dealt out among the parts, and this part's pages run one after another against one server
// (test/support/docs-pages.ts, docs/writing-docs.md). CASHLOOP_DOCS_SEED=<n> replays a run's split and order.
import { testPagesOnOneServer } from '../support/docs-pages.ts';

testPagesOnOneServer(1);
