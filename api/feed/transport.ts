// SockJS on the API's HTTP server, guarded before SockJS reads anything: SockJS serves /bd/sockjs
// ahead of Express, so none of Express's limits apply there. Every body SockJS reads (xhr_send,
// jsonp_send, chunking_test) is capped at feedTransportBodyBytesMax while it arrives and kept as a
// list of chunks joined once (SockJS's own reader reads without limit and copies the whole buffer on
// every chunk); a request that declares a longer body is refused before any of it is read; every
// WebSocket message (both WebSocket endpoints) is capped at the same size. The iframe page, which
// would load sockjs-client from a public CDN into the API's origin, is not served (docs/decisions.md).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import querystring from 'node:querystring';
import type { Duplex } from 'node:stream';
import type { Server as SockjsServer } from 'sockjs';
import { feedTransportBodyBytesMax } from '../../engine/limits.ts';

/** A step of SockJS's request pipeline (sockjs/lib/webjs.js): throwing {status: 0} means "I call next myself". */
type Filter = (request: IncomingMessage, response: ServerResponse, data: unknown, next: (data: unknown) => void) => unknown;

/** What SockJS 0.3.24 keeps inside: its listener's app (the pipeline's steps) and the listener's handler. */
interface SockjsListener {
  app: Record<string, unknown> & { expect_xhr: Filter; expect_form: Filter };
  getHandler(): (request: IncomingMessage, responseOrSocket: ServerResponse | Duplex, head?: Buffer) => boolean;
}

/** How SockJS reads a body of each content type: its own choices (webjs.js), kept. */
const xhrTextTypes = new Set(['text/plain', 'T', 'application/json', 'application/xml', '', 'text/xml']);
const formTextTypes = new Set(['text/plain', '']);

function mediaType(request: IncomingMessage): string {
  return (request.headers['content-type'] ?? '').split(';')[0];
}

/** Refuses a body over the cap: a 413 that closes the connection, so the rest of the body is never read. */
function refuseTooLarge(response: ServerResponse): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = `Payload too large: a request to /bd/sockjs carries at most ${feedTransportBodyBytesMax} bytes.\n`;
  response.writeHead(413, { 'content-type': 'text/plain; charset=UTF-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
  response.end(body);
}

/**
 * A body reader for SockJS's pipeline in place of its own: the chunks are kept as they arrive
 * (never copied into a growing buffer) and joined once at the end; past the cap, reading stops and
 * the request is answered 413.
 */
function cappedBodyReader(decode: (text: string, request: IncomingMessage) => unknown): Filter {
  return (request, response, _data, next) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      bytes += chunk.length;
      if (bytes > feedTransportBodyBytesMax) {
        refused = true;
        chunks.length = 0;
        refuseTooLarge(response);
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (!refused) next(decode(Buffer.concat(chunks, bytes).toString('utf8'), request));
    });
    throw { status: 0 };
  };
}

const readXhr = cappedBodyReader((text, request) => (xhrTextTypes.has(mediaType(request)) ? text : undefined));
const readForm = cappedBodyReader((text, request) => {
  const type = mediaType(request);
  if (type === 'application/x-www-form-urlencoded') return querystring.parse(text);
  return formTextTypes.has(type) ? text : undefined;
});

/**
 * SockJS answers a client's bad payload (not JSON, no messages, a bad JSONP callback) by throwing
 * {status: 500, message}; that is the client's fault, answered 400 with the same message.
 */
function badInputAs400(original: Filter) {
  return function (this: unknown, request: IncomingMessage, response: ServerResponse, failure: unknown) {
    const thrown = failure as { status?: unknown; message?: unknown } | null;
    const isBadInput = typeof thrown === 'object' && thrown !== null && !(thrown instanceof Error) && thrown.status === 500 && typeof thrown.message === 'string';
    return (original as unknown as (...args: unknown[]) => unknown).call(this, request, response, isBadInput ? { status: 400, message: thrown.message } : failure);
  };
}

function declaredLength(request: IncomingMessage): number {
  const header = request.headers['content-length'];
  return header === undefined ? 0 : Number(header);
}

/**
 * SockJS's `/iframe.html` (and its versioned names): the page would run sockjs-client from a public
 * CDN in the API's origin. Without it a browser that needs an iframe transport uses another one.
 */
function isIframePage(pathname: string, prefix: string): boolean {
  return pathname.startsWith(`${prefix}/iframe`) && /^\/iframe[0-9-.a-z_]*\.html\/?$/.test(pathname.slice(prefix.length));
}

/**
 * Serves `socketServer` on `server` ahead of its other listeners (Express), as SockJS's own
 * installHandlers does, with the limits above. Requests outside the prefix go on to the others.
 */
export function installSockjs(server: Server, socketServer: SockjsServer, prefix: string): void {
  const listener = (socketServer as unknown as { listener(): SockjsListener }).listener();
  listener.app.expect_xhr = readXhr;
  listener.app.expect_form = readForm;
  listener.app.handle_error = badInputAs400(listener.app.handle_error as Filter);
  const sockjsHandler = listener.getHandler();
  const underPrefix = new RegExp(`^${prefix}([/].+|[/]?)$`);

  const others = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!underPrefix.test(request.url ?? '')) {
      for (const other of others) other.call(server, request, response);
      return;
    }
    const pathname = (request.url ?? '').split('?')[0];
    if (isIframePage(pathname, prefix)) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=UTF-8' });
      response.end('404 Error: Page not found\n');
      return;
    }
    if (!(declaredLength(request) <= feedTransportBodyBytesMax)) return refuseTooLarge(response);
    sockjsHandler(request, response);
  });

  const otherUpgrades = server.listeners('upgrade') as ((request: IncomingMessage, socket: Duplex, head: Buffer) => void)[];
  server.removeAllListeners('upgrade');
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (underPrefix.test(request.url ?? '')) return void sockjsHandler(request, socket, head);
    if (otherUpgrades.length === 0) return void socket.destroy();
    for (const other of otherUpgrades) other.call(server, request, socket, head);
  });
}
