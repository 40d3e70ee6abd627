// Regenerates pos-sim/api-schema.d.ts from the server's own OpenAPI document (the same one
// GET /openapi.json serves): node --import tsx pos-sim/generate-schema.ts
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApi } from '../api/http/openapi.ts';
import { allRoutes } from '../api/routes/index.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const documentPath = path.join(mkdtempSync(path.join(tmpdir(), 'cashloop-openapi-')), 'openapi.json');
writeFileSync(documentPath, JSON.stringify(buildOpenApi(allRoutes(), { title: 'Cashloop', version: '1' })));
execFileSync(process.execPath, [path.join(root, 'tools/openapi-typescript/node_modules/openapi-typescript/bin/cli.js'), documentPath, '-o', path.join(root, 'pos-sim/api-schema.d.ts')], { stdio: 'inherit' });
