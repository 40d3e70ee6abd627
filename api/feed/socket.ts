// The bidirectional API's transport: SockJS at /bd/sockjs on the API's own HTTP server (sockjs-client
// connects unchanged; plain WebSocket clients use SockJS's raw endpoint /bd/sockjs/websocket). Each
// connection answers its requests in order, holds its feed subscriptions, closes after the idle time
// without one, and is dropped when it falls too far behind: every message written to it (receipts,
// answers, errors) counts against the backlog limits, and only so many requests wait for their
// answers. Connections per client address (as the HTTP edge sees it, behind a trusted proxy) are bounded.
import type { Server } from 'node:http';
import express from 'express';
import sockjs, { type Connection } from 'sockjs';
import type { EdgeEngine } from '../../engine/engine.ts';
import type { FeedEnd, FeedSink, ReceiptJson } from '../../engine/feed/service.ts';
import { feedBacklogBytesMax, feedBacklogMessagesMax, feedConnectionsPerAddressMax, feedRequestsPendingMax, feedTransportBodyBytesMax } from '../../engine/limits.ts';
import type { Authenticators } from '../http/principals.ts';
import { trustedProxies } from '../server.ts';
import { edgeErrors, outageOf } from '../http/errors.ts';
import { errorMessage, parseMessage, receiveFeed, receiveFeedPath, type RequestOutcome } from './requests.ts';
import { installSockjs } from './transport.ts';

export const sockjsPrefix = '/bd/sockjs';

interface SockjsInternals {
  _session?: {
    /** Messages waiting for the client's next poll (polling transports). */
    send_buffer?: string[];
    /** The receiver: a WebSocket's TCP socket (`connection`) or a streaming/polling response. */
    recv?: { connection?: { writableLength?: number } | null; response?: { socket?: { writableLength?: number } | null } | null } | null;
  };
}

/** What SockJS has not yet sent to a connection: messages in its session's send buffer, and their bytes with those waiting in its socket. */
function backlogOf(connection: Connection): { messages: number; bytes: number } {
  const session = (connection as unknown as SockjsInternals)._session;
  const buffered = session?.send_buffer ?? [];
  let bytes = 0;
  for (const message of buffered) bytes += message.length;
  const socket = session?.recv?.connection ?? session?.recv?.response?.socket;
  return { messages: buffered.length, bytes: bytes + (socket?.writableLength ?? 0) };
}

/** Closes with a numeric code: SockJS passes it to the WebSocket close frame as is (its typings say string). */
function closeWith(connection: Connection, code: number, reason: string): void {
  (connection.close as unknown as (code: number, reason: string) => boolean).call(connection, code, reason);
}

/** What the transport has held for its connections (tests and operators): see Bidirectional.stats. */
interface BacklogStats {
  backlogBytesHighest: number;
  backlogMessagesHighest: number;
  slowConsumersDropped: number;
  /** Messages written to connections within the backlog limits (receipts, answers, errors). */
  messagesWritten: number;
}

/**
 * Writes a message unless the connection is already as far behind as the backlog limits allow
 * (then it answers false and writes nothing): every message to a client counts, not only receipts.
 */
function writeWithin(connection: Connection, stats: BacklogStats, message: object): boolean {
  const backlog = backlogOf(connection);
  if (backlog.messages >= feedBacklogMessagesMax || backlog.bytes >= feedBacklogBytesMax) return false;
  connection.write(JSON.stringify(message));
  stats.messagesWritten += 1;
  const after = backlogOf(connection);
  stats.backlogBytesHighest = Math.max(stats.backlogBytesHighest, after.bytes);
  stats.backlogMessagesHighest = Math.max(stats.backlogMessagesHighest, after.messages);
  return true;
}

/**
 * The client address the HTTP edge sees: the socket's, or behind proxies Express trusts (`trust
 * proxy`), the X-Forwarded-For entry the nearest untrusted hop added, as Express's req.ip.
 */
const trustsProxy = express().set('trust proxy', trustedProxies).get('trust proxy fn') as (address: string, hop: number) => boolean;
export function clientAddress(socketAddress: string | undefined, forwardedFor: string | undefined): string {
  const hops = [socketAddress ?? 'unknown', ...(forwardedFor ?? '').split(',').map((entry) => entry.trim()).filter(Boolean).reverse()];
  for (let hop = 0; hop < hops.length - 1; hop++) {
    if (!trustsProxy(hops[hop], hop)) return hops[hop];
  }
  return hops[hops.length - 1];
}

/** A subscription's sink on the connection; `onEnd` hears why it ended (a slow consumer ends the whole connection). */
function sinkFor(connection: Connection, stats: BacklogStats, onEnd: (reason: FeedEnd) => void): FeedSink {
  return {
    send: (receipt: ReceiptJson) => writeWithin(connection, stats, { path: receiveFeedPath, receipt }),
    end(reason: FeedEnd) {
      connection.write(JSON.stringify({ path: receiveFeedPath, subscribed: false, ...reason }));
      onEnd(reason);
    },
  };
}

/** The path and request_id of a request, echoed in an answer that refuses it before it is read. */
function echoOf(text: string): { path?: string; request_id?: string } {
  const parsed = parseMessage(text);
  if (!parsed.ok) return {};
  const requestId = parsed.request.request_id;
  return { path: parsed.request.path, ...(typeof requestId === 'string' ? { request_id: requestId } : {}) };
}

/** The answer to a request that failed: the database or Redis out of reach is 503 busy (try again), as over HTTP; the rest is a bug. */
function failureMessage(engine: EdgeEngine, error: unknown): object {
  const outage = outageOf(error);
  if (outage) {
    engine.logger.warn('feed request: dependency unavailable', { outage, error: (error as Error).message });
    return errorMessage('503', 'busy', { error_description: edgeErrors[outage].description });
  }
  engine.logger.error('feed request failed', { error });
  return errorMessage('500', 'internal_error');
}

/** One connection: its requests in order, its subscriptions, its idle timer. */
function serveConnection(engine: EdgeEngine, authenticators: Authenticators, connection: Connection, stats: BacklogStats): void {
  const subscriptions = new Set<{ unsubscribe(): void }>();
  let idleTimer: NodeJS.Timeout | null = null;
  const armIdle = () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = subscriptions.size > 0 ? null : setTimeout(() => closeWith(connection, 4000, 'idle'), engine.config.feedIdleMs);
  };
  // A slow consumer: every subscription of the connection ends with it, nothing more is read or
  // written, and it closes (4008); what SockJS still holds for it is bounded by the backlog limits.
  let dropped = false;
  const drop = (notice?: object) => {
    if (dropped) return;
    dropped = true;
    stats.slowConsumersDropped += 1;
    for (const subscription of subscriptions) subscription.unsubscribe();
    subscriptions.clear();
    if (notice) connection.write(JSON.stringify(notice));
    closeWith(connection, 4008, 'slow consumer');
  };
  // Answers, errors and pongs count against the backlog as receipts do: a client that asks and never
  // reads is dropped as a slow consumer instead of having its answers kept without bound.
  const write = (message: object) => {
    if (dropped) return;
    if (!writeWithin(connection, stats, message)) drop(errorMessage('429', 'slow_consumer', { error_description: 'The connection fell too far behind reading its messages; it closes.' }));
  };
  let queue = Promise.resolve();
  let pending = 0;
  const answer = async (text: string): Promise<void> => {
    const parsed = parseMessage(text);
    if (!parsed.ok) return write(parsed.message);
    const request = parsed.request;
    if (request.path === '/ping') return write({ pong: 1, request_message: request });
    if (request.path !== receiveFeedPath) return write(errorMessage('404', 'path_not_found', { path: request.path, error_description: `No such path: ${request.path}.` }));
    let held: RequestOutcome['subscription'];
    const sink = sinkFor(connection, stats, (reason) => {
      if (held) subscriptions.delete(held);
      if (reason.error === 'slow_consumer') drop();
      else armIdle();
    });
    const outcome = await receiveFeed(engine, authenticators, request, sink);
    held = outcome.subscription;
    if (held && dropped) held.unsubscribe();
    else if (held) subscriptions.add(held);
    write(outcome.reply);
  };
  connection.on('data', (text: string) => {
    if (dropped) return;
    // Requests wait for their answers in order; past feedRequestsPendingMax one is refused at once
    // (its short refusal counts against the backlog too), so waiting requests stay bounded.
    if (pending >= feedRequestsPendingMax) {
      return write(errorMessage('429', 'too_many_pending_requests', { ...echoOf(text), error_description: `At most ${feedRequestsPendingMax} requests wait for their answers on one connection; send more once answers arrive.` }));
    }
    pending += 1;
    queue = queue.then(() => answer(text)).catch((error) => write(failureMessage(engine, error))).finally(() => {
      pending -= 1;
      armIdle();
    });
  });
  connection.on('close', () => {
    if (idleTimer) clearTimeout(idleTimer);
    for (const subscription of subscriptions) subscription.unsubscribe();
    subscriptions.clear();
  });
  armIdle();
}

export interface Bidirectional {
  /** Closes every open connection (their subscriptions end): before the HTTP server closes, which waits for them. */
  close(): void;
  /**
   * Open connections; the most bytes and messages ever left waiting for one connection just after a
   * message (a receipt, an answer) was written to it (a connection is dropped before feedBacklogBytesMax /
   * feedBacklogMessagesMax is passed, so these stay within one message of them); how many slow
   * consumers were dropped; and how many messages were written.
   */
  stats(): BacklogStats & { connections: number };
}

/** Serves the bidirectional API on the server's port, beside the HTTP routes. */
export function attachBidirectional(server: Server, engine: EdgeEngine, authenticators: Authenticators): Bidirectional {
  const perAddress = new Map<string, number>();
  const connections = new Set<Connection>();
  const stats: BacklogStats = { backlogBytesHighest: 0, backlogMessagesHighest: 0, slowConsumersDropped: 0, messagesWritten: 0 };
  const addressMax = Math.floor(feedConnectionsPerAddressMax * engine.config.rateLimitScale);
  // faye_server_options.maxLength: a WebSocket message over the cap closes its connection (1009).
  const socketServer = sockjs.createServer({ prefix: sockjsPrefix, log: () => {}, disconnect_delay: 5_000, ...({ faye_server_options: { maxLength: feedTransportBodyBytesMax } } as object) });
  socketServer.on('connection', (connection: Connection | null) => {
    // SockJS hands over null for a connection that closed while opening.
    if (!connection) return;
    const address = clientAddress(connection.remoteAddress, connection.headers?.['x-forwarded-for']);
    const open = perAddress.get(address) ?? 0;
    if (open >= addressMax) {
      connection.write(JSON.stringify(errorMessage('429', 'too_many_connections', { error_description: `At most ${addressMax} connections per client address.` })));
      closeWith(connection, 4029, 'too many connections');
      return;
    }
    perAddress.set(address, open + 1);
    connections.add(connection);
    connection.on('close', () => {
      connections.delete(connection);
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left === 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
    serveConnection(engine, authenticators, connection, stats);
  });
  installSockjs(server, socketServer, sockjsPrefix);
  return {
    close() {
      for (const connection of connections) closeWith(connection, 4001, 'server shutting down');
    },
    stats: () => ({ ...stats, connections: connections.size }),
  };
}
