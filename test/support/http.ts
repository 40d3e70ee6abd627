// An in-process API server on a test engine, and a small client that speaks JSON, forms,
// Bearer tokens, Basic app credentials and attempt secrets.
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { createApp } from '../../api/server.ts';
import { attachBidirectional, type Bidirectional } from '../../api/feed/socket.ts';
import { authenticatorsFor } from '../../api/authenticators.ts';
import { createTestEngine, listen, type TestEngine } from './harness.ts';

export const testOperatorKey = 'test-operator-key-0123456789abcdef';

export interface Answer<Body = any> {
  status: number;
  body: Body;
  text: string;
  headers: Headers;
}

export type Credentials =
  | { bearer: string }
  | { basic: { clientId: string; clientSecret: string } }
  | { attemptSecret: string }
  | { operator: true }
  | undefined;

export interface RequestOptions {
  auth?: Credentials;
  /** Send the body as a form instead of JSON. */
  form?: boolean;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  rawBody?: Buffer | string;
}

export class TestClient {
  constructor(readonly baseUrl: string) {}

  async request<Body = any>(method: string, path: string, body?: Record<string, unknown>, options: RequestOptions = {}): Promise<Answer<Body>> {
    const url = new URL(path, this.baseUrl);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
    const headers: Record<string, string> = { ...options.headers };
    const auth = options.auth;
    if (auth && 'bearer' in auth) headers.authorization = `Bearer ${auth.bearer}`;
    if (auth && 'basic' in auth) headers.authorization = `Basic ${Buffer.from(`${auth.basic.clientId}:${auth.basic.clientSecret}`).toString('base64')}`;
    if (auth && 'attemptSecret' in auth) headers.authorization = `service secret="${auth.attemptSecret}"`;
    if (auth && 'operator' in auth) headers.authorization = `Bearer ${testOperatorKey}`;
    let payload: string | Buffer | undefined;
    if (options.rawBody !== undefined) {
      payload = options.rawBody;
    } else if (body !== undefined && method !== 'GET') {
      if (options.form) {
        const form = new URLSearchParams();
        for (const [key, value] of Object.entries(body)) {
          if (value === undefined) continue;
          if (Array.isArray(value)) for (const item of value) form.append(key, String(item));
          else form.set(key, String(value));
        }
        payload = form.toString();
        headers['content-type'] ??= 'application/x-www-form-urlencoded';
      } else {
        payload = JSON.stringify(body);
        headers['content-type'] ??= 'application/json';
      }
    } else if (body !== undefined && method === 'GET') {
      for (const [key, value] of Object.entries(body)) if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const response = await fetch(url, { method, headers, body: payload as BodyInit | undefined, redirect: 'manual' });
    const text = await response.text();
    let parsed: any = undefined;
    try {
      parsed = text.length > 0 ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed, text, headers: response.headers };
  }

  get<Body = any>(path: string, query?: Record<string, unknown>, options?: RequestOptions) {
    return this.request<Body>('GET', path, query, options);
  }

  post<Body = any>(path: string, body?: Record<string, unknown>, options?: RequestOptions) {
    return this.request<Body>('POST', path, body ?? {}, options);
  }
}

export interface TestServer extends TestEngine {
  client: TestClient;
  baseUrl: string;
  server: Server;
  /** The bidirectional API (/bd/sockjs) on the same server. */
  bidirectional: Bidirectional;
}

/** A test engine (fresh database, manual clock) with the API listening on a free port. */
export async function startTestServer(options: Parameters<typeof createTestEngine>[0] = {}): Promise<TestServer> {
  const harness = await createTestEngine(options);
  const authenticators = authenticatorsFor(harness.engine, testOperatorKey);
  const server = createServer(createApp(harness.engine, authenticators));
  const bidirectional = attachBidirectional(server, harness.engine, authenticators);
  const baseUrl = await listen(server);
  return {
    ...harness,
    client: new TestClient(baseUrl),
    baseUrl,
    server,
    bidirectional,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      bidirectional.close();
      await closed;
      await harness.close();
    },
  };
}

/** Asserts a refusal by its status and its error code (the spec's error body), not the status alone. */
export function assertRefused(answer: { status: number; body?: unknown }, status: number, error: string, message?: string): void {
  assert.is(answer.status, status, message ?? `status (body ${JSON.stringify(answer.body)?.slice(0, 300)})`);
  assert.is((answer.body as { error?: unknown } | null | undefined)?.error, error, message ?? `error code of a ${status}`);
}
