// Runs every test file (unit tests beside the code, stories in test/) each in its own process,
// two at a time, printing progress (file N of M, elapsed seconds) as each finishes, and ends with one line: "N passed, N failed".
// Usage: npm test [-- <substring filter>]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const roots = ['engine', 'api', 'cli', 'pos-sim', 'test'];
const testFilePattern = /\.test\.tsx?$/;
const concurrency = 2;
// The docs walkthroughs (one server per page, 11 pages) took 237 s of the old 4-minute limit on a loaded 2-core machine.
const fileTimeoutMs = 8 * 60 * 1000;

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
  output: string;
  durationMs: number;
}

function runFile(file: string): Promise<FileResult> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'node_modules/uvu/bin.js', path.dirname(file), `^${path.basename(file).replace(/\./g, '\\.')}$`], {
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      output += `\n[test runner] ${file} timed out after ${fileTimeoutMs} ms\n`;
      child.kill('SIGKILL');
    }, fileTimeoutMs);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      const clean = output.replace(/\x1b\[[0-9;]*m/g, '');
      const total = Number(/Total:\s+(\d+)/.exec(clean)?.[1] ?? 0);
      const passed = Number(/Passed:\s+(\d+)/.exec(clean)?.[1] ?? 0);
      const skipped = Number(/Skipped:\s+(\d+)/.exec(clean)?.[1] ?? 0);
      // uvu's Total counts the tests that ran; skipped ones are apart.
      let failed = total - passed;
      // A file that crashed or exited badly counts as a failure even if its counts look clean.
      if (exitCode !== 0 && failed === 0) failed = 1;
      // A file that ran nothing is a mistake, unless it skipped its tests on purpose (faults on the embedded run).
      if (total === 0 && exitCode === 0 && skipped === 0) failed = 1;
      resolve({ file, passed, failed, output: clean, durationMs: Date.now() - startedAt });
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

async function main(): Promise<void> {
  ensureTools();
  const filter = process.argv[2];
  const files = roots.flatMap(findTests).filter((file) => !filter || file.includes(filter)).sort();
  const queue = [...files];
  const results: FileResult[] = [];
  const startedAt = Date.now();
  process.stdout.write(`Running ${files.length} test files, ${concurrency} at a time\n`);
  async function worker(): Promise<void> {
    for (let file = queue.shift(); file; file = queue.shift()) {
      const result = await runFile(file);
      results.push(result);
      const mark = result.failed > 0 ? 'FAIL' : 'ok  ';
      const elapsedSeconds = Math.round((Date.now() - startedAt) / 1000);
      process.stdout.write(`[${results.length}/${files.length} ${elapsedSeconds} s] ${mark} ${file} (${result.passed} passed, ${result.failed} failed, ${result.durationMs} ms)\n`);
      if (result.failed > 0) process.stdout.write(result.output.split('\n').map((line) => `     ${line}`).join('\n') + '\n');
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const passed = results.reduce((sum, result) => sum + result.passed, 0);
  const failed = results.reduce((sum, result) => sum + result.failed, 0);
  process.stdout.write(`\n${files.length} test files in ${Math.round((Date.now() - startedAt) / 1000)} s\n`);
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exitCode = failed > 0 ? 1 : 0;
}

await main();
