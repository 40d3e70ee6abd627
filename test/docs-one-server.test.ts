// Proves the docs pages share one server, as a reader pastes them into one running server, in any
// order, after any other page: test/docs-one-server/part-<n>.test.ts each run a share of the pages
// one after another against one server. The run's seed (CASHLOOP_TEST_SEED, printed by the runner;
// CASHLOOP_DOCS_SEED replays one) shuffles every page and deals them out, so each run pairs and
// orders the pages differently, and over runs every page follows every other on one server. This
// file proves the deal: every page in exactly one part, and every part has its file.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { oneServerPart, oneServerParts, oneServerSeed, root, runnablePages } from './support/docs-pages.ts';

const seed = oneServerSeed();

test(`each seed deals every runnable page to exactly one part, in a new order (CASHLOOP_DOCS_SEED=${seed})`, () => {
  const parts = Array.from({ length: oneServerParts }, (_, index) => oneServerPart(seed, index + 1, oneServerParts, { all: true }));
  assert.equal(parts.flat().sort(), runnablePages({ all: true }).sort());
  assert.ok(parts.every((part) => part.length > 0), 'no part is empty');
  const orders = new Set([1, 2, 3, 4, 5].map((other) => oneServerPart(other, 1, oneServerParts, { all: true }).join(',')));
  assert.ok(orders.size > 1, 'different seeds give different parts');
});

test('test/docs-one-server/ holds exactly one file per part', () => {
  const expected = Array.from({ length: oneServerParts }, (_, index) => `part-${index + 1}.test.ts`);
  for (const file of expected) assert.ok(existsSync(path.join(root, 'test/docs-one-server', file)), `test/docs-one-server/${file} is missing`);
  assert.equal(readdirSync(path.join(root, 'test/docs-one-server')).sort(), expected.sort());
});

test.run();
