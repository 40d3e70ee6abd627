// `npm run client:generate`: writes cli/api/schema.d.ts, the TypeScript types of the API, from the
// OpenAPI document a real server answers at GET /openapi.json (an in-memory server started here),
// with openapi-typescript (tools/openapi-typescript, which has its own lockfile).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Database } from '../../engine/storage/database.ts';

const root = path.resolve(import.meta.dirname, '../..');
export const schemaTypesFile = path.join(root, 'cli/api/schema.d.ts');
const generatorBin = path.join(root, 'tools/openapi-typescript/node_modules/openapi-typescript/bin/cli.js');

/**
 * The document GET /openapi.json answers on a fresh in-memory server: on its own new embedded
 * database, or on the given one (a test hands it a migrated copy of its template, which saves
 * the seconds of initdb and every migration).
 */
export async function servedOpenApiDocument(database?: Database): Promise<unknown> {
  const { loadConfig } = await import('../../engine/config.ts');
  const { createEngine } = await import('../../engine/engine.ts');
  const { createLogger } = await import('../../engine/logger.ts');
  const { createMetrics } = await import('../../engine/metrics.ts');
  const { openPglite } = await import('../../engine/storage/database.ts');
  const { createApp } = await import('../../api/server.ts');
  const { authenticatorsFor } = await import('../../api/authenticators.ts');
  const config = loadConfig({ LOG_LEVEL: 'error', DATA_DIR: tmpdir() });
  const engine = await createEngine({ config, database: database ?? (await openPglite(undefined)), logger: createLogger('error', { silent: true }), metrics: createMetrics() });
  const server = createServer(createApp(engine, authenticatorsFor(engine, 'openapi-generation-key-unused')));
  try {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.json`);
    return await response.json();
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await engine.close();
  }
}

/** The TypeScript that openapi-typescript writes for a document. */
export async function schemaTypesFor(document: unknown): Promise<string> {
  const scratch = mkdtempSync(path.join(tmpdir(), 'cashloop-openapi-'));
  try {
    const input = path.join(scratch, 'openapi.json');
    const output = path.join(scratch, 'schema.d.ts');
    writeFileSync(input, JSON.stringify(document));
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [generatorBin, input, '--output', output], { stdio: ['ignore', 'ignore', 'pipe'] });
      let errors = '';
      child.stderr.on('data', (chunk) => (errors += chunk));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`openapi-typescript failed (${code}): ${errors}`))));
    });
    return readFileSync(output, 'utf8');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const types = await schemaTypesFor(await servedOpenApiDocument());
  writeFileSync(schemaTypesFile, types);
  process.stdout.write(`wrote ${path.relative(root, schemaTypesFile)} (${types.length} characters)\n`);
}
