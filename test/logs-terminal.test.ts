// Proves what a person sees starting the real server: on a terminal (node-pty) readable lines, the
// last one naming the address to open, no JSON; with LOG_FORMAT=json on a terminal, and with its
// output piped, JSON lines a machine parses.
import { spawn as spawnProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'node-pty';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { seedPgliteDataDir, testScratchRoot } from './support/templates.ts';

const root = path.resolve(import.meta.dirname, '..');
const scratch = mkdtempSync(path.join(testScratchRoot(), 'cashloop-logs-'));
const baseEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'xterm-256color', ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}) };
const plain = (text: string) => text.replace(/\u001B\[[0-9;?]*[ -/]*[@-~]/g, '');
const stops: (() => void)[] = [];

test.after(() => {
  for (const stop of stops) stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Starts api/main.ts on a pseudo-terminal (or with piped output) and resolves with what it wrote up to the listening line. */
async function startUntilListening(name: string, env: Record<string, string>, onTerminal: boolean): Promise<string> {
  const dataDir = path.join(scratch, name);
  await seedPgliteDataDir(dataDir);
  const fullEnv = { ...baseEnv, PORT: '0', DATA_DIR: dataDir, ...env };
  let output = '';
  let exited: number | null = null;
  if (onTerminal) {
    const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], { name: 'xterm-256color', cols: 120, rows: 30, cwd: root, env: fullEnv });
    child.onData((data) => (output += data));
    child.onExit(({ exitCode }) => (exited = exitCode));
    stops.push(() => exited === null && child.kill('SIGTERM'));
  } else {
    const child = spawnProcess(process.execPath, ['--import', 'tsx', 'api/main.ts'], { cwd: root, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => (exited = code));
    stops.push(() => exited === null && child.kill('SIGTERM'));
  }
  // No deadline of its own: the runner's file timeout catches a start that hangs.
  while (!output.includes('cashloop listening')) {
    if (exited !== null) throw new Error(`the server exited ${exited} before listening:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  while (!/cashloop listening[^\n]*\n/.test(output)) await new Promise((resolve) => setTimeout(resolve, 20));
  stops.pop()!();
  return output;
}

test('on a terminal: readable lines, the last naming the address to open, no JSON', async () => {
  const output = plain(await startUntilListening('tty', {}, true));
  const lines = output.split(/\r?\n/).filter((line) => line.trim() !== '');
  assert.ok(lines.every((line) => !line.trimStart().startsWith('{')), output);
  const listening = lines.find((line) => line.includes('cashloop listening'))!;
  assert.match(listening, /^\d\d:\d\d:\d\d info  cashloop listening on http:\/\/127\.0\.0\.1:\d+ \(open http:\/\/127\.0\.0\.1:\d+\/docs for the API reference\)  mode=sandbox storage="pglite [^"]+" locks=in-process/);
});

test('on a terminal with LOG_FORMAT=json, and with output piped: JSON lines', async () => {
  for (const [name, onTerminal, env] of [['json-tty', true, { LOG_FORMAT: 'json' }], ['piped', false, {}]] as const) {
    const output = plain(await startUntilListening(name, env, onTerminal));
    const lines = output.split(/\r?\n/).filter((line) => line.trim() !== '');
    for (const line of lines) JSON.parse(line);
    const listening = JSON.parse(lines.find((line) => line.includes('cashloop listening'))!);
    assert.match(listening.url, /^http:\/\/127\.0\.0\.1:\d+$/, name);
    assert.is(listening.mode, 'sandbox');
  }
});

test('a LOG_FORMAT that is not auto, json or pretty stops start-up with one line', async () => {
  const child = spawnProcess(process.execPath, ['--import', 'tsx', 'api/main.ts'], { cwd: root, env: { ...baseEnv, PORT: '0', DATA_DIR: path.join(scratch, 'bad'), LOG_FORMAT: 'xml' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.is(code, 1);
  assert.is(stderr.trim(), 'Cashloop cannot start: LOG_FORMAT: LOG_FORMAT must be auto, json or pretty');
});

test.run();
