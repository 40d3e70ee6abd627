// Proves the Docker path without Docker: the Dockerfile's own COPY, ENV, RUN and CMD lines, run as
// written in a clean temporary folder, install the production tree and start a server that answers
// /readyz; and docker-compose.yml's default API is a sandbox that starts, its production profile a
// production configuration that starts once the settings its comments name are given; the sandbox
// is published on loopback only, and production's settings check names each missing setting.
//
// The only translations from an image to this machine: absolute paths of the image (/app, /data)
// live under the temporary folder, the image's `node` user is whoever runs the test, and the CMD's
// PORT is a free port. npm runs with prefer-offline (configuration, not a change to the command).
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { loadConfig, productionProblems } from '../engine/config.ts';
import { dockerignoreRules, isIgnored } from './support/dockerignore.ts';

const repository = path.resolve(import.meta.dirname, '..');
const startTimeoutMs = 5 * 60 * 1000;
const readyPollMs = 250;

interface Instruction {
  keyword: string;
  argument: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function parseDockerfile(text: string): Instruction[] {
  const logical = text.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  return logical.map((line) => {
    const [keyword, ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), argument: rest.join(' ') };
  });
}

/** ENV's `KEY=value KEY2=value2` form, or the old `KEY value`. */
function parseEnv(argument: string): [string, string][] {
  const [first, ...rest] = argument.split(/\s+/);
  if (!first.includes('=')) return [[first, rest.join(' ')]];
  return argument.split(/\s+/).map((pair) => {
    const at = pair.indexOf('=');
    return [pair.slice(0, at), pair.slice(at + 1).replace(/^"(.*)"$/, '$1')];
  });
}

/** .dockerignore's rules, applied as Docker applies them (test/support/dockerignore.ts), as one predicate on a context-relative path. */
function dockerignore(): (relative: string) => boolean {
  const file = path.join(repository, '.dockerignore');
  const rules = dockerignoreRules(existsSync(file) ? readFileSync(file, 'utf8') : '');
  return (relative) => isIgnored(rules, relative.split(path.sep).join('/'));
}

interface Image {
  root: string;
  workdir: string;
  env: Record<string, string>;
  cmd: string[];
  exposed: number;
  steps: string[];
}

/** Runs the Dockerfile's steps up to CMD in a fresh folder; returns what CMD needs. */
function buildWithoutDocker(root: string): Image {
  const instructions = parseDockerfile(readFileSync(path.join(repository, 'Dockerfile'), 'utf8'));
  const ignored = dockerignore();
  const inImage = (absolute: string) => path.join(root, absolute);
  const image: Image = { root, workdir: inImage('/'), env: {}, cmd: [], exposed: 0, steps: [] };
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  for (const { keyword, argument } of instructions) {
    image.steps.push(`${keyword} ${argument}`);
    if (keyword === 'FROM') assert.match(argument, /^node:20[.-]/, 'the image is Node 20, like this machine');
    else if (keyword === 'WORKDIR') mkdirSync((image.workdir = inImage(argument)), { recursive: true });
    else if (keyword === 'ENV') for (const [key, value] of parseEnv(argument)) image.env[key] = value.startsWith('/') ? inImage(value) : value;
    else if (keyword === 'COPY') copyIntoImage(argument, image, ignored);
    else if (keyword === 'RUN') runStep(argument, image, { uid, gid });
    else if (keyword === 'EXPOSE') image.exposed = Number(argument);
    else if (keyword === 'CMD') image.cmd = JSON.parse(argument);
    else if (!['VOLUME', 'USER', 'LABEL', 'ARG'].includes(keyword)) assert.unreachable(`this test does not know ${keyword}`);
  }
  return image;
}

function copyIntoImage(argument: string, image: Image, ignored: (relative: string) => boolean): void {
  const parts = argument.split(/\s+/).filter((part) => !part.startsWith('--'));
  const destination = parts.pop()!;
  const target = destination.startsWith('/') ? path.join(image.root, destination) : path.resolve(image.workdir, destination);
  for (const source of parts) {
    const from = path.resolve(repository, source);
    // A directory's contents go into the destination; a file goes into it when it ends with "/".
    const into = statSync(from).isDirectory() || !destination.endsWith('/') ? target : path.join(target, path.basename(from));
    const filter = (file: string) => {
      const relative = path.relative(repository, file);
      return relative === '' || !ignored(relative);
    };
    cpSync(from, into, { recursive: true, filter });
  }
}

function runStep(command: string, image: Image, user: { uid: number; gid: number }): void {
  // The image's absolute paths live under the folder; its `node` user is this test's user.
  const translated = command.replace(/(^|[\s=])(\/(?:app|data)\b)/g, (_match, before: string, absolute: string) => `${before}${path.join(image.root, absolute)}`).replace(/\bnode:node\b/g, `${user.uid}:${user.gid}`);
  const started = performance.now();
  const outcome = spawnSync('sh', ['-c', translated], {
    cwd: image.workdir,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? image.root, ...image.env, npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' },
    encoding: 'utf8',
    timeout: startTimeoutMs,
  });
  assert.is(outcome.status, 0, `RUN ${command} failed:\n${outcome.stdout}\n${outcome.stderr}`);
  process.stdout.write(`  RUN ${command} (${Math.round(performance.now() - started)} ms)\n`);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForReady(url: string, child: ReturnType<typeof spawn>, output: () => string): Promise<void> {
  const deadline = performance.now() + startTimeoutMs;
  let exited = false;
  child.once('exit', () => (exited = true));
  while (performance.now() < deadline) {
    if (exited) assert.unreachable(`the CMD exited before it was ready:\n${output()}`);
    const answer = await fetch(url).catch(() => null);
    if (answer?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, readyPollMs));
  }
  assert.unreachable(`no 200 from ${url}:\n${output()}`);
}

const scratch = mkdtempSync(path.join(tmpdir(), 'cashloop-docker-'));
test.after(() => rmSync(scratch, { recursive: true, force: true }));

test("the Dockerfile's install and start steps, run as written in a clean folder, give a server that answers /readyz", async () => {
  const image = buildWithoutDocker(scratch);
  const app = image.workdir;
  // NODE_ENV=production installed the production tree, with patches/ applied by postinstall.
  assert.not.ok(existsSync(path.join(app, 'node_modules/uvu')), 'no dev package in the image');
  assert.match(readFileSync(path.join(app, 'node_modules/postgres/cjs/src/connection.js'), 'utf8'), 'Cashloop patch');
  assert.not.ok(existsSync(path.join(app, 'test')) && existsSync(path.join(app, 'node_modules/.bin/uvu')));
  const port = await freePort();
  const [program, ...args] = image.cmd;
  assert.is(program, 'node');
  let output = '';
  const child = spawn(process.execPath, args, { cwd: app, env: { PATH: process.env.PATH ?? '', ...image.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  try {
    await waitForReady(`http://127.0.0.1:${port}/readyz`, child, () => output);
    const listening = output.split('\n').find((line) => line.includes('cashloop listening'));
    assert.ok(listening, output);
    assert.is(JSON.parse(listening!).mode, 'sandbox');
    assert.is(JSON.parse(listening!).host, '0.0.0.0');
    // DATA_DIR=/data is the image's volume: the operator key and the embedded database are there.
    assert.ok(existsSync(path.join(image.env.DATA_DIR, 'operator-key')));
    assert.is(image.exposed, 8080);
  } finally {
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await closed;
  }
});

/** A compose service's environment as Compose would interpolate it (`${NAME:-default}` only). */
function composeEnvironment(service: { environment: Record<string, string> }, shell: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service.environment).map(([key, value]) => [key, String(value).replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_match, name: string, fallback = '') => shell[name] || fallback)]),
  );
}

const compose = parseYaml(readFileSync(path.join(repository, 'docker-compose.yml'), 'utf8')) as { services: Record<string, any> };

test('docker compose up starts a sandbox API that starts with nothing set', () => {
  const api = compose.services.api;
  assert.is(api.profiles, undefined, 'the sandbox API starts by default');
  const config = loadConfig({ ...composeEnvironment(api, {}), PORT: '8080', HOST: '0.0.0.0', DATA_DIR: '/data' });
  assert.is(config.mode, 'sandbox');
  assert.equal(productionProblems(config), []);
  assert.ok(config.databaseUrl && config.redisUrls);
  // Compose interpolates every service before it applies profiles: a `${NAME:?}` anywhere would stop the default.
  assert.not.match(readFileSync(path.join(repository, 'docker-compose.yml'), 'utf8'), /\$\{\w+:?\?/);
});

test('the production profile starts a production API once the settings named in its comments are given', () => {
  const production = compose.services['api-production'];
  assert.equal(production.profiles, ['production']);
  assert.equal(compose.services['postgres-production'].profiles, ['production']);
  const settings = {
    POSTGRES_PASSWORD: 'a-strong-password',
    SMTP_URL: 'smtp://mail.example.com:587',
    SMS_WEBHOOK_URL: 'https://sms.example.com/send',
    RECAPTCHA_SITE_KEY: 'site-key',
    RECAPTCHA_SECRET: 'secret',
    CASHLOOP_PUBLIC_URL: 'https://pay.example.com',
  };
  const documented = readFileSync(path.join(repository, 'docker-compose.yml'), 'utf8');
  for (const name of Object.keys(settings)) assert.ok(documented.includes(`#   ${name}=`) || documented.includes(` ${name}=`), `${name} is named in the comments`);
  const config = loadConfig({ ...composeEnvironment(production, settings), PORT: '8080', HOST: '0.0.0.0', DATA_DIR: '/data' });
  assert.is(config.mode, 'production');
  assert.equal(productionProblems(config), []);
  assert.not.equal(config.databaseUrl, loadConfig(composeEnvironment(compose.services.api, {})).databaseUrl);
  // Without them, the server names each missing one (it refuses to start with that line).
  assert.is(productionProblems(loadConfig(composeEnvironment(production, { POSTGRES_PASSWORD: 'x' }))).length, 3);
});

test('the sandbox is published on 127.0.0.1 unless CASHLOOP_SANDBOX_BIND says otherwise', () => {
  const [published] = compose.services.api.ports as string[];
  const interpolate = (shell: Record<string, string>) => published.replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_match, name: string, fallback = '') => shell[name] || fallback);
  assert.is(interpolate({}), '127.0.0.1:8080:8080');
  assert.is(interpolate({ CASHLOOP_SANDBOX_BIND: '0.0.0.0', CASHLOOP_SANDBOX_PORT: '9090' }), '0.0.0.0:9090:8080');
});

/** Runs production-settings' command as its container would (Compose turns `$$` into `$`), with only the given settings. */
function checkProductionSettings(settings: Record<string, string>): { status: number | null; output: string } {
  const service = compose.services['production-settings'];
  assert.equal(service.entrypoint, ['sh', '-c']);
  const environment = composeEnvironment(service, settings);
  const outcome = spawnSync('sh', ['-c', String(service.command[0]).replace(/\$\$/g, '$')], { env: { PATH: process.env.PATH ?? '', ...environment }, encoding: 'utf8' });
  return { status: outcome.status, output: `${outcome.stdout}${outcome.stderr}` };
}

test("production's settings are checked before any production container starts: one line naming each missing or empty one", () => {
  for (const name of ['postgres-production', 'api-production']) {
    assert.equal(compose.services[name].depends_on['production-settings'], { condition: 'service_completed_successfully' }, name);
  }
  assert.equal(compose.services['production-settings'].profiles, ['production']);
  // The names it checks: the database password and every setting the server's own production check names.
  // (Each problem names its settings first, then says why: "production needs SMTP_URL: without it …".)
  const problems = productionProblems(loadConfig({ CASHLOOP_MODE: 'production', DATABASE_URL: 'postgres://cashloop@db/cashloop', REDIS_URL: 'redis://redis:6379' }));
  const serverNames = [...new Set(problems.flatMap((problem) => problem.split(':')[0].match(/\b[A-Z][A-Z_]{3,}\b/g) ?? []))];
  const all = { POSTGRES_PASSWORD: 'a-strong-password', SMTP_URL: 'smtp://mail.example.com', SMS_WEBHOOK_URL: 'https://sms.example.com', RECAPTCHA_SITE_KEY: 'k', RECAPTCHA_SECRET: 's' };
  assert.equal(Object.keys(all).sort(), ['POSTGRES_PASSWORD', ...serverNames].sort());
  const none = checkProductionSettings({});
  assert.is(none.status, 1);
  assert.is(none.output, 'Cashloop production cannot start: set POSTGRES_PASSWORD SMTP_URL SMS_WEBHOOK_URL RECAPTCHA_SITE_KEY RECAPTCHA_SECRET (in the environment, or a .env file beside docker-compose.yml)\n');
  const emptyPassword = checkProductionSettings({ ...all, POSTGRES_PASSWORD: '' });
  assert.is(emptyPassword.status, 1);
  assert.match(emptyPassword.output, /^Cashloop production cannot start: set POSTGRES_PASSWORD \(/);
  const given = checkProductionSettings(all);
  assert.is(given.status, 0, given.output);
});

test.run();
