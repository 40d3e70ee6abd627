// The served OpenAPI document is complete and passes a real linter: Redocly CLI's `recommended`
// ruleset (redocly.yaml) with zero errors and zero warnings, offline. Every operation has an
// operationId, a typed 200 answer and its error answers; servers names where it was served.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { operationIdOf, projectLicense } from '../api/http/openapi.ts';
import { allRoutes } from '../api/routes/index.ts';
import { startTestServer, type TestServer } from './support/http.ts';

let server: TestServer;
let document: any;

test.before(async () => {
  server = await startTestServer();
  const answer = await server.client.get('/openapi.json');
  assert.is(answer.status, 200);
  document = answer.body;
});
test.after(async () => server.close());

type Operation = { operationId: string; responses: Record<string, any>; tags: string[] };

function operations(): [string, string, Operation][] {
  return Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([key, item]) =>
    Object.entries(item).map(([method, operation]) => [key, method, operation] as [string, string, Operation]),
  );
}

/** Follows a local $ref (#/components/...). */
function resolve(value: any): any {
  if (!value || typeof value.$ref !== 'string') return value;
  const target = value.$ref.replace(/^#\//, '').split('/').reduce((node: any, part: string) => node?.[part], document);
  assert.ok(target, `${value.$ref} does not resolve`);
  return target;
}

test('servers names the base URL the document was served from; info carries the license', () => {
  assert.equal(document.servers, [{ url: server.baseUrl, description: 'This Cashloop server.' }]);
  assert.equal(document.info.license, projectLicense);
  // The same license as package.json and the LICENSE file.
  assert.is(JSON.parse(readFileSync('package.json', 'utf8')).license, projectLicense.identifier);
  assert.match(readFileSync('LICENSE', 'utf8'), /^MIT License/);
  assert.is(document.openapi, '3.1.0');
});

test('every route is an operation with a unique operationId, a typed 200 answer and error answers', () => {
  const ids = new Set<string>();
  for (const [key, method, operation] of operations()) {
    assert.type(operation.operationId, 'string', `${method} ${key}`);
    assert.not.ok(ids.has(operation.operationId), `operationId ${operation.operationId} is used twice`);
    ids.add(operation.operationId);
    const ok = operation.responses['200'];
    assert.ok(ok, `${method} ${key} has no 200 answer`);
    const content = ok.content as Record<string, { schema: Record<string, unknown> }>;
    assert.ok(content && Object.keys(content).length > 0, `${method} ${key}: the 200 answer has no content`);
    for (const [type, media] of Object.entries(content)) assert.ok(media.schema && Object.keys(media.schema).length > 0, `${method} ${key} ${type}: empty schema`);
    if (operation.tags.includes('service')) continue;
    const errors = Object.keys(operation.responses).filter((status) => /^4\d\d$/.test(status));
    assert.ok(errors.includes('400'), `${method} ${key} has no 400 answer`);
    for (const status of errors) {
      // The /authorize forms answer an expired form with an HTML page, not an Error body.
      if (resolve(operation.responses[status]).content['text/html']) continue;
      const schema = resolve(resolve(operation.responses[status]).content['application/json'].schema);
      assert.ok((schema.required as string[]).includes('error') && (schema.required as string[]).includes('error_description'), `${method} ${key} ${status}`);
    }
  }
  const routes = allRoutes();
  // Plus the service's own: /openapi.json, /docs, /healthz, /readyz, /metrics.
  assert.is(ids.size, routes.length + routes.filter((route) => route.alsoPost).length + 5);
  // Authenticated routes answer 401; routes that need a permission answer 403 too.
  const send = document.paths['/wallet/send'].post;
  assert.ok(send.responses['401'] && send.responses['403'] && send.responses['503']);
  assert.is(send.operationId, 'postWalletSend');
  assert.is(document.paths['/t/{transferId}/retract'].post.operationId, 'postTransferRetract');
  assert.ok(document.paths['/aa/{attemptId}/signup-finish'].post.responses['410']['x-error-codes'].length > 0);
  assert.is(operationIdOf('get', '/design/:designId'), 'getDesignByDesignId');
});

test('answers reference the shared schemas: TransferDetail, ProfileDetail, AccessTokenInfo, Error', () => {
  const schemas = document.components.schemas;
  for (const name of ['TransferDetail', 'Transfer', 'ProfileDetail', 'Profile', 'AccessTokenInfo', 'AuthnResult', 'Error', 'PaymentCode', 'Movement', 'UIDInfo']) {
    assert.ok(schemas[name], `components.schemas.${name} is missing`);
  }
  assert.equal(document.paths['/t/{transferId}'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/TransferDetail' });
  assert.equal(document.paths['/token/refresh'].post.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/AccessTokenInfo' });
  const info = document.paths['/wallet/info'].get.responses['200'].content['application/json'].schema;
  assert.equal(info.properties.profile, { $ref: '#/components/schemas/ProfileDetail' });
  assert.ok(schemas.TransferDetail.required.includes('payment_codes'));
  // Raw answers: images and the OAuth pages.
  assert.ok(document.paths['/image/profile/{profileId}/{size}'].get.responses['200'].content['image/png']);
  assert.ok(document.paths['/authorize'].get.responses['302'].headers.Location);
});

test('Redocly lint (recommended ruleset, redocly.yaml) passes with no errors and no warnings, offline', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'cashloop-openapi-'));
  try {
    const file = path.join(directory, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const result = spawnSync(path.resolve('node_modules/.bin/redocly'), ['lint', '--config', path.resolve('redocly.yaml'), '--format', 'json', file], {
      encoding: 'utf8',
      timeout: 120_000,
      // No telemetry, no update check: the lint needs no network.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    const json = result.stdout.slice(result.stdout.indexOf('{'));
    const report = JSON.parse(json) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    const problems = report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`);
    assert.equal(problems, []);
    assert.equal(report.totals, { errors: 0, warnings: 0, ignored: 0 });
    assert.is(result.status, 0, result.stderr);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test.run();
