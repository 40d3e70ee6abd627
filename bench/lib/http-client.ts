// A lean JSON client over node:http with a keep-alive Agent, so the load generator spends its
// little CPU on requests rather than on fetch's stream machinery (2 cores are shared with the
// API process, Postgres and Redis).
import { Agent, request } from 'node:http';

export interface HttpAnswer {
  status: number;
  text: string;
}

export interface PreparedRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path with its query string. */
  path: string;
  headers: Record<string, string>;
  /** Already serialised, so the timed section does not pay for JSON.stringify. */
  body: Buffer | null;
}

export class HttpClient {
  readonly agent: Agent;
  private readonly host: string;
  private readonly port: number;

  constructor(baseUrl: string, connectionsMax: number) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
    this.agent = new Agent({ keepAlive: true, maxSockets: connectionsMax, maxFreeSockets: connectionsMax, scheduling: 'lifo' });
  }

  send(prepared: PreparedRequest): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...prepared.headers };
      if (prepared.body) headers['content-length'] = prepared.body.length;
      const outgoing = request({ agent: this.agent, host: this.host, port: this.port, method: prepared.method, path: prepared.path, headers }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        incoming.on('error', reject);
      });
      outgoing.on('error', reject);
      outgoing.end(prepared.body ?? undefined);
    });
  }

  /** A JSON call for setup steps; throws on a non-2xx answer with the body in the message. */
  async json<T = any>(method: PreparedRequest['method'], path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
    const answer = await this.send(prepare(method, path, body, headers));
    if (answer.status < 200 || answer.status > 299) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 500)}`);
    return (answer.text ? JSON.parse(answer.text) : undefined) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}

export function prepare(method: PreparedRequest['method'], path: string, body: unknown, headers: Record<string, string> = {}): PreparedRequest {
  if (body === undefined || body === null) return { method, path, headers, body: null };
  return { method, path, headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from(JSON.stringify(body)) };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
export const basic = (clientId: string, clientSecret: string) => ({ authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` });
