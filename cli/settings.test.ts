// `cashloop config set operator-key` leaves the config file readable by its owner only (0600), also
// when the file already existed as 0644, and keeps what was stored beside the key.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCliRaw } from '../test/support/cli.ts';
import { configFile } from './settings.ts';

const home = mkdtempSync(path.join(tmpdir(), 'cashloop-config-'));
const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config') };

test.after(() => rmSync(home, { recursive: true, force: true }));

const modeOf = (file: string) => statSync(file).mode & 0o777;

test('an existing 0644 config file is 0600 once it holds the operator key; nothing else is left beside it', async () => {
  const file = configFile(env);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ url: 'http://127.0.0.1:9000' })}\n`);
  chmodSync(file, 0o644);
  assert.is(modeOf(file), 0o644);
  const run = await runCliRaw(['config', 'set', 'operator-key', 'secret-operator-key-0123456789'], env);
  assert.is(run.code, 0, run.stderr);
  assert.is(modeOf(file), 0o600);
  assert.equal(JSON.parse(readFileSync(file, 'utf8')), { url: 'http://127.0.0.1:9000', 'operator-key': 'secret-operator-key-0123456789' });
  assert.equal(readdirSync(path.dirname(file)), ['config.json']);
});

test('a new config file and every rewrite (unset too) are 0600', async () => {
  const file = configFile(env);
  rmSync(file, { force: true });
  assert.is((await runCliRaw(['config', 'set', 'url', 'http://127.0.0.1:9001'], env)).code, 0);
  assert.is(modeOf(file), 0o600);
  chmodSync(file, 0o664);
  assert.is((await runCliRaw(['config', 'unset', 'url'], env)).code, 0);
  assert.is(modeOf(file), 0o600);
});

test.run();
