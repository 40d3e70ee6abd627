// Proves `npm install` runs no unreviewed install script and reports no usage: every locked package
// with an install script has an allowScripts entry (npm then prints no install-scripts warning;
// checked by hand with `npm ci` in a scratch copy), @scarf/scarf's is denied and its reporting
// switched off, and every dependency stays pinned to an exact version.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const root = path.resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));

test('every locked package with an install script is reviewed in allowScripts; scarf is denied and off', () => {
  const withScripts = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)
    .filter(([key, entry]) => key !== '' && entry.hasInstallScript)
    .map(([key]) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length));
  const reviewed = Object.keys(manifest.allowScripts ?? {}).map((entry) => entry.replace(/(.)@[^@]*$/, '$1'));
  assert.equal(withScripts.filter((name) => !reviewed.includes(name)), [], 'an install script nobody reviewed');
  assert.is(manifest.allowScripts['@scarf/scarf'], false);
  assert.equal(manifest.scarfSettings, { enabled: false });
});

test('dependencies are exact versions, and the lockfile records the same', () => {
  for (const field of ['dependencies', 'devDependencies']) {
    for (const [name, version] of Object.entries(manifest[field] as Record<string, string>)) {
      assert.match(version, /^\d+\.\d+\.\d+$/, `${name} ${version}`);
      assert.is(lock.packages[''][field][name], version, `${name} in package-lock.json`);
    }
  }
});

test.run();
