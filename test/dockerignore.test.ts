// Proves the build context keeps secrets out: .dockerignore, applied with Docker's rules (checked on
// the examples of Docker's own documentation), to a checkout holding a .env beside
// docker-compose.yml, other settings files, keys and data directories, sends none of them, and still
// sends every file of the repository the image runs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dockerignoreRules, isIgnored } from './support/dockerignore.ts';

const repository = path.resolve(import.meta.dirname, '..');
const rules = dockerignoreRules(readFileSync(path.join(repository, '.dockerignore'), 'utf8'));
const scratch = mkdtempSync(path.join(tmpdir(), 'cashloop-context-'));
test.after(() => rmSync(scratch, { recursive: true, force: true }));

test("the matcher follows Docker's documented examples", () => {
  const ignored = (text: string, file: string) => isIgnored(dockerignoreRules(text), file);
  assert.ok(ignored('*/temp*', 'somedir/temporary.txt'));
  assert.ok(ignored('*/temp*', 'somedir/temp'));
  assert.not.ok(ignored('*/temp*', 'temp'));
  assert.ok(ignored('*/*/temp*', 'somedir/subdir/temporary.txt'));
  assert.ok(ignored('temp?', 'tempa'));
  assert.not.ok(ignored('temp?', 'temp'));
  assert.ok(ignored('**/*.go', 'main.go'));
  assert.ok(ignored('**/*.go', 'a/b/c.go'));
  assert.ok(ignored('/data/', 'data/pglite/PG_VERSION'), 'a directory excludes what it holds');
  const readme = '*.md\n!README*.md\nREADME-secret.md';
  assert.ok(ignored(readme, 'notes.md'));
  assert.not.ok(ignored(readme, 'README.md'));
  assert.ok(ignored(readme, 'README-secret.md'));
  assert.not.ok(ignored('*.md\nREADME-secret.md\n!README*.md', 'README-secret.md'), 'the last match decides');
  assert.ok(ignored('# comment\n\n  .env  ', '.env'));
});

/** Every file under a directory, as context-relative paths. */
function filesUnder(directory: string, prefix = ''): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    return entry.isDirectory() ? filesUnder(path.join(directory, entry.name), relative) : [relative];
  });
}

test('a checkout with a .env, keys and data directories sends none of them, and sends what the image runs', () => {
  const secrets = [
    '.env', '.env.production', '.env.local', 'production.env', 'api/.env', '.npmrc', 'server.pem', 'tls/server.key', 'id_ed25519', 'id_rsa.pub',
    'data/operator-key', 'data/pglite/PG_VERSION', 'data/messages/2026-01-01-1.email.txt', 'other-data/operator-key', 'backup/pglite/base/1',
    'secrets/smtp-password', 'node_modules/x/index.js', '.git/config', 'cli/.cashloop-bundle.mjs', 'server.log', 'coverage/index.html',
  ];
  const tracked = execFileSync('git', ['ls-files'], { cwd: repository, encoding: 'utf8' }).split('\n').filter(Boolean);
  const needed = tracked.filter((file) => /^(api|engine|cli|patches)\//.test(file) || ['package.json', 'package-lock.json', 'Dockerfile'].includes(file));
  assert.ok(needed.includes('api/main.ts') && needed.includes('engine/transfers/paycode-secrets.ts') && needed.includes('engine/messages/service.ts'));
  for (const file of [...secrets, ...needed]) {
    mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true });
    writeFileSync(path.join(scratch, file), 'x');
  }
  const sent = new Set(filesUnder(scratch).filter((file) => !isIgnored(rules, file)));
  assert.equal(secrets.filter((file) => sent.has(file)), [], 'a secret or a data file would be sent');
  assert.equal(needed.filter((file) => !sent.has(file)), [], 'a file the image runs would be left out');
});

test.run();
