// Proves the docs pages share one server, as a reader pastes them into one running server: every
// page with runnable blocks runs, each in a fresh bash session, one after another against a single
// server, in a shuffled order (CASHLOOP_DOCS_SEED replays one). Pages use their own emails and phone
// numbers, and the server runs with CASHLOOP_RATE_LIMIT_SCALE as each page advises for a demo.
// test-timeout: 1200
import { test } from 'uvu';
import { assertPageRuns, runnablePages, startPageServer } from './support/docs-pages.ts';

/** A seeded shuffle (mulberry32), so a failing order can be replayed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const result = [...items];
  for (let index = result.length - 1; index > 0; index--) {
    const other = Math.floor(next() * (index + 1));
    [result[index], result[other]] = [result[other], result[index]];
  }
  return result;
}

const seed = Number(process.env.CASHLOOP_DOCS_SEED) || Math.floor(Math.random() * 2 ** 31);

test(`every page runs against one server, one after another (CASHLOOP_DOCS_SEED=${seed})`, async () => {
  const order = shuffled(runnablePages(), seed);
  const server = await startPageServer({ CASHLOOP_RATE_LIMIT_SCALE: '100' });
  try {
    for (const page of order) {
      try {
        const startedAt = Date.now();
        await assertPageRuns(page, server);
        console.log(`  ${page} ran (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);
      } catch (error) {
        (error as Error).message = `order ${order.join(', ')} (CASHLOOP_DOCS_SEED=${seed}):\n${(error as Error).message}`;
        throw error;
      }
    }
  } finally {
    await server.stop();
  }
});

test.run();
