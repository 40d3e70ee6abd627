// Proves the test runner (test/run.ts) on fixture files: a file's spawned processes die with its
// process group when its process ends and when it times out; files share a process, each with its
// own counts, except a file that asks for its own; a file that crashes its process or times out
// fails alone and the next file gets a fresh process; a process a file leaves a timer running in
// fails the run; -t runs only the tests it names and counts the rest as skipped; test.skip counts
// as skipped, not passed; every file gets the run's printed seed.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = path.resolve(import.meta.dirname, '..');
const fixtures = 'test/support/runner-fixtures';
const scratch = mkdtempSync(path.join(tmpdir(), 'cashloop-runner-'));
test.after(() => rmSync(scratch, { recursive: true, force: true }));

function runRunner(files: string[], args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/run.ts', ...args], {
      cwd: root,
      env: { ...process.env, CASHLOOP_TEST_FILES: files.map((file) => `${fixtures}/${file}`).join(','), CASHLOOP_TEST_WORKERS: '2', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Processes whose command line holds the marker (a unique `sleep` argument). */
function processesWith(marker: string): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(marker);
      } catch {
        return false;
      }
    });
}

test('a process a file leaves running is killed when the file ends; a timed-out file is killed with its whole group', async () => {
  const orphanMarker = String(900_000 + Math.floor(Math.random() * 90_000));
  const hangMarker = String(990_000 + Math.floor(Math.random() * 9_000));
  // Long enough for the file to start on a loaded machine (it needs about half a second of CPU); it
  // then hangs until the runner kills it. The two runs are apart in everything, so they run at once.
  const [ended, hung, leaked] = await Promise.all([
    runRunner(['orphan.fixture.ts'], [], { FIXTURE_MARKER: orphanMarker, FIXTURE_SPAWNED: path.join(scratch, 'orphan') }),
    // One worker: the hung file first (by name), then a file that must still run, in a fresh process.
    runRunner(['hang.fixture.ts', 'pid.fixture.ts'], [], { FIXTURE_MARKER: hangMarker, FIXTURE_SPAWNED: path.join(scratch, 'hang'), CASHLOOP_TEST_FILE_TIMEOUT_S: '12', CASHLOOP_TEST_WORKERS: '1' }),
    runRunner(['open-handle.fixture.ts'], [], { CASHLOOP_TEST_FILE_TIMEOUT_S: '12' }),
  ]);
  assert.ok(existsSync(path.join(scratch, 'orphan')), ended.output);
  assert.match(ended.output, /1 passed, 0 failed/);
  assert.equal(processesWith(orphanMarker), [], 'the orphan was killed');
  assert.ok(existsSync(path.join(scratch, 'hang')), hung.output);
  assert.is(hung.code, 1);
  assert.match(hung.output, /timed out after 12 s; its process group was killed/);
  assert.match(hung.output, /ok {3}test\/support\/runner-fixtures\/pid\.fixture\.ts \(1 passed, 0 failed/);
  assert.match(hung.output, /1 passed, 1 failed/);
  assert.equal(processesWith(hangMarker), [], 'the hung file and its child were killed');
  assert.is(leaked.code, 1, leaked.output);
  assert.match(leaked.output, /did not exit within 12 s after its last file \(test\/support\/runner-fixtures\/open-handle\.fixture\.ts\) ended/);
  assert.match(leaked.output, /1 passed, 1 failed/);
});

test('files share a process, each with its own counts; a crash fails only its file; test-process: own gets a process of its own', async () => {
  // One worker, files by name: crash, own, pid, seed.
  const run = await runRunner(['seed.fixture.ts', 'pid.fixture.ts', 'own.fixture.ts', 'crash.fixture.ts'], [], { CASHLOOP_TEST_WORKERS: '1', CASHLOOP_TEST_VERBOSE: '1' });
  assert.is(run.code, 1, run.output);
  assert.match(run.output, /FAIL test\/support\/runner-fixtures\/crash\.fixture\.ts \(0 passed, 1 failed/);
  assert.match(run.output, /the crash fixture throws outside any test/);
  assert.match(run.output, /3 passed, 1 failed/);
  const crashed = /crashing process: (\d+)/.exec(run.output)?.[1];
  const own = /own process: (\d+)/.exec(run.output)?.[1];
  const shared = /file process: (\d+)/.exec(run.output)?.[1];
  const seed = /seed seen: \d+ \(process (\d+)\)/.exec(run.output)?.[1];
  assert.ok(crashed && own && shared && seed, run.output);
  assert.is(seed, shared, 'pid and seed ran in one process');
  assert.is(new Set([crashed, own, shared]).size, 3, 'the crashed, the own and the shared process are three');
});

test('-t runs only the tests whose name contains it; the others and test.skip count as skipped', async () => {
  const [filtered, all, none] = await Promise.all([
    runRunner(['names.fixture.ts'], ['-t', 'alpha']),
    runRunner(['names.fixture.ts'], []),
    runRunner(['names.fixture.ts'], ['-t', 'no such test']),
  ]);
  assert.is(filtered.code, 0, filtered.output);
  assert.match(filtered.output, /\(1 passed, 2 skipped, 0 failed/);
  assert.match(all.output, /\(2 passed, 1 skipped, 0 failed/);
  assert.is(none.code, 1);
  assert.match(none.output, /no test's name contains "no such test"/);
});

test('the run\'s seed is printed and handed to every file; CASHLOOP_TEST_SEED sets it', async () => {
  const [random, chosen] = await Promise.all([
    runRunner(['seed.fixture.ts', 'names.fixture.ts'], [], { CASHLOOP_TEST_SEED: '', CASHLOOP_TEST_VERBOSE: '1' }),
    runRunner(['seed.fixture.ts'], [], { CASHLOOP_TEST_SEED: '4242', CASHLOOP_TEST_VERBOSE: '1' }),
  ]);
  assert.is(random.code, 0, random.output);
  const printed = /CASHLOOP_TEST_SEED=(\d+)/.exec(random.output)?.[1];
  assert.ok(printed, random.output);
  assert.match(random.output, new RegExp(`seed seen: ${printed}\\b`));
  assert.match(chosen.output, /CASHLOOP_TEST_SEED=4242\)/);
  assert.match(chosen.output, /seed seen: 4242\b/);
});

test.run();
