// The typed HTTP client of the Cashloop API, shared by the CLI (and the POS simulator): openapi-fetch
// over the types generated from the server's own /openapi.json (schema.d.ts; `npm run client:generate`).
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema.d.ts';

export type CashloopPaths = paths;
export type CashloopClient = Client<paths>;

export interface ClientOptions {
  baseUrl: string;
  /** Sent as `Authorization: Bearer <bearer>` (an operator key or an access token). */
  bearer?: string;
}

export function cashloopClient(options: ClientOptions): CashloopClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, '') });
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
