// Proves every walkthrough in README.md and docs/*.md pastes and works. Each page's ```sh and
// ```bash blocks run in order in one bash session (set -euo pipefail) from the repository root,
// against a server of its own, in test/docs-walkthroughs/<page>.test.ts: one file per page, so the
// runner runs pages in parallel (test/docs-one-server/ runs them against one server). This file
// proves the block finder, that every runnable page has its file, and that the real `npx cashloop`
// (which the pages' tests answer with `node cli/bin.js`, docs/writing-docs.md) runs this checkout's CLI.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pageTestFile, root, runnableBlocks, runnablePages } from './support/docs-pages.ts';

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

test('every page with runnable blocks has its own test file in test/docs-walkthroughs/, and every file there has its page', () => {
  const pages = runnablePages({ all: true });
  for (const page of pages) {
    const file = pageTestFile(page);
    assert.ok(existsSync(path.join(root, file)), `${page} has runnable blocks but no ${file}; add one like test/docs-walkthroughs/ledger.test.ts: testPage('${page}')`);
  }
  const expected = new Set(pages.map(pageTestFile));
  for (const file of readdirSync(path.join(root, 'test/docs-walkthroughs'))) {
    assert.ok(expected.has(`test/docs-walkthroughs/${file}`), `test/docs-walkthroughs/${file} names no page with runnable blocks`);
  }
});

test('the real `npx cashloop` (what a reader runs from a clone) runs this checkout\'s CLI', async () => {
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn('npx', ['cashloop', '--help'], { cwd: root, env: { ...process.env, npm_config_update_notifier: 'false' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.stderr.on('data', (chunk) => (text += chunk));
    child.on('close', (exit) => resolve({ code: exit, output: text }));
  });
  assert.is(code, 0, output);
  assert.match(output, /Usage: cashloop/);
});

test.run();
