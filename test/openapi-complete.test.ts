// Proves the OpenAPI document is complete for a reader: every operation has a description, an
// example request its own input schema accepts, and the error codes each error status may carry;
// throttled calls list 429 with Retry-After; every call's security is what it really asks
// (/metrics needs the operator key); tags are described; docs/errors.md is the code's catalogue.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errorCatalogue } from '../api/docs/error-catalogue.ts';
import { operationDocs } from '../api/docs/index.ts';
import { errorStatusesOf, isThrottled, operationIdOf } from '../api/http/openapi.ts';
import { dropNulls, type RouteDefinition } from '../api/http/route.ts';
import { allRoutes } from '../api/routes/index.ts';
import { startTestServer, type TestServer } from './support/http.ts';

let server: TestServer;
let document: any;

test.before(async () => {
  server = await startTestServer();
  document = (await server.client.get('/openapi.json')).body;
});
test.after(async () => server.close());

const idOf = (route: RouteDefinition) => route.operationId ?? operationIdOf(route.method, route.path);
const where = (route: RouteDefinition) => `${idOf(route)} (${route.method.toUpperCase()} ${route.path})`;

test('every route has a description, an example and its error codes in api/docs/', () => {
  const problems: string[] = [];
  for (const route of allRoutes()) {
    const doc = operationDocs[idOf(route)];
    if (!doc) {
      problems.push(`${where(route)} has no entry in api/docs/ (description, example, errors)`);
      continue;
    }
    if (doc.description.trim().length < 40) problems.push(`${where(route)}: the description is missing or too short`);
    if (doc.description.trim() === route.summary.trim()) problems.push(`${where(route)}: the description only repeats the summary`);
    const pathNames = [...route.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]);
    for (const name of pathNames) if (typeof doc.example[name] !== 'string') problems.push(`${where(route)}: the example has no path parameter ${name}`);
    const fields = Object.fromEntries(Object.entries(doc.example).filter(([name]) => !pathNames.includes(name) && !name.startsWith('appdata.')));
    const parsed = route.input.safeParse(dropNulls(fields, route.input));
    if (!parsed.success) problems.push(`${where(route)}: the example is not a valid request: ${parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}`);
    const statuses = errorStatusesOf(route, route.method) as number[];
    for (const error of doc.errors) {
      if (!statuses.includes(error.mapping.status)) problems.push(`${where(route)}: ${error.code} answers ${error.mapping.status}, which the route does not declare (add it to the route's errors)`);
    }
  }
  const known = new Set(allRoutes().map(idOf));
  for (const id of Object.keys(operationDocs)) if (!known.has(id)) problems.push(`api/docs/ documents ${id}, which is no route`);
  assert.equal(problems, []);
});

type Operation = { operationId: string; description?: string; security: unknown[]; responses: Record<string, any>; tags: string[] };

function operations(): [string, string, Operation][] {
  return Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([key, item]) =>
    Object.entries(item).map(([method, operation]) => [key, method, operation] as [string, string, Operation]),
  );
}

test('every operation of the served document has a description, an example and codes for each error status', () => {
  const problems: string[] = [];
  for (const [key, method, operation] of operations()) {
    const name = `${operation.operationId} (${method.toUpperCase()} ${key})`;
    if (!operation.description) problems.push(`${name}: no description`);
    if (!('x-request-example' in operation)) problems.push(`${name}: no example`);
    for (const [status, response] of Object.entries(operation.responses)) {
      if (!/^[45]\d\d$/.test(status) || (operation.tags.includes('service') && status === '503')) continue;
      if (response.content?.['text/html']) continue;
      const codes = response['x-error-codes'] as string[] | undefined;
      if (!codes || codes.length === 0) problems.push(`${name}: ${status} names no error code`);
      else for (const code of codes) if (!response.description.includes(`\`${code}\``)) problems.push(`${name}: ${status} does not explain ${code}`);
    }
  }
  assert.equal(problems, []);
  const retract = document.paths['/t/{transferId}/retract'].post;
  assert.equal(retract.requestBody.content['application/json'].example, operationDocs.postTransferRetract.example.reason === undefined ? {} : { reason: operationDocs.postTransferRetract.example.reason });
  assert.ok(retract.responses['400']['x-error-codes'].includes('cannot_retract'));
  assert.ok(retract.responses['401']['x-error-codes'].includes('invalid_token'));
});

test('throttled calls answer 429 with Retry-After; others do not list it', () => {
  for (const route of allRoutes()) {
    const operation = document.paths[route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')][route.method];
    const limited = operation.responses['429'];
    if (!isThrottled(route)) {
      assert.not.ok(limited, `${where(route)} lists 429 but takes no rate-limit points`);
      continue;
    }
    assert.ok(limited, `${where(route)} is throttled but does not list 429`);
    assert.equal(limited['x-error-codes'], ['rate_limited']);
    assert.is(limited.headers['Retry-After'].schema.type, 'integer');
  }
  assert.ok(document.paths['/aa/signup'].post.responses['429']);
  assert.ok(document.paths['/wallet/send'].post.responses['429'] === undefined || isThrottled(allRoutes().find((route) => route.path === '/wallet/send')!));
});

test('every operation declares the security it really asks for: /metrics needs the operator key', async () => {
  assert.equal(document.paths['/metrics'].get.security, [{ operatorKey: [] }]);
  assert.is((await server.client.get('/metrics')).status, 401);
  const withKey = await server.client.get('/metrics', {}, { auth: { operator: true } });
  assert.is(withKey.status, 200);
  for (const path of ['/healthz', '/readyz', '/openapi.json', '/docs']) {
    assert.equal(document.paths[path].get.security, [], path);
    assert.is((await server.client.get(path)).status, 200, path);
  }
  const schemes: Record<string, string> = { token: 'bearerToken', app: 'appBasic', attempt: 'attemptSecret', operator: 'operatorKey' };
  for (const route of allRoutes()) {
    const operation = document.paths[route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')][route.method];
    assert.equal(operation.security, route.caller.kind === 'none' ? [] : [{ [schemes[route.caller.kind]]: [] }], where(route));
  }
});

test('every tag has a real description, not its own name', () => {
  for (const tag of document.tags as { name: string; description: string }[]) assert.ok(tag.description !== tag.name && tag.description.length > 20, `tag ${tag.name}`);
});

test('docs/errors.md is the catalogue of every error table (node --import tsx tools/write-error-catalogue.ts)', () => {
  assert.fixture(readFileSync('docs/errors.md', 'utf8'), errorCatalogue());
  for (const code of ['insufficient_scope', 'pull_not_consented', 'rate_limited', 'not_stakeholder', 'cannot_retract']) assert.ok(errorCatalogue().includes(`\`${code}\``), code);
});

test.run();
