// Proves every walkthrough in README.md and docs/*.md pastes and works: each page's ```sh and
// ```bash blocks run in order in one bash session (set -euo pipefail) from the repository root,
// against a server of its own started on a random port with a fresh data directory (and, on real
// Postgres, a fresh database). Pages run in parallel, one per core; test/docs-one-server.test.ts
// runs them all against one server. Blocks fenced ```sh no-run are shown, not run
// (docs/writing-docs.md). A page that drifts from the code fails with its name, block number and output.
// test-timeout: 900
import { availableParallelism } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertPageRuns, runnableBlocks, runnablePages, startPageServer } from './support/docs-pages.ts';

test('the block finder runs sh and bash blocks and skips no-run and other languages', () => {
  const page = ['```sh', 'echo one', '```', '```sh no-run', 'npm start', '```', '```json', '{}', '```', '```bash', 'echo two', '```'].join('\n');
  assert.equal(
    runnableBlocks(page).map((block) => [block.number, block.line, block.code]),
    [
      [1, 1, 'echo one'],
      [2, 10, 'echo two'],
    ],
  );
});

/** Each page against a fresh server of its own; settles with its failure (or nothing). */
async function runAlone(page: string): Promise<unknown> {
  const server = await startPageServer();
  try {
    await assertPageRuns(page, server);
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await server.stop();
  }
}

// uvu runs tests one after another: the pages start together (a few at a time) and each test awaits its own.
const pages = runnablePages();
const outcomes = new Map<string, Promise<unknown>>();
const concurrency = Number(process.env.CASHLOOP_DOCS_CONCURRENCY) || availableParallelism();
test.before(() => {
  const queue = [...pages];
  const waiting = new Map<string, (outcome: unknown) => void>();
  for (const page of pages) outcomes.set(page, new Promise((resolve) => waiting.set(page, resolve)));
  const worker = async () => {
    for (let page = queue.shift(); page; page = queue.shift()) waiting.get(page)!(await runAlone(page));
  };
  for (let index = 0; index < concurrency; index++) void worker();
});

for (const page of pages) {
  test(`${page}: its shell blocks run in order against a fresh server`, async () => {
    const failure = await outcomes.get(page);
    if (failure) throw failure;
  });
}

test.run();
