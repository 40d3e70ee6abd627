#!/usr/bin/env node
// The `cashloop` command. Runs a bundle of the TypeScript CLI (cli/.cashloop-bundle.mjs, git-ignored),
// rebuilt with esbuild whenever a source under cli/ is newer, because loading tsx alone costs
// about 0.2 s of CPU on every call while the bundle starts in well under 0.1 s. Where the bundle
// cannot be written (a read-only install), it runs the sources through tsx instead.
import { readdirSync, renameSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const cliDirectory = path.dirname(fileURLToPath(import.meta.url));
const bundleFile = path.join(cliDirectory, '.cashloop-bundle.mjs');

/** The newest modification time among the CLI's sources (and what they import from outside cli/). */
function newestSourceMs(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceMs(full));
    else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function bundleIsFresh() {
  try {
    const sourcesMs = Math.max(newestSourceMs(cliDirectory), statSync(path.join(cliDirectory, '../engine/money.ts')).mtimeMs, statSync(path.join(cliDirectory, '../package.json')).mtimeMs);
    return statSync(bundleFile).mtimeMs >= sourcesMs;
  } catch {
    return false;
  }
}

async function buildBundle() {
  const { buildSync } = await import('esbuild');
  const temporary = `${bundleFile}.${process.pid}.tmp`;
  buildSync({ entryPoints: [path.join(cliDirectory, 'main.ts')], bundle: true, platform: 'node', format: 'esm', packages: 'external', target: 'node20', outfile: temporary, logLevel: 'silent' });
  renameSync(temporary, bundleFile);
}

let runCli;
try {
  if (!bundleIsFresh()) await buildBundle();
  ({ runCli } = await import(bundleFile));
} catch {
  const { register } = await import('tsx/esm/api');
  register();
  ({ runCli } = await import('./main.ts'));
}
process.exitCode = await runCli(process.argv.slice(2));
