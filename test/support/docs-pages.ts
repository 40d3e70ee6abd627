// The docs pages as tests (docs/writing-docs.md): finds each page's runnable shell blocks, starts a
// server for pages to run against (on a migrated copy of the database template, so it starts in
// seconds), and runs a page's blocks in order in one bash session (set -euo pipefail) from the
// repository root. Used by test/docs-walkthroughs.test.ts (each page against its own server, pages
// in parallel) and test/docs-one-server.test.ts (every page against one server).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { createTestDatabase, environmentConfig, usesRealServices, type TestDatabase } from './harness.ts';
import { seedPgliteDataDir } from './templates.ts';

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

/** README.md and docs/*.md; CASHLOOP_DOCS_PAGE=<substring>[,<substring>…] narrows the run while writing a page. */
export function pages(): string[] {
  const docs = readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`);
  const only = process.env.CASHLOOP_DOCS_PAGE?.split(',');
  return ['README.md', ...docs].filter((page) => !only || only.some((part) => page.includes(part)));
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export interface PageServer {
  env: Record<string, string>;
  scratch: string;
  log(): string;
  stop(): Promise<void>;
}

/** A server for pages, on a random port; serverEnv adds to its environment (e.g. CASHLOOP_RATE_LIMIT_SCALE). */
export async function startPageServer(serverEnvExtra: Record<string, string> = {}): Promise<PageServer> {
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
  // Cheap argon2 (engine/passwords.test.ts proves the standard cost); the pages do not depend on it.
  const serverEnv: Record<string, string> = { ...env, LOG_LEVEL: 'warn', CASHLOOP_PASSWORD_HASH_COST: 'test', CASHLOOP_IMAGE_DECODER_PRIORITY: 'normal', ...serverEnvExtra };
  if (usesRealServices) {
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

/** Runs the blocks in one bash session; resolves with the exit code and what each block printed. */
export function runBlocks(blocks: ShellBlock[], server: PageServer): Promise<{ code: number | null; output: string }> {
  const script = ['set -euo pipefail', ...blocks.flatMap((block) => [`echo "${marker} ${block.number}::"`, block.code])].join('\n');
  const scriptFile = path.join(server.scratch, 'page.sh');
  writeFileSync(scriptFile, `${script}\n`);
  return new Promise((resolve) => {
    const child = spawn('bash', [scriptFile], { cwd: root, env: server.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      resolve({ code, output });
    });
  });
}

/** Runs a page's blocks against server; fails with the page, the block, its output and the server's log. */
export async function assertPageRuns(page: string, server: PageServer): Promise<void> {
  const blocks = runnableBlocks(readFileSync(path.join(root, page), 'utf8'));
  const { code, output } = await runBlocks(blocks, server);
  if (code === 0) return;
  const sections = output.split(marker);
  const last = sections[sections.length - 1] ?? '';
  const failed = Number(/^ (\d+)::/.exec(last)?.[1] ?? 0);
  const block = blocks[failed - 1];
  assert.unreachable(
    `${page}: block ${failed} (line ${block?.line}) failed with exit ${code}.\n--- block ---\n${block?.code}\n--- output ---\n${last.replace(/^ \d+::\n?/, '')}\n--- server log (tail) ---\n${server.log().split('\n').slice(-15).join('\n')}`,
  );
}

/** The pages that have runnable blocks. */
export function runnablePages(): string[] {
  return pages().filter((page) => runnableBlocks(readFileSync(path.join(root, page), 'utf8')).length > 0);
}
