// Proves every walkthrough in README.md and docs/*.md pastes and works: each page's ```sh and
// ```bash blocks run in order in one bash session (set -euo pipefail) from the repository root,
// against a server of its own started on a random port with a fresh data directory (and, on real
// Postgres, a fresh database). Blocks fenced ```sh no-run are shown, not run (docs/writing-docs.md).
// A page that drifts from the code fails with its name, block number and output.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestDatabase, environmentConfig, usesRealServices, type TestDatabase } from './support/harness.ts';

const root = path.resolve(import.meta.dirname, '..');
const pageTimeoutMs = 240_000;

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

/** README.md and docs/*.md; CASHLOOP_DOCS_PAGE=<substring> narrows the run while writing a page. */
function pages(): string[] {
  const docs = readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`);
  const only = process.env.CASHLOOP_DOCS_PAGE;
  return ['README.md', ...docs].filter((page) => !only || page.includes(only));
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

interface PageServer {
  env: Record<string, string>;
  scratch: string;
  log(): string;
  stop(): Promise<void>;
}

async function startPageServer(): Promise<PageServer> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'cashloop-docs-'));
  const port = await freePort();
  let database: TestDatabase | undefined;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: scratch,
    XDG_CONFIG_HOME: path.join(scratch, 'config'),
    PORT: String(port),
    CASHLOOP_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: path.join(scratch, 'data'),
    TMPDIR: scratch,
    npm_config_update_notifier: 'false',
  };
  const serverEnv: Record<string, string> = { ...env, LOG_LEVEL: 'warn' };
  if (usesRealServices) {
    database = await createTestDatabase();
    serverEnv.DATABASE_URL = database.url!;
    if (environmentConfig.redisUrls) serverEnv.REDIS_URL = environmentConfig.redisUrls.join(',');
  }
  let log = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], { cwd: root, env: serverEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk) => (log += chunk));
  child.stderr!.on('data', (chunk) => (log += chunk));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the page's server exited: ${log}`);
    try {
      if ((await fetch(`${env.CASHLOOP_URL}/healthz`)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`the page's server did not start: ${log}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
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

/** Runs the blocks in one bash session; resolves with the exit code and what each block printed. */
function runBlocks(blocks: ShellBlock[], server: PageServer): Promise<{ code: number | null; output: string }> {
  const script = ['set -euo pipefail', ...blocks.flatMap((block) => [`echo "${marker} ${block.number}::"`, block.code])].join('\n');
  const scriptFile = path.join(server.scratch, 'page.sh');
  writeFileSync(scriptFile, `${script}\n`);
  return new Promise((resolve) => {
    const child = spawn('bash', [scriptFile], { cwd: root, env: server.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), pageTimeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

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

for (const page of pages()) {
  const blocks = runnableBlocks(readFileSync(path.join(root, page), 'utf8'));
  if (blocks.length === 0) continue;
  test(`${page}: its ${blocks.length} shell block(s) run in order against a fresh server`, async () => {
    const server = await startPageServer();
    try {
      const { code, output } = await runBlocks(blocks, server);
      if (code !== 0) {
        const sections = output.split(marker);
        const last = sections[sections.length - 1] ?? '';
        const failed = Number(/^ (\d+)::/.exec(last)?.[1] ?? 0);
        const block = blocks[failed - 1];
        assert.unreachable(
          `${page}: block ${failed} (line ${block?.line}) failed with exit ${code}.\n--- block ---\n${block?.code}\n--- output ---\n${last.replace(/^ \d+::\n?/, '')}\n--- server log (tail) ---\n${server.log().split('\n').slice(-15).join('\n')}`,
        );
      }
    } finally {
      await server.stop();
    }
  });
}

test.run();
