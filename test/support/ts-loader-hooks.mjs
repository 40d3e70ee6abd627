// The module hook of test/support/ts-loader.mjs: .ts and .tsx files under the repository (not in
// node_modules) are compiled by esbuild with the tsconfig's settings and an inline source map
// (stack traces and c8 point at the .ts lines); the output is cached in the OS temp directory by a
// digest of the source, its path and the settings. Everything else goes to Node's own loader.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const root = path.resolve(fileURLToPath(import.meta.url), '../../..');
const tsconfig = readFileSync(path.join(root, 'tsconfig.json'), 'utf8');
const esbuildVersion = JSON.parse(readFileSync(path.join(root, 'node_modules/esbuild/package.json'), 'utf8')).version;
const cacheDirectory = path.join(tmpdir(), `cashloop-ts-cache-${process.getuid?.() ?? 0}`);
mkdirSync(cacheDirectory, { recursive: true });

/** esbuild's options for a file: the tsconfig's (target, jsx) as tsx passes them. */
function optionsFor(file) {
  return { loader: file.endsWith('.tsx') ? 'tsx' : 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcefile: file, tsconfigRaw: tsconfig };
}

async function compile(file) {
  const source = readFileSync(file, 'utf8');
  const key = createHash('sha256').update(`${esbuildVersion}\n${tsconfig}\n${file}\n${source}`).digest('hex').slice(0, 32);
  const cached = path.join(cacheDirectory, `${key}.mjs`);
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    // Not compiled yet.
  }
  const { code } = await transform(source, optionsFor(file));
  const building = `${cached}.${process.pid}.tmp`;
  writeFileSync(building, code);
  renameSync(building, cached);
  return code;
}

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:') && /\.tsx?$/.test(new URL(url).pathname) && !url.includes('/node_modules/')) {
    return { format: 'module', source: await compile(fileURLToPath(url)), shortCircuit: true };
  }
  return nextLoad(url, context);
}
