// Runs every test file (unit tests beside the code, stories in test/), one worker per core, each
// worker's files one after another in a test process of its own process group (a fresh one every
// few files, or for a file that says `// test-process: own`), printing each file's time as it
// finishes, the slowest files, the total time, and last one line: "N passed, N failed".
// Usage: npm test [-- <substring of file path>] [-t <substring of test name>]
// Files start longest first, by their times in the last run on the same backend (.scratch/test-times-<backend>.json, else test/file-times/<backend>.json).
// Environment: CASHLOOP_TEST_WORKERS (default: one per core), CASHLOOP_TEST_FILE_TIMEOUT_S (default 300),
// CASHLOOP_TEST_FILES (comma-separated files to run instead of finding them; test/run.test.ts uses it),
// CASHLOOP_TEST_FILES_PER_PROCESS (default 12; 1 runs every file in a process of its own),
// CASHLOOP_TEST_VERBOSE (print every file's output, not only a failed one's; e.g. the docs pages' block times),
// CASHLOOP_TEST_SEED (the run's seed, printed at the start and handed to every file, e.g. to share
// one shuffle between the parts of test/docs-one-server/; random unless set).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import type { Writable } from 'node:stream';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';

const roots = ['engine', 'api', 'cli', 'pos-sim', 'test'];
const testFilePattern = /\.test\.tsx?$/;
const concurrency = Number(process.env.CASHLOOP_TEST_WORKERS) || availableParallelism();
// A file that takes this long is stuck (the target is under 60 s on a quiet machine; a loaded one is several times slower).
const fileTimeoutMs = (Number(process.env.CASHLOOP_TEST_FILE_TIMEOUT_S) || 300) * 1000;
// Files slower than this are named at the end: split them, or share a fixture.
const slowFileMs = 60_000;
// A test process runs files one after another (test/support/file-process.ts): a process start, the
// engine's imports and PGlite's WebAssembly compile are paid once for several files. It takes no
// more files after this many, or once it holds this much memory, and the next file gets a fresh one.
const filesPerProcessMax = Number(process.env.CASHLOOP_TEST_FILES_PER_PROCESS) || 12;
const processMegabytesMax = 1500;
// The line before and after each file's output in a test process's output (test/support/file-process.ts).
const fileMarker = `##cashloop-test-file-${process.pid}##`;
// A marker line: `<marker> start <file>`, or `<marker> end <file> <status> <rss MB>`.
const markerLine = new RegExp(`\\n${fileMarker} (start|end) (\\S+)(?: (\\d+) (\\d+))?\\n`);
// One seed per run, the same in every file (a file that shuffles across parts needs them to agree).
const runSeed = String(Number(process.env.CASHLOOP_TEST_SEED) || 1 + Math.floor(Math.random() * (2 ** 31 - 1)));

// Test databases and servers' data directories of this run (test/support/templates.ts): in memory
// where there is /dev/shm, and removed when the run ends, so a file killed mid-test leaks nothing.
const scratchRoot = path.join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), `cashloop-test-run-${process.pid}`);
// Every process of the run (and what it spawns) runs WebAssembly on V8's baseline compiler (test/support/wasm-liftoff.mjs).
const nodeOptions = [process.env.NODE_OPTIONS, `--import ${path.resolve('test/support/wasm-liftoff.mjs')}`].filter(Boolean).join(' ');
// Each file's time in the last run on this backend (a file's weight differs between them: the fault
// tests run only on Postgres): files start longest first, so a long file never ends a run alone.
const backend = process.env.DATABASE_URL ? 'postgres' : 'pglite';
const timesFile = `.scratch/test-times-${backend}.json`;
// A fresh clone (CI) has no last run: it orders files by the times committed here (a quiet run's,
// refreshed by hand with `cp .scratch/test-times-*.json test/file-times/` now and then).
const committedTimesFile = `test/file-times/${backend}.json`;

/** Process groups of the files running now: every one is killed when the runner is interrupted. */
const running = new Set<ChildProcess>();

function findTests(directory: string): string[] {
  let found: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(directory);
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const full = path.join(directory, entry);
    if (statSync(full).isDirectory()) found = found.concat(findTests(full));
    else if (testFilePattern.test(entry)) found.push(full);
  }
  return found;
}

interface FileResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  output: string;
  durationMs: number;
  /** A failure of a test process after its last file ended, not a file's own result. */
  afterwards?: boolean;
}

/** SIGKILL to a whole process group: the file, the servers and CLIs it spawned, and theirs. */
function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}

function countResult(file: string, output: string, exitCode: number | null, durationMs: number, nameFilter: string | undefined): FileResult {
  const clean = output.replace(/\x1b\[[0-9;]*m/g, '');
  const total = Number(/Total:\s+(\d+)/.exec(clean)?.[1] ?? 0);
  const passed = Number(/Passed:\s+(\d+)/.exec(clean)?.[1] ?? 0);
  const skipped = Number(/Skipped:\s+(\d+)/.exec(clean)?.[1] ?? 0);
  // uvu's Total counts the tests that ran; skipped ones are apart.
  let failed = total - passed;
  // A file that crashed or exited badly counts as a failure even if its counts look clean.
  if (exitCode !== 0 && failed === 0) failed = 1;
  // A file that ran nothing is a mistake, unless it skipped its tests on purpose (test.skip, or -t).
  if (total === 0 && exitCode === 0 && skipped === 0 && !nameFilter) failed = 1;
  return { file, passed, failed, skipped, output: clean, durationMs };
}

/**
 * A file that changes its process for good (an environment variable a module reads when it loads,
 * a global) says so with a line `// test-process: own` in its first lines: it runs in a fresh process
 * of its own, never after another file in the same one.
 */
function ownProcess(file: string): boolean {
  return /^\/\/ test-process: own\b/m.test(readFileSync(file, 'utf8').slice(0, 2000));
}

/**
 * A file may raise its own timeout with a line `// test-timeout: <seconds>` in its first lines (the
 * docs walkthroughs run many servers and pages); the runner's default is for everything else.
 */
function timeoutOf(file: string): number {
  const declared = /^\/\/ test-timeout: (\d+)$/m.exec(readFileSync(file, 'utf8').slice(0, 2000));
  return declared ? Math.max(fileTimeoutMs, Number(declared[1]) * 1000) : fileTimeoutMs;
}

/** The environment of every test process. */
function testEnvironment(nameFilter: string | undefined): NodeJS.ProcessEnv {
  return {
    // Cheap argon2 for everything the file starts (engine/passwords.test.ts proves the standard cost).
    CASHLOOP_PASSWORD_HASH_COST: 'test',
    ...process.env,
    CASHLOOP_TEST_SEED: runSeed,
    CASHLOOP_TEST_SCRATCH: scratchRoot,
    NODE_OPTIONS: nodeOptions,
    FORCE_COLOR: '0',
    NO_COLOR: '1',
    ...(nameFilter ? { CASHLOOP_TEST_NAME: nameFilter } : {}),
  };
}

interface RunningFile {
  file: string;
  startedAt: number;
  timer: NodeJS.Timeout;
  resolve: (result: FileResult) => void;
}

/**
 * A test process (test/support/file-process.ts) that runs the files it is handed one after another,
 * in its own process group. Its stdout and stderr come through one pipe, in order, split into each
 * file's output by the process's marker lines. A file that passes its timeout, or during which the
 * process dies, fails, and the whole group is killed; the next file gets a fresh process.
 */
class FileProcess {
  readonly child: ChildProcess;
  /** Resolves when the process has exited and its group is killed. */
  readonly exited: Promise<void>;
  filesRun = 0;
  rssMegabytes = 0;
  lastFile: string | undefined;
  /** What the process printed after its last marker: the current file's output so far. */
  private pending = '';
  private buffer = '';
  private current: RunningFile | undefined;
  exitStatus: string | undefined;
  private killedBecause: string | undefined;
  private failedDuringFile = false;

  constructor(private readonly nameFilter: string | undefined) {
    const command = [process.execPath, '--import', 'tsx', '--import', './test/support/uvu-name-filter.mjs', 'test/support/file-process.ts', fileMarker];
    // sh merges stderr into stdout (one pipe keeps the order of a file's output and the markers) and
    // execs node, so the process is the group's leader; fd 3 carries the files to run.
    this.child = spawn('sh', ['-c', 'exec "$@" 2>&1', 'sh', ...command], {
      env: testEnvironment(nameFilter),
      stdio: ['ignore', 'pipe', 'ignore', 'pipe'],
      // Its own process group, so the servers its files spawn die with it (killGroup) in every outcome.
      detached: true,
    });
    running.add(this.child);
    // Writing to a process that has just died fails; its 'close' reports the file it was running.
    (this.child.stdio[3] as Writable).on('error', () => {});
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => this.receive(chunk));
    let exited: () => void;
    this.exited = new Promise((resolve) => (exited = resolve));
    // The group is killed on exit, not close: a server a file left running would hold the pipe open.
    this.child.on('exit', (code, signal) => {
      this.exitStatus = signal ? `signal ${signal}` : `code ${code}`;
      killGroup(this.child);
      running.delete(this.child);
    });
    this.child.on('close', () => {
      this.receive('', true);
      exited();
    });
  }

  /** Runs one file in this process; resolves with its result when it ends, fails or times out. */
  run(file: string): Promise<FileResult> {
    const timeoutMs = timeoutOf(file);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.killedBecause = `\n[test runner] ${file} timed out after ${timeoutMs / 1000} s; its process group was killed\n`;
        killGroup(this.child);
      }, timeoutMs);
      this.current = { file, startedAt: Date.now(), timer, resolve };
      this.filesRun++;
      this.lastFile = file;
      (this.child.stdio[3] as Writable).write(`${file}\n`);
    });
  }

  /** No more files: the process exits once its files' servers, sockets and timers are gone. */
  async end(): Promise<FileResult | undefined> {
    (this.child.stdio[3] as Writable).end();
    const timer = setTimeout(() => {
      this.killedBecause = `\n[test runner] the process did not exit within ${fileTimeoutMs / 1000} s after its last file (${this.lastFile}) ended: one of its files left a server, socket or timer open; its process group was killed\n`;
      killGroup(this.child);
    }, fileTimeoutMs);
    await this.exited;
    clearTimeout(timer);
    // A process that fails after its files ended (a late crash, a handle left open) fails the run,
    // unless its failure was a file's own (a crash or timeout during the file).
    if ((this.exitStatus === 'code 0' && !this.killedBecause) || this.failedDuringFile) return undefined;
    const output = `${this.pending}${this.killedBecause ?? ''}\n[test runner] the test process exited with ${this.exitStatus} after its last file (${this.lastFile}) ended\n`;
    return { file: `${this.lastFile} (after it ended)`, passed: 0, failed: 1, skipped: 0, output, durationMs: 0, afterwards: true };
  }

  private receive(chunk: string, closing = false): void {
    this.buffer += chunk;
    for (let found = markerLine.exec(this.buffer); found; found = markerLine.exec(this.buffer)) {
      this.pending += this.buffer.slice(0, found.index);
      this.buffer = this.buffer.slice(found.index + found[0].length);
      if (found[1] === 'start') continue;
      this.rssMegabytes = Number(found[4]);
      this.finish(Number(found[3]), '');
    }
    // Keep a possible marker's beginning in the buffer; the rest is the current file's output.
    const keep = closing ? 0 : Math.min(this.buffer.length, fileMarker.length + 1000);
    this.pending += this.buffer.slice(0, this.buffer.length - keep);
    this.buffer = this.buffer.slice(this.buffer.length - keep);
    if (closing && this.current) {
      this.failedDuringFile = true;
      this.finish(1, this.killedBecause ?? `\n[test runner] the test process exited with ${this.exitStatus} before ${this.current.file} ended\n`);
    }
  }

  private finish(exitCode: number, note: string): void {
    const current = this.current;
    if (!current) return;
    this.current = undefined;
    clearTimeout(current.timer);
    const output = this.pending + note;
    this.pending = '';
    current.resolve(countResult(current.file, output, exitCode, Date.now() - current.startedAt, this.nameFilter));
  }
}

/**
 * openapi-typescript and the TypeScript 5 compiler API live in tools/openapi-typescript with their
 * own lockfile (the client-types, docs and function-length tests use them). A fresh `npm install`
 * does not install them, so the runner does, once, before any test starts (never during one: a
 * postinstall would also run whenever `npx cashloop` installs the project, mid-run).
 */
function ensureTools(): void {
  if (existsSync('tools/openapi-typescript/node_modules/typescript/lib/typescript.js')) return;
  process.stdout.write('Installing tools/openapi-typescript (its own lockfile)\n');
  const installed = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', 'tools/openapi-typescript'], { stdio: 'inherit' });
  if (installed.status !== 0) throw new Error('npm ci --prefix tools/openapi-typescript failed');
}

/** Builds the migrated database template once, before the files that copy it start (test/support/templates.ts). */
function prepareTemplates(): void {
  const prepared = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/prepare-templates.ts'], { stdio: 'inherit' });
  if (prepared.status !== 0) throw new Error('preparing the test database template failed');
}

function readTimes(file: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
}

/** Each file's time in this checkout's last run on this backend, else in the committed times. */
function lastTimes(): Record<string, number> {
  return { ...readTimes(committedTimesFile), ...readTimes(timesFile) };
}

/**
 * The files in the order they start: by their time in the last run, longest first (the longest
 * that start last would end the run alone); a file with no time yet starts first if it declares a
 * long timeout, else after those, by name.
 */
function longestFirst(files: string[]): string[] {
  const times = lastTimes();
  const expectedMs = (file: string) => times[file] ?? (timeoutOf(file) > fileTimeoutMs ? Infinity : 0);
  return [...files].sort((left, right) => expectedMs(right) - expectedMs(left) || left.localeCompare(right));
}

/** Keeps each file's time for the next run's order. */
function rememberTimes(results: FileResult[]): void {
  const times = lastTimes();
  for (const result of results) if (!result.afterwards) times[result.file] = result.durationMs;
  mkdirSync(path.dirname(timesFile), { recursive: true });
  writeFileSync(timesFile, `${JSON.stringify(times, null, 1)}\n`);
}

function parseArguments(argv: string[]): { fileFilter: string | undefined; nameFilter: string | undefined } {
  let fileFilter: string | undefined;
  let nameFilter: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    if (argv[index] === '-t' || argv[index] === '--test') nameFilter = argv[++index];
    else fileFilter = argv[index];
  }
  return { fileFilter, nameFilter };
}

const seconds = (milliseconds: number) => `${(milliseconds / 1000).toFixed(1)} s`;

function printSummary(results: FileResult[], startedAt: number, nameFilter: string | undefined): void {
  const slowest = [...results].sort((left, right) => right.durationMs - left.durationMs).slice(0, 10);
  process.stdout.write(`\nSlowest files:\n${slowest.map((result) => `  ${seconds(result.durationMs).padStart(8)}  ${result.file}`).join('\n')}\n`);
  const slow = results.filter((result) => result.durationMs > slowFileMs);
  if (slow.length > 0) process.stdout.write(`${slow.length} file(s) over ${slowFileMs / 1000} s (on a loaded machine, expected; otherwise split them)\n`);
  const sum = (key: 'passed' | 'failed' | 'skipped') => results.reduce((total, result) => total + result[key], 0);
  let failed = sum('failed');
  if (nameFilter && sum('passed') + failed === 0) {
    process.stdout.write(`no test's name contains "${nameFilter}"\n`);
    failed = 1;
  }
  process.stdout.write(`\n${results.length} test files in ${seconds(Date.now() - startedAt)} (${concurrency} workers), ${sum('skipped')} skipped\n`);
  process.stdout.write(`${sum('passed')} passed, ${failed} failed\n`);
  process.exitCode = failed > 0 ? 1 : 0;
}

async function main(): Promise<void> {
  const { fileFilter, nameFilter } = parseArguments(process.argv.slice(2));
  const found = process.env.CASHLOOP_TEST_FILES ? process.env.CASHLOOP_TEST_FILES.split(',') : roots.flatMap(findTests);
  const files = longestFirst(found.filter((file) => !fileFilter || file.includes(fileFilter)));
  ensureTools();
  mkdirSync(scratchRoot, { recursive: true });
  if (files.length > 0) prepareTemplates();
  const queue = [...files];
  const results: FileResult[] = [];
  const startedAt = Date.now();
  process.stdout.write(`Running ${files.length} test files, ${concurrency} at a time${nameFilter ? `, tests named *${nameFilter}*` : ''} (CASHLOOP_TEST_SEED=${runSeed})\n`);
  const report = (result: FileResult) => {
    results.push(result);
    const mark = result.failed > 0 ? 'FAIL' : 'ok  ';
    const skipped = result.skipped > 0 ? `, ${result.skipped} skipped` : '';
    const progress = `${results.filter((each) => !each.afterwards).length}/${files.length} ${seconds(Date.now() - startedAt)}`;
    process.stdout.write(`[${progress}] ${mark} ${result.file} (${result.passed} passed${skipped}, ${result.failed} failed, ${seconds(result.durationMs)})\n`);
    if (result.failed > 0 || process.env.CASHLOOP_TEST_VERBOSE) process.stdout.write(result.output.split('\n').map((line) => `     ${line}`).join('\n') + '\n');
  };
  // A process that takes no more files exits in the background; the run waits for them all.
  const ending: Promise<void>[] = [];
  const retire = (fileProcess: FileProcess) => ending.push(fileProcess.end().then((failure) => failure && report(failure)));
  async function worker(): Promise<void> {
    let shared: FileProcess | undefined;
    for (let file = queue.shift(); file; file = queue.shift()) {
      if (ownProcess(file)) {
        const own = new FileProcess(nameFilter);
        report(await own.run(file));
        retire(own);
        continue;
      }
      // A process that died between files (its failure is reported when it is retired) takes no more.
      if (shared?.exitStatus) {
        retire(shared);
        shared = undefined;
      }
      shared ??= new FileProcess(nameFilter);
      report(await shared.run(file));
      if (shared.exitStatus || shared.filesRun >= filesPerProcessMax || shared.rssMegabytes > processMegabytesMax) {
        retire(shared);
        shared = undefined;
      }
    }
    if (shared) retire(shared);
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  await Promise.all(ending);
  rmSync(scratchRoot, { recursive: true, force: true });
  // A file run alone with -t is not a whole file's time, and the runner's own test runs fixtures.
  if (!nameFilter && !process.env.CASHLOOP_TEST_FILES) rememberTimes(results);
  printSummary(results, startedAt, nameFilter);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of running) killGroup(child);
    rmSync(scratchRoot, { recursive: true, force: true });
    process.exit(130);
  });
}

await main();
