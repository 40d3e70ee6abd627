// Proves processes that share a data directory and start at once all end up with the one operator key, in a 0600 file, and none fails.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const starters = 6;
const script = `
  const { operatorKeyFor } = await import(${JSON.stringify(path.join(import.meta.dirname, 'operator-key.ts'))});
  process.stdout.write(operatorKeyFor({ operatorKey: undefined, dataDir: process.argv[1] }).key);
`;

function start(dataDir: string): Promise<{ code: number | null; key: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
    let key = '';
    child.stdout.on('data', (chunk) => (key += chunk));
    child.on('close', (code) => resolve({ code, key }));
  });
}

test('six processes starting at once on one data directory share one key', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-operator-key-'));
  try {
    const started = await Promise.all(Array.from({ length: starters }, () => start(dataDir)));
    assert.equal(started.map((one) => one.code), Array(starters).fill(0));
    assert.is(new Set(started.map((one) => one.key)).size, 1, 'one key');
    assert.ok(started[0].key.length >= 32);
    assert.is(statSync(path.join(dataDir, 'operator-key')).mode & 0o777, 0o600);
    const again = await start(dataDir);
    assert.is(again.key, started[0].key, 'a later start reads the same key');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
