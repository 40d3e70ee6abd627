// Proves that malformed requests to every route of the OpenAPI document (undecodable bodies, bad percent-encoding, NUL and unpaired surrogates, broken images and content types), with and without valid credentials, never answer 5xx, change no table, and leave the server healthy; and that every amount field, given an amount at the maximum, past it, or as a JSON number, never answers 5xx and refuses the latter two naming the field (issue 25).
import fc from 'fast-check';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testOperatorKey, type TestServer } from './support/http.ts';
import { startLedgerServer } from './support/ledger-server.ts';
import { issue, person, type LedgerWorld, type Person } from './ledger-api-support.ts';
import { ledgerFingerprint } from './ledger-support.ts';
import { userToken } from './foundation-helpers.ts';
import { secretHash } from '../engine/ids.ts';
import { amountUnitsMax } from '../engine/limits.ts';

let server: TestServer;
let world: LedgerWorld;
let alice: Person;
let bob: Person;
let pngBytes: Buffer;

/** Seed and size of the run: fixed, so a failure names a request that fails again. */
const fuzzSeed = 20_261_123;
const casesPerRouteAndCaller = 5;

test.before(async () => {
  ({ server, world } = await startLedgerServer());
  alice = await person(server, world);
  bob = await person(server, world);
  await issue(server, alice.id, '25.00');
  const sent = await server.client.post('/wallet/send', { recipient_uid: `service:${bob.id}`, amounts: '0-USD-1.00', message: 'seed' }, { ...alice.auth, form: true });
  assert.is(sent.status, 200, sent.text);
  pngBytes = await sharp({ create: { width: 300, height: 300, channels: 3, background: { r: 10, g: 120, b: 200 } } }).png().toBuffer();
});
test.after(async () => server.close());

/** Tokens the test itself issues, one per route. */
const testTokenHashes: string[] = [];

/** Every row of every table (the test's own tokens and a token's first use aside), as one digest per table. */
async function databaseFingerprint(): Promise<string> {
  const tables = await server.engine.sql<{ table_name: string }[]>`
    select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`;
  const digests: string[] = [await ledgerFingerprint(server.engine)];
  for (const { table_name: table } of tables) {
    if (table === 'schema_migrations') continue;
    // A token's first use is recorded on a read; whether it was ended or refreshed is what counts.
    // The outbox's rows are what a request writes; their delivery (and a delivered message's erased
    // body) is the background loops' work, done meanwhile whatever the requests were.
    const source = table === 'access_tokens'
      ? '(select id, invalidated_at, invalidated_reason, refresh_failures from access_tokens where not (token_hash = any($1::text[])))'
      : table === 'outbox' ? '(select id, kind, created_at from outbox)' : `"${table}"`;
    const rows = await server.engine.sql.unsafe(`select count(*)::int as count, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from ${source} t`, table === 'access_tokens' ? [testTokenHashes] : []);
    digests.push(`${table}:${rows[0].count}:${rows[0].digest}`);
  }
  return digests.join('\n');
}

interface Operation {
  method: string;
  path: string;
  security: string;
  binary: boolean;
  fields: Record<string, any>;
  required: string[];
}

function operations(document: any): Operation[] {
  const list: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(methods)) {
      const body = operation.requestBody?.content?.['application/json']?.schema;
      const query = (operation.parameters ?? []).filter((parameter: any) => parameter.in === 'query');
      const fields = body?.properties ?? Object.fromEntries(query.map((parameter: any) => [parameter.name, parameter.schema ?? {}]));
      const required = body?.required ?? query.filter((parameter: any) => parameter.required).map((parameter: any) => parameter.name);
      list.push({
        method: method.toUpperCase(),
        path,
        security: Object.keys(operation.security?.[0] ?? {})[0] ?? 'none',
        binary: Boolean(operation.requestBody?.content?.['image/png']),
        fields,
        required,
      });
    }
  }
  return list;
}

/** A plausible value for a field, so that a bad character in another field can reach the engine. */
function plausible(name: string, schema: any): unknown {
  const known: Record<string, string> = {
    recipient_uid: `service:${bob.id}`, uid: `service:${bob.id}`, to_uid: `service:${bob.id}`, manager_uid: `service:${alice.id}`,
    amounts: '0-USD-0.01', amount: '0.01', currency: 'USD', q: 'abc', login: 'fuzz@example.com', client_id: world.app.clientId,
    device_uuid: 'fuzz-device', password: 'fuzz password 1', first_name: 'Fuzz', last_name: 'Case',
  };
  if (known[name] !== undefined) return known[name];
  const type = Array.isArray(schema?.type) ? schema.type.find((item: string) => item !== 'null') : schema?.type;
  if (schema?.enum) return schema.enum[0];
  if (schema?.anyOf) return plausible(name, schema.anyOf[0]);
  if (type === 'boolean') return true;
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'array') return [plausible(name, schema.items)];
  if (type === 'object') return {};
  return 'x';
}

const nul = '\u0000';
const badTexts = [`a${nul}b`, nul, '\ud800', 'x\udc00y', `\ud83d${nul}`, 'ok\ud800\u0000'];
const badPathSegments = ['%ff%fe', '%', '%zz', '%c0%af', '%ed%a0%80', 'a%00b'];

type Case =
  | { kind: 'bad_encoding'; encoding: string; bytes: Uint8Array; form: boolean }
  | { kind: 'bad_path'; segment: string; append: boolean }
  | { kind: 'bad_text'; field: string; text: string; form: boolean; appdata: boolean }
  | { kind: 'bad_content_type'; parameterChars: number }
  | { kind: 'bad_image'; cut: number; flip: number; style: string | null };

function caseArbitrary(operation: Operation): fc.Arbitrary<Case> {
  const fieldNames = Object.keys(operation.fields);
  const options: fc.Arbitrary<Case>[] = [
    fc.record({ kind: fc.constant('bad_path' as const), segment: fc.constantFrom(...badPathSegments), append: fc.boolean() }),
    fc.record({
      kind: fc.constant('bad_text' as const),
      field: fieldNames.length > 0 ? fc.constantFrom(...fieldNames) : fc.constant('note'),
      text: fc.constantFrom(...badTexts),
      form: fc.boolean(),
      appdata: fc.boolean(),
    }),
  ];
  if (operation.method !== 'GET') {
    options.push(
      fc.record({ kind: fc.constant('bad_encoding' as const), encoding: fc.constantFrom('gzip', 'deflate', 'br'), bytes: fc.uint8Array({ minLength: 1, maxLength: 64 }), form: fc.boolean() }),
      fc.record({ kind: fc.constant('bad_content_type' as const), parameterChars: fc.integer({ min: 1000, max: 8000 }) }),
    );
  }
  if (operation.binary) {
    options.push(
      fc.record({
        kind: fc.constant('bad_image' as const),
        cut: fc.integer({ min: 8, max: 400 }),
        flip: fc.integer({ min: 0, max: 399 }),
        style: fc.constantFrom(null, 'bogus', '{"w":', 'x'.repeat(8192), `${nul}`),
      }),
    );
  }
  return fc.oneof(...options);
}

function credentialHeader(security: string, valid: boolean, token: string): Record<string, string> {
  if (!valid) return security === 'none' ? {} : { authorization: 'Bearer t0-0-not-a-token' };
  if (security === 'bearerToken') return { authorization: `Bearer ${token}` };
  if (security === 'appBasic') return { authorization: `Basic ${Buffer.from(`${world.app.clientId}:${world.app.clientSecret}`).toString('base64')}` };
  if (security === 'operatorKey') return { authorization: `Bearer ${testOperatorKey}` };
  if (security === 'attemptSecret') return { authorization: 'service secret="not-the-secret"' };
  return {};
}

function fillPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_match, name: string) => (/profile/i.test(name) ? alice.id : name === 'size' ? '73' : '1000000001'));
}

function formBody(fields: Record<string, unknown>): string {
  // Form-encode by hand so unpaired surrogates travel as their own (invalid) UTF-8 escapes.
  const escape = (text: string) => [...text].map((char) => {
    const code = char.charCodeAt(0);
    if (char.length === 1 && code >= 0xd800 && code <= 0xdfff) return `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`;
    return encodeURIComponent(char);
  }).join('');
  return Object.entries(fields).map(([key, value]) => `${escape(key)}=${escape(String(value))}`).join('&');
}

async function send(operation: Operation, fuzz: Case, validCredentials: boolean, token: string): Promise<{ status: number; text: string; label: string }> {
  const headers: Record<string, string> = credentialHeader(operation.security, validCredentials, token);
  let path = fillPath(operation.path);
  const base: Record<string, unknown> = {};
  for (const name of operation.required) base[name] = plausible(name, operation.fields[name]);
  let body: string | Buffer | undefined;
  let query = '';
  const label = `${operation.method} ${operation.path} ${validCredentials ? 'with' : 'without'} credentials: ${JSON.stringify(fuzz, (_key, value) => (value instanceof Uint8Array ? `${value.length} bytes` : typeof value === 'string' && value.length > 40 ? `${value.length} chars` : value))}`;
  if (fuzz.kind === 'bad_path') {
    path = fuzz.append ? `${path}/${fuzz.segment}` : path.replace(/\/[^/]*$/, `/${fuzz.segment}`);
  } else if (fuzz.kind === 'bad_text') {
    const fields = { ...base, [fuzz.appdata ? `appdata.${fuzz.field}` : fuzz.field]: fuzz.text };
    if (operation.method === 'GET' || operation.binary) {
      query = `?${formBody(fields)}`;
    } else if (fuzz.form) {
      body = formBody(fields);
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else {
      body = JSON.stringify(fields);
      headers['content-type'] = 'application/json';
    }
    if (operation.binary) {
      body = pngBytes;
      headers['content-type'] = 'image/png';
    }
  } else if (fuzz.kind === 'bad_encoding') {
    body = Buffer.from(fuzz.bytes);
    headers['content-type'] = fuzz.form ? 'application/x-www-form-urlencoded' : 'application/json';
    headers['content-encoding'] = fuzz.encoding;
  } else if (fuzz.kind === 'bad_content_type') {
    body = operation.binary ? pngBytes : JSON.stringify(base);
    headers['content-type'] = `${operation.binary ? 'image/png' : 'application/json'}; charset=utf-8; p="${'q'.repeat(fuzz.parameterChars)}`;
  } else {
    const corrupted = Buffer.from(pngBytes.subarray(0, Math.min(fuzz.cut, pngBytes.length)));
    if (fuzz.flip < corrupted.length) corrupted[fuzz.flip] ^= 0xff;
    body = corrupted;
    headers['content-type'] = 'image/png';
    if (fuzz.style !== null) headers['x-image-style'] = fuzz.style;
  }
  try {
    const response = await fetch(`${server.baseUrl}${path}${query}`, { method: operation.method, headers, body: body as BodyInit | undefined, redirect: 'manual' });
    const text = await response.text();
    return { status: response.status, text: text.slice(0, 200), label };
  } catch (error) {
    // A header value fetch itself refuses (e.g. a NUL) never reaches the server: nothing to check.
    if (error instanceof TypeError && /header/i.test(String(error.message) + String((error as any).cause))) return { status: 0, text: '', label };
    throw error;
  }
}

test('no malformed request to any route answers 5xx or changes any table, and the server stays healthy', async () => {
  const document = (await server.client.get('/openapi.json')).body;
  const list = operations(document);
  assert.ok(list.length > 50, `only ${list.length} operations in the OpenAPI document`);
  const before = await databaseFingerprint();
  const failures: string[] = [];
  const classes = new Set<string>();
  let sent = 0;
  for (const [index, operation] of list.entries()) {
    // A fresh token of Alice's per route (left out of the fingerprint), so a request that wrongly
    // logged her out is caught here and does not blunt the next route's cases.
    const token = await userToken(server, world.app, alice.id, { concurrent: true });
    testTokenHashes.push(secretHash(token));
    for (const validCredentials of [true, false]) {
      const cases = fc.sample(caseArbitrary(operation), { seed: fuzzSeed + index * 2 + (validCredentials ? 1 : 0), numRuns: operation.binary ? casesPerRouteAndCaller * 3 : casesPerRouteAndCaller });
      for (const fuzz of cases) {
        const answer = await send(operation, fuzz, validCredentials, token);
        sent += 1;
        if (answer.status >= 500) {
          failures.push(`${answer.status} ${answer.label} -> ${answer.text}`);
          classes.add(fuzz.kind);
        }
      }
    }
    const [row] = await server.engine.sql<{ invalidated_reason: string | null }[]>`select invalidated_reason from access_tokens where token_hash = ${secretHash(token)}`;
    if (row.invalidated_reason !== null) failures.push(`${operation.method} ${operation.path}: a malformed request ended the caller's token (${row.invalidated_reason})`);
  }
  const after = await databaseFingerprint();
  const health = await server.client.get('/healthz');
  assert.is(health.status, 200);
  const ready = await server.client.get('/readyz');
  assert.is(ready.status, 200);
  assert.ok(sent > 500, `only ${sent} requests sent`);
  assert.is(failures.length, 0, `${failures.length} answers were 5xx or ended the token (5xx classes: ${[...classes].join(', ')}):\n${failures.slice(0, 40).join('\n')}`);
  assert.fixture(after, before);
});

/** Fields that carry an amount (a decimal string), wherever a route takes one; `amounts` lists carry loop_id-currency-amount entries. */
const amountFieldNames = new Set(['amount', 'price', 'fee', 'max_per_wallet', 'total_due', 'total_tax', 'declared_amount', 'non_service_amount']);

function amountCases(field: string): { value: unknown; refused: boolean; label: string }[] {
  const entry = (amount: string) => (field === 'amounts' ? `0-USD-${amount}` : amount);
  const wrap = (value: unknown) => (field === 'options' ? [{ payment_type: 'service', price: value }] : value);
  return [
    { value: wrap(entry(String(amountUnitsMax))), refused: false, label: 'at the maximum' },
    { value: wrap(entry(`${amountUnitsMax}.01`)), refused: true, label: 'just past the maximum' },
    { value: wrap(entry('999999999999999999.99')), refused: true, label: 'past 64-bit minor units' },
    ...(field === 'amounts' ? [] : [{ value: wrap(1234567890123456.78), refused: true, label: 'a JSON number' }]),
  ];
}

test('every amount field at and past the maximum (and as a JSON number) never answers 5xx; past it is refused naming the field', async () => {
  const document = (await server.client.get('/openapi.json')).body;
  const token = await userToken(server, world.app, alice.id, { concurrent: true });
  const failures: string[] = [];
  let sent = 0;
  for (const operation of operations(document)) {
    if (operation.method === 'GET' || operation.binary) continue;
    const fields = Object.keys(operation.fields).filter((name) => amountFieldNames.has(name) || name === 'amounts' || (name === 'options' && operation.path.startsWith('/o')));
    for (const field of fields) {
      for (const fuzz of amountCases(field)) {
        const body: Record<string, unknown> = {};
        for (const name of operation.required) body[name] = plausible(name, operation.fields[name]);
        body[field] = fuzz.value;
        const headers = { ...credentialHeader(operation.security, true, token), 'content-type': 'application/json' };
        const response = await fetch(`${server.baseUrl}${fillPath(operation.path)}`, { method: operation.method, headers, body: JSON.stringify(body) });
        const text = await response.text();
        sent += 1;
        const label = `${operation.method} ${operation.path} ${field} ${fuzz.label}: ${response.status} ${text.slice(0, 200)}`;
        if (response.status >= 500) failures.push(label);
        if (!fuzz.refused || response.status === 401 || response.status === 403) continue;
        const named = field === 'amounts' ? response.status === 400 : response.status === 400 && Object.keys(JSON.parse(text).invalid ?? {}).some((key) => key === field || key.startsWith(`${field}.`));
        if (!named) failures.push(`not refused naming the field: ${label}`);
      }
    }
  }
  assert.ok(sent > 40, `only ${sent} amount requests sent`);
  assert.is(failures.length, 0, failures.slice(0, 40).join('\n'));
  const ready = await server.client.get('/readyz');
  assert.is(ready.status, 200);
});

test.run();
