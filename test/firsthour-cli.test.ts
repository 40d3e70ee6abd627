// Proves the operator CLI a newcomer meets: it finds its server from --url, CASHLOOP_URL, PORT and
// then its config file, and names the source when it cannot connect; --version; list commands;
// errors in plain words, as JSON with a non-zero exit under --json; completion and config.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveServer } from '../cli/settings.ts';
import { runCliRaw } from './support/cli.ts';
import { startTestServer, testOperatorKey, type TestServer } from './support/http.ts';
import { addBusiness, addIndividual, createApp } from './foundation-helpers.ts';

const root = path.resolve(import.meta.dirname, '..');
const version = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { version: string }).version;
const configHome = mkdtempSync(path.join(tmpdir(), 'cashloop-cli-config-'));
let server: TestServer;
let port: string;

test.before(async () => {
  server = await startTestServer();
  port = new URL(server.baseUrl).port;
});
test.after(async () => {
  await server.close();
  rmSync(configHome, { recursive: true, force: true });
});

/** The CLI with only the given environment (and a private config home). */
function cli(args: string[], env: Record<string, string> = {}) {
  return runCliRaw(args, { XDG_CONFIG_HOME: configHome, CASHLOOP_OPERATOR_KEY: testOperatorKey, ...env });
}

test('the server URL comes from --url, then CASHLOOP_URL, then PORT, then the config file, then port 8080', async () => {
  const env = { XDG_CONFIG_HOME: configHome };
  assert.equal(resolveServer({ url: 'http://a:1' }, { ...env, CASHLOOP_URL: 'http://b:2', PORT: '3' }), { url: 'http://a:1', source: '--url' });
  assert.equal(resolveServer({}, { ...env, CASHLOOP_URL: 'http://b:2', PORT: '3' }), { url: 'http://b:2', source: 'CASHLOOP_URL' });
  assert.equal(resolveServer({}, { ...env, PORT: '3' }), { url: 'http://127.0.0.1:3', source: 'PORT=3' });
  assert.equal(resolveServer({}, env), { url: 'http://127.0.0.1:8080', source: 'the default' });
  assert.is((await cli(['config', 'set', 'url', 'http://c:4'])).code, 0);
  assert.is(resolveServer({}, env).url, 'http://c:4');
  assert.is(resolveServer({}, { ...env, PORT: '3' }).url, 'http://127.0.0.1:3', 'PORT beats the config file');
  assert.is((await cli(['config', 'unset', 'url'])).code, 0);
  // Each source really reaches the server.
  assert.is((await cli(['app', 'list'], { PORT: port })).code, 0);
  assert.is((await cli(['app', 'list'], { CASHLOOP_URL: server.baseUrl, PORT: '1' })).code, 0);
  assert.is((await cli(['--url', server.baseUrl, 'app', 'list'], { CASHLOOP_URL: 'http://127.0.0.1:1' })).code, 0);
});

test('when it cannot connect it says which URL it chose and from where', async () => {
  const run = await cli(['app', 'list'], { PORT: '1' });
  assert.is(run.code, 1);
  assert.match(run.stderr, 'Cannot reach the Cashloop server at http://127.0.0.1:1 (chosen from PORT=1)');
  const fromEnv = await cli(['app', 'list'], { CASHLOOP_URL: 'http://127.0.0.1:9' });
  assert.match(fromEnv.stderr, '(chosen from CASHLOOP_URL)');
});

test('--version prints the package version', async () => {
  const run = await cli(['--version']);
  assert.is(run.code, 0);
  assert.is(run.stdout.trim(), version);
  // And through the real command (cli/bin.js and its bundle).
  const spawned = spawnSync(process.execPath, [path.join(root, 'cli/bin.js'), '--version'], { encoding: 'utf8' });
  assert.is(spawned.status, 0, spawned.stderr);
  assert.is(spawned.stdout.trim(), version);
});

test('list commands show apps, profiles and accounts; app show reads one app', async () => {
  const app = await createApp(server, { name: 'Corner shop' });
  const pat = await addIndividual(server, app, { first: 'Pat', last: 'Lee' });
  await server.client.post('/admin/ledger/accounts', { uid: `service:${pat}`, routing_number: '021000021', account_number: '123456789' }, { auth: { operator: true } });
  const apps = await cli(['app', 'list'], { PORT: port });
  assert.is(apps.code, 0, apps.stderr);
  assert.match(apps.stdout, /client_id\s+name\s+site/);
  assert.match(apps.stdout, app.clientId);
  const profiles = await cli(['profile', 'list', '--json'], { PORT: port });
  assert.ok((JSON.parse(profiles.stdout).profiles as { id: string }[]).some((profile) => profile.id === pat));
  const accounts = await cli(['account', 'list', '--profile', pat], { PORT: port });
  assert.match(accounts.stdout, '...6789');
  const shown = await cli(['app', 'show', app.clientId, '--json'], { PORT: port });
  assert.is(JSON.parse(shown.stdout).client_id, app.clientId);
  assert.not.match(shown.stdout, 'client_secret');
});

test('errors are plain words, and JSON with exit 1 under --json', async () => {
  const app = await createApp(server);
  const manager = await addIndividual(server, app);
  const issuer = await addBusiness(server, app, manager, 'Reserve');
  const pat = await addIndividual(server, app);
  const env = { PORT: port };
  assert.is((await cli(['profile', 'feature', 'add', issuer, 'issue_open_loop'], env)).code, 0);
  assert.is((await cli(['cash', 'issuer', '--uid', `service:${issuer}`], env)).code, 0);
  const precise = await cli(['cash', 'issue', '--to', `service:${pat}`, '--amount', '1.001', '--currency', 'USD'], env);
  assert.is(precise.code, 1);
  assert.is(precise.stderr.trim(), 'cashloop: amount: too many decimal places for USD (2 allowed)');
  const unknown = await cli(['cash', 'issue', '--to', `service:${pat}`, '--amount', '1', '--currency', 'XYZ', '--json'], env);
  assert.is(unknown.code, 1);
  const body = JSON.parse(unknown.stderr);
  assert.is(body.error, 'invalid');
  assert.is(body.status, 400);
  assert.ok(body.invalid.currency);
  const holdings = await cli(['cash', 'holdings', pat, '--json'], env);
  assert.equal(JSON.parse(holdings.stdout).holdings, [], 'nothing issued');
  const wrongKey = await cli(['app', 'list'], { ...env, CASHLOOP_OPERATOR_KEY: 'not-the-operator-key-at-all' });
  assert.is(wrongKey.stderr.trim(), 'cashloop: Wrong operator key.');
  const usage = await cli(['no-such-command', '--json'], env);
  assert.is(usage.code, 1);
  assert.is(JSON.parse(usage.stderr).error, 'unknown_command');
});

test('completion scripts and the config profile', async () => {
  const bash = await cli(['completion', 'bash']);
  assert.is(bash.code, 0);
  assert.match(bash.stdout, 'complete -F _cashloop cashloop');
  assert.match(bash.stdout, /"app"\) words="create show list/);
  const checked = spawnSync('bash', ['-n'], { input: bash.stdout, encoding: 'utf8' });
  assert.is(checked.status, 0, checked.stderr);
  assert.match((await cli(['completion', 'zsh'])).stdout, 'bashcompinit');
  assert.is((await cli(['config', 'set', 'operator-key', 'abcdefgh12345678'])).code, 0);
  const listed = await cli(['config', 'list', '--json']);
  assert.equal(JSON.parse(listed.stdout), { 'operator-key': 'abcd…' });
  assert.is((await cli(['config', 'set', 'colour', 'blue'])).code, 1);
  assert.is((await cli(['config', 'unset', 'operator-key'])).code, 0);
});

test.run();
