// The docs pages as tests (docs/writing-docs.md): finds each page's runnable shell blocks, starts a
// server for pages to run against (on a migrated copy of the database template, so it starts in
// seconds), and runs a page's blocks in order in one bash session (set -euo pipefail) from the
// repository root, timing each block. Used by test/docs-walkthroughs/<page>.test.ts (testPage: one
// file per page, each against its own server, so the runner runs pages in parallel) and
// test/docs-one-server/part-<n>.test.ts (testPagesOnOneServer: pages against one server).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../engine/config.ts';
import type { TestDatabase } from './harness.ts';
import { seedPgliteDataDir, testScratchRoot } from './templates.ts';

export const root = path.resolve(import.meta.dirname, '../..');

export interface ShellBlock {
  /** 1-based among the page's runnable blocks. */
  number: number;
  line: number;
  code: string;
}

/** The runnable shell blocks of a Markdown page: ```sh or ```bash, not marked no-run. */
export function runnableBlocks(markdown: string): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const fence = /^```(\S*)\s*(.*)$/.exec(lines[index]);
    if (!fence) continue;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !/^```\s*$/.test(lines[index]); index++) body.push(lines[index]);
    const runnable = (fence[1] === 'sh' || fence[1] === 'bash') && !/\bno-run\b/.test(fence[2]);
    if (runnable) blocks.push({ number: blocks.length + 1, line: start + 1, code: body.join('\n') });
  }
  return blocks;
}

/** README.md and docs/*.md; CASHLOOP_DOCS_PAGE=<substring>[,<substring>…] narrows the run while writing a page (unless all). */
export function pages({ all = false } = {}): string[] {
  const docs = readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`);
  const only = all ? undefined : process.env.CASHLOOP_DOCS_PAGE?.split(',');
  return ['README.md', ...docs].filter((page) => !only || only.some((part) => page.includes(part)));
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * A directory holding an `npx` for the pages' bash sessions: `npx cashloop …` runs this checkout's
 * CLI as `node cli/bin.js …` (what npx runs too, without npx's own 1.5 s of resolving the package
 * on every call); anything else goes to the real npx. test/docs-walkthroughs.test.ts runs the real
 * `npx cashloop` once, so the route a reader takes stays tested.
 */
function npxShim(scratch: string): string {
  const realNpx = spawnSync('bash', ['-c', 'command -v npx'], { encoding: 'utf8' }).stdout.trim() || 'npx';
  const directory = path.join(scratch, 'bin');
  mkdirSync(directory);
  const shim = path.join(directory, 'npx');
  writeFileSync(
    shim,
    [
      '#!/usr/bin/env bash',
      '# test/support/docs-pages.ts: `npx cashloop ...` is the checkout\'s CLI, run directly.',
      `if [ "\${1:-}" = cashloop ]; then shift; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(root, 'cli/bin.js'))} "$@"; fi`,
      `exec ${JSON.stringify(realNpx)} "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(shim, 0o755);
  return directory;
}

export interface PageServer {
  env: Record<string, string>;
  scratch: string;
  log(): string;
  stop(): Promise<void>;
}

/** A server for pages, on a random port; serverEnv adds to its environment (e.g. CASHLOOP_RATE_LIMIT_SCALE). */
export async function startPageServer(serverEnvExtra: Record<string, string> = {}): Promise<PageServer> {
  // In memory (test/support/templates.ts): the server's embedded database lives in DATA_DIR.
  const scratch = mkdtempSync(path.join(testScratchRoot(), 'cashloop-docs-'));
  const port = await freePort();
  let database: TestDatabase | undefined;
  const env: Record<string, string> = {
    PATH: `${npxShim(scratch)}:${process.env.PATH ?? ''}`,
    HOME: scratch,
    XDG_CONFIG_HOME: path.join(scratch, 'config'),
    PORT: String(port),
    CASHLOOP_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: path.join(scratch, 'data'),
    TMPDIR: scratch,
    npm_config_update_notifier: 'false',
  };
  // Cheap argon2 (engine/passwords.test.ts proves the standard cost); the pages do not depend on it.
  // TMPDIR stays the machine's for the server: tsx keeps its compiled sources there (tsx-<uid>), and
  // a fresh scratch TMPDIR would make it compile every source again on each start.
  const serverEnv: Record<string, string> = { ...env, TMPDIR: tmpdir(), LOG_LEVEL: 'warn', CASHLOOP_PASSWORD_HASH_COST: 'test', CASHLOOP_IMAGE_DECODER_PRIORITY: 'normal', ...serverEnvExtra };
  // Under `npm run coverage`, the server's coverage counts too (it stops on SIGTERM, so it writes it).
  if (process.env.NODE_V8_COVERAGE) serverEnv.NODE_V8_COVERAGE = process.env.NODE_V8_COVERAGE;
  // The run's Node options (test/run.ts: WebAssembly on the baseline compiler, test/support/wasm-liftoff.mjs).
  if (process.env.NODE_OPTIONS) serverEnv.NODE_OPTIONS = process.env.NODE_OPTIONS;
  // The harness (the whole engine, about 1 s of CPU to load) only for real Postgres: the embedded run copies a data directory.
  if (loadConfig().databaseUrl) {
    const { createTestDatabase, environmentConfig } = await import('./harness.ts');
    database = await createTestDatabase();
    serverEnv.DATABASE_URL = database.url!;
    if (environmentConfig.redisUrls) serverEnv.REDIS_URL = environmentConfig.redisUrls.join(',');
  } else {
    await seedPgliteDataDir(env.DATA_DIR);
  }
  let log = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], { cwd: root, env: serverEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk) => (log += chunk));
  child.stderr!.on('data', (chunk) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  // Polls /healthz until it answers (or the server exits): no deadline, the runner's file timeout catches a hang.
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the page's server exited: ${log}`);
    try {
      if ((await fetch(`${env.CASHLOOP_URL}/healthz`)).ok) break;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    env,
    scratch,
    log: () => log,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      await database?.drop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

const marker = '::cashloop-docs-block';

export interface PageRun {
  code: number | null;
  output: string;
  /** Seconds each block took, in order (a failed block's time is up to its failure). */
  blockSeconds: number[];
}

/** Runs the blocks in one bash session; resolves with the exit code, what each block printed and its time. */
export function runBlocks(blocks: ShellBlock[], server: PageServer): Promise<PageRun> {
  // Each block opens with a marker line carrying bash's clock ($EPOCHREALTIME), and one more closes the last.
  const mark = (label: string) => `echo "${marker} ${label}:: $EPOCHREALTIME"`;
  const script = ['set -euo pipefail', ...blocks.flatMap((block) => [mark(String(block.number)), block.code]), mark('end')].join('\n');
  const scriptFile = path.join(server.scratch, 'page.sh');
  writeFileSync(scriptFile, `${script}\n`);
  const startedAt = Date.now() / 1000;
  return new Promise((resolve) => {
    const child = spawn('bash', [scriptFile], { cwd: root, env: server.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      // Not anchored at the line's start: a block's last output may lack its newline.
      const marks = [...output.matchAll(new RegExp(`${marker} \\S+:: (\\d+)[.,](\\d+)$`, 'gm'))].map((match) => Number(`${match[1]}.${match[2]}`));
      if (code !== 0) marks.push(Date.now() / 1000);
      const blockSeconds = marks.slice(1).map((at, index) => at - marks[index]);
      if (marks.length === 0) blockSeconds.push(Date.now() / 1000 - startedAt);
      resolve({ code, output, blockSeconds });
    });
  });
}

const secondsText = (seconds: number) => `${seconds.toFixed(1)} s`;

/**
 * Runs a page's blocks against server and prints its time per block; fails with the page, the
 * block, its output and the server's log.
 */
export async function assertPageRuns(page: string, server: PageServer): Promise<void> {
  const blocks = runnableBlocks(readFileSync(path.join(root, page), 'utf8'));
  const { code, output, blockSeconds } = await runBlocks(blocks, server);
  const total = blockSeconds.reduce((sum, seconds) => sum + seconds, 0);
  const times = `${page}: ${secondsText(total)} (blocks: ${blockSeconds.map(secondsText).join(', ')})`;
  console.log(`  ${times}`);
  if (code === 0) return;
  const sections = output.split(marker);
  const last = sections.filter((section) => /^ \d+::/.test(section)).pop() ?? '';
  const failed = Number(/^ (\d+)::/.exec(last)?.[1] ?? 0);
  const block = blocks[failed - 1];
  assert.unreachable(
    `${page}: block ${failed} (line ${block?.line}) failed with exit ${code}.\n--- block ---\n${block?.code}\n--- output ---\n${last.replace(/^ \d+::[^\n]*\n?/, '')}\n--- server log (tail) ---\n${server.log().split('\n').slice(-15).join('\n')}\n--- times ---\n${times}`,
  );
}

/** The pages that have runnable blocks. */
export function runnablePages(options: { all?: boolean } = {}): string[] {
  return pages(options).filter((page) => runnableBlocks(readFileSync(path.join(root, page), 'utf8')).length > 0);
}

/** The test file that runs a page against its own server: README.md -> readme, docs/ledger.md -> ledger. */
export function pageTestFile(page: string): string {
  return `test/docs-walkthroughs/${path.basename(page, '.md').toLowerCase()}.test.ts`;
}

/**
 * The whole of a test/docs-walkthroughs/<page>.test.ts file: the page's blocks run in order against
 * a fresh server of its own. One file per page, so the runner runs pages in parallel and a page's
 * time is its file's time.
 */
export function testPage(page: string): void {
  test(`${page}: its shell blocks run in order against a fresh server`, async () => {
    const server = await startPageServer();
    try {
      await assertPageRuns(page, server);
    } finally {
      await server.stop();
    }
  });
  test.run();
}

/** A seeded shuffle (mulberry32), so a failing order can be replayed. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
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

/**
 * How many test/docs-one-server/part-<n>.test.ts files share the pages: enough that each part
 * stays under a minute on a quiet 2-core machine (docs/writing-docs.md).
 */
export const oneServerParts = 2;

/**
 * The pages of part `part` (1-based) of `parts`: the seeded shuffle of every runnable page, dealt
 * out in turn, so each seed gives a different split and a different order within each part.
 */
export function oneServerPart(seed: number, part: number, parts = oneServerParts, options: { all?: boolean } = {}): string[] {
  return shuffled(runnablePages(options), seed).filter((_, index) => index % parts === part - 1);
}

/**
 * The seed of the one-server order: CASHLOOP_DOCS_SEED replays one; otherwise the runner's
 * CASHLOOP_TEST_SEED (one per run, printed at its start, shared by every part), else a random one.
 */
export function oneServerSeed(): number {
  return Number(process.env.CASHLOOP_DOCS_SEED) || Number(process.env.CASHLOOP_TEST_SEED) || Math.floor(Math.random() * 2 ** 31);
}

/**
 * The whole of a test/docs-one-server/part-<n>.test.ts file: its share of the pages, each in a fresh
 * bash session, one after another against one server, as a reader pastes pages into one running
 * server (with CASHLOOP_RATE_LIMIT_SCALE as each page advises for a demo).
 */
export function testPagesOnOneServer(part: number, parts = oneServerParts): void {
  const seed = oneServerSeed();
  const order = oneServerPart(seed, part, parts);
  test(`part ${part} of ${parts}: ${order.length} pages run against one server, one after another (CASHLOOP_DOCS_SEED=${seed})`, async () => {
    if (order.length === 0) return; // CASHLOOP_DOCS_PAGE left this part nothing
    const server = await startPageServer({ CASHLOOP_RATE_LIMIT_SCALE: '100' });
    try {
      for (const page of order) {
        try {
          await assertPageRuns(page, server);
        } catch (error) {
          (error as Error).message = `order ${order.join(', ')} (part ${part} of ${parts}, CASHLOOP_DOCS_SEED=${seed}):\n${(error as Error).message}`;
          throw error;
        }
      }
    } finally {
      await server.stop();
    }
  });
  test.run();
}
