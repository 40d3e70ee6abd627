// Runs every test file (unit tests beside the code, stories in test/) each in its own process and
// process group, one worker per core, printing each file's time as it finishes, the slowest files,
// the total time, and last one line: "N passed, N failed".
// Usage: npm test [-- <substring of file path>] [-t <substring of test name>]
// Files start longest first, by their times in the last run on the same backend (.scratch/test-times-<backend>.json, else test/file-times/<backend>.json).
// Environment: CASHLOOP_TEST_WORKERS (default: one per core), CASHLOOP_TEST_FILE_TIMEOUT_S (default 300),
// CASHLOOP_TEST_FILES (comma-separated files to run instead of finding them; test/run.test.ts uses it),
// CASHLOOP_TEST_VERBOSE (print every file's output, not only a failed one's; e.g. the docs pages' block times),
// CASHLOOP_TEST_SEED (the run's seed, printed at the start and handed to every file, e.g. to share
// one shuffle between the parts of test/docs-one-server/; random unless set).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
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
 * A file may raise its own timeout with a line `// test-timeout: <seconds>` in its first lines (the
 * docs walkthroughs run many servers and pages); the runner's default is for everything else.
 */
function timeoutOf(file: string): number {
  const declared = /^\/\/ test-timeout: (\d+)$/m.exec(readFileSync(file, 'utf8').slice(0, 2000));
  return declared ? Math.max(fileTimeoutMs, Number(declared[1]) * 1000) : fileTimeoutMs;
}

function runFile(file: string, nameFilter: string | undefined): Promise<FileResult> {
  const startedAt = Date.now();
  const timeoutMs = timeoutOf(file);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', './test/support/uvu-name-filter.mjs', 'node_modules/uvu/bin.js', path.dirname(file), `^${path.basename(file).replace(/\./g, '\\.')}$`],
      {
        env: {
          // Cheap argon2 for everything the file starts (engine/passwords.test.ts proves the standard cost).
          CASHLOOP_PASSWORD_HASH_COST: 'test',
          ...process.env,
          CASHLOOP_TEST_SEED: runSeed,
          CASHLOOP_TEST_SCRATCH: scratchRoot,
          NODE_OPTIONS: nodeOptions,
          FORCE_COLOR: '0',
          NO_COLOR: '1',
          ...(nameFilter ? { CASHLOOP_TEST_NAME: nameFilter } : {}),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group, so the servers it spawns die with it (killGroup) in every outcome.
        detached: true,
      },
    );
    running.add(child);
    let output = '';
    let exitCode: number | null = null;
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      output += `\n[test runner] ${file} timed out after ${timeoutMs / 1000} s; its process group was killed\n`;
      killGroup(child);
    }, timeoutMs);
    // On exit, not close: a server the file left running holds the pipes open until its group is killed.
    child.on('exit', (code, signal) => {
      exitCode = signal ? 1 : code;
      clearTimeout(timer);
      killGroup(child);
    });
    child.on('close', () => {
      running.delete(child);
      resolve(countResult(file, output, exitCode, Date.now() - startedAt, nameFilter));
    });
  });
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
  for (const result of results) times[result.file] = result.durationMs;
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
  async function worker(): Promise<void> {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const result = await runFile(file, nameFilter);
      results.push(result);
      const mark = result.failed > 0 ? 'FAIL' : 'ok  ';
      const skipped = result.skipped > 0 ? `, ${result.skipped} skipped` : '';
      process.stdout.write(`[${results.length}/${files.length} ${seconds(Date.now() - startedAt)}] ${mark} ${file} (${result.passed} passed${skipped}, ${result.failed} failed, ${seconds(result.durationMs)})\n`);
      if (result.failed > 0 || process.env.CASHLOOP_TEST_VERBOSE) process.stdout.write(result.output.split('\n').map((line) => `     ${line}`).join('\n') + '\n');
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
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
