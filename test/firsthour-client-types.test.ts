// Proves the CLI's committed client types (cli/api/schema.d.ts) are what openapi-typescript makes of
// the document the server serves at /openapi.json: a route change without `npm run client:generate` fails.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { schemaTypesFile, schemaTypesFor, servedOpenApiDocument } from '../cli/api/generate.ts';
import { createTestDatabase } from './support/harness.ts';

test('cli/api/schema.d.ts matches the served OpenAPI document', async () => {
  const testDatabase = await createTestDatabase();
  let served: unknown;
  try {
    served = await servedOpenApiDocument(testDatabase.database);
  } finally {
    await testDatabase.drop();
  }
  const expected = await schemaTypesFor(served);
  const committed = readFileSync(schemaTypesFile, 'utf8');
  if (committed !== expected) {
    const committedLines = committed.split('\n');
    const expectedLines = expected.split('\n');
    const first = expectedLines.findIndex((line, index) => line !== committedLines[index]);
    assert.unreachable(`cli/api/schema.d.ts is stale (first difference at line ${first + 1}: ${JSON.stringify(expectedLines[first])}); run npm run client:generate`);
  }
});

test.run();
