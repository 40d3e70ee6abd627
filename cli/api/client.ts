// The typed HTTP client of the Cashloop API, shared by the CLI (and the POS simulator): openapi-fetch
// over the types generated from the server's own /openapi.json (schema.d.ts; `npm run client:generate`).
import { createRequire } from 'node:module';
import type { Client } from 'openapi-fetch';
import type openapiFetch from 'openapi-fetch';
import type { paths } from './schema.d.ts';

/**
 * openapi-fetch, loaded at the first client made: `cashloop --help`, completion and config never
 * call the server and do not pay for it (bench/phases/cli-startup.ts measures the start-up).
 */
const requireLazily = createRequire(import.meta.url);
function createClient(options: { baseUrl: string }): Client<paths> {
  return (requireLazily('openapi-fetch') as { default: typeof openapiFetch }).default<paths>(options);
}

export type CashloopClient = Client<paths>;

export interface ClientOptions {
  baseUrl: string;
  /** Sent as `Authorization: Bearer <bearer>` (an operator key or an access token). */
  bearer?: string;
}

export function cashloopClient(options: ClientOptions): CashloopClient {
  const client = createClient({ baseUrl: options.baseUrl.replace(/\/+$/, '') });
  const bearer = options.bearer;
  if (bearer) {
    client.use({
      onRequest({ request }) {
        request.headers.set('authorization', `Bearer ${bearer}`);
        return request;
      },
    });
  }
  return client;
}
