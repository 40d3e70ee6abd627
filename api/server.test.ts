// Proves the edge answers bad requests with clear JSON errors and never a 500 or a stack trace.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../test/support/http.ts';

let server: TestServer;
test.before(async () => {
  server = await startTestServer();
});
test.after(async () => server.close());

test('health, readiness, metrics and the OpenAPI document answer', async () => {
  const { client } = server;
  assert.equal((await client.get('/healthz')).body, { status: 'ok' });
  assert.equal((await client.get('/readyz')).body, { status: 'ready' });
  const metrics = await client.get('/metrics', undefined, { auth: { operator: true } });
  assert.ok(metrics.text.includes('cashloop_http_requests_total'));
  const openApi = await client.get('/openapi.json');
  assert.is(openApi.body.openapi, '3.1.0');
});

test('unknown routes answer 404 JSON', async () => {
  const answer = await server.client.get('/no/such/route');
  assert.is(answer.status, 404);
  assert.is(answer.body.error, 'not_found');
});

test('a method on a path that has no route answers 404', async () => {
  const answer = await server.client.request('DELETE', '/healthz');
  assert.is(answer.status, 404);
});

test('malformed JSON, wrong content types and oversized bodies answer 4xx JSON', async () => {
  const { client } = server;
  const malformed = await client.request('POST', '/no/such', undefined, { rawBody: '{"a":', headers: { 'content-type': 'application/json' } });
  assert.is(malformed.status, 400);
  assert.is(malformed.body.error, 'invalid');
  const wrongType = await client.request('POST', '/no/such', undefined, { rawBody: 'hello', headers: { 'content-type': 'text/plain' } });
  assert.is(wrongType.status, 415);
  const huge = await client.request('POST', '/no/such', undefined, { rawBody: JSON.stringify({ a: 'x'.repeat(1_100_000) }), headers: { 'content-type': 'application/json' } });
  assert.is(huge.status, 413);
  assert.not.ok(huge.text.includes('at '));
});

test('a form or query that is not percent-encoded UTF-8 answers 400 with a clear description', async () => {
  const { client } = server;
  const form = await client.request('POST', '/token/logout', undefined, { rawBody: 'a=%ff%fe', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.is(form.status, 400, form.text);
  assert.is(form.body.error, 'invalid');
  assert.match(form.body.error_description, /decoded/);
  const query = await client.get('/wallet/info?x=%ed%a0%80');
  assert.is(query.status, 400, query.text);
});

test.run();
