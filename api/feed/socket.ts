// The bidirectional API's transport: SockJS at /bd/sockjs on the API's own HTTP server (sockjs-client
// connects unchanged; plain WebSocket clients use SockJS's raw endpoint /bd/sockjs/websocket). Each
// connection answers its requests in order, holds its feed subscriptions, closes after the idle time
// without one, and is dropped when it falls too far behind. Connections per client address are bounded.
import type { Server } from 'node:http';
import sockjs, { type Connection } from 'sockjs';
import type { EdgeEngine } from '../../engine/engine.ts';
import type { FeedEnd, FeedSink, ReceiptJson } from '../../engine/feed/service.ts';
import { feedBacklogBytesMax, feedBacklogMessagesMax, feedConnectionsPerAddressMax } from '../../engine/limits.ts';
import type { Authenticators } from '../http/principals.ts';
import { edgeErrors, outageOf } from '../http/errors.ts';
import { errorMessage, parseMessage, receiveFeed, receiveFeedPath, type RequestOutcome } from './requests.ts';

export const sockjsPrefix = '/bd/sockjs';

/** What SockJS has not yet sent to a connection: its session's send buffer, and the bytes waiting in its socket. */
function backlogOf(connection: Connection): { messages: number; bytes: number } {
  const session = (connection as unknown as { _session?: { send_buffer?: unknown[]; recv?: { connection?: { writableLength?: number } } } })._session;
  return { messages: session?.send_buffer?.length ?? 0, bytes: session?.recv?.connection?.writableLength ?? 0 };
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
}

/** A subscription's sink on the connection; `onEnd` hears why it ended (a slow consumer ends the whole connection). */
function sinkFor(connection: Connection, stats: BacklogStats, onEnd: (reason: FeedEnd) => void): FeedSink {
  return {
    send(receipt: ReceiptJson) {
      const backlog = backlogOf(connection);
      if (backlog.messages >= feedBacklogMessagesMax || backlog.bytes >= feedBacklogBytesMax) return false;
      connection.write(JSON.stringify({ path: receiveFeedPath, receipt }));
      const after = backlogOf(connection);
      stats.backlogBytesHighest = Math.max(stats.backlogBytesHighest, after.bytes);
      stats.backlogMessagesHighest = Math.max(stats.backlogMessagesHighest, after.messages);
      return true;
    },
    end(reason: FeedEnd) {
      connection.write(JSON.stringify({ path: receiveFeedPath, subscribed: false, ...reason }));
      onEnd(reason);
    },
  };
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
  const drop = () => {
    if (dropped) return;
    dropped = true;
    stats.slowConsumersDropped += 1;
    for (const subscription of subscriptions) subscription.unsubscribe();
    subscriptions.clear();
    closeWith(connection, 4008, 'slow consumer');
  };
  let queue = Promise.resolve();
  const answer = async (text: string): Promise<void> => {
    const parsed = parseMessage(text);
    if (!parsed.ok) return void connection.write(JSON.stringify(parsed.message));
    const request = parsed.request;
    if (request.path === '/ping') return void connection.write(JSON.stringify({ pong: 1, request_message: request }));
    if (request.path !== receiveFeedPath) return void connection.write(JSON.stringify(errorMessage('404', 'path_not_found', { path: request.path, error_description: `No such path: ${request.path}.` })));
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
    connection.write(JSON.stringify(outcome.reply));
  };
  connection.on('data', (text: string) => {
    if (dropped) return;
    queue = queue.then(() => answer(text)).catch((error) => {
      // The database or Redis out of reach answers 503 busy (try again), as over HTTP; the rest is a bug.
      const outage = outageOf(error);
      if (outage) {
        engine.logger.warn('feed request: dependency unavailable', { outage, error: (error as Error).message });
        connection.write(JSON.stringify(errorMessage('503', 'busy', { error_description: edgeErrors[outage].description })));
        return;
      }
      engine.logger.error('feed request failed', { error });
      connection.write(JSON.stringify(errorMessage('500', 'internal_error')));
    }).finally(armIdle);
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
   * receipt was written to it (a subscriber is dropped before feedBacklogBytesMax / feedBacklogMessagesMax
   * is passed, so these stay within one message of them); and how many slow consumers were dropped.
   */
  stats(): BacklogStats & { connections: number };
}

/** Serves the bidirectional API on the server's port, beside the HTTP routes. */
export function attachBidirectional(server: Server, engine: EdgeEngine, authenticators: Authenticators): Bidirectional {
  const perAddress = new Map<string, number>();
  const connections = new Set<Connection>();
  const stats: BacklogStats = { backlogBytesHighest: 0, backlogMessagesHighest: 0, slowConsumersDropped: 0 };
  const addressMax = Math.floor(feedConnectionsPerAddressMax * engine.config.rateLimitScale);
  const socketServer = sockjs.createServer({ prefix: sockjsPrefix, log: () => {}, disconnect_delay: 5_000 });
  socketServer.on('connection', (connection: Connection | null) => {
    // SockJS hands over null for a connection that closed while opening.
    if (!connection) return;
    const address = connection.remoteAddress ?? 'unknown';
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
  socketServer.installHandlers(server);
  return {
    close() {
      for (const connection of connections) closeWith(connection, 4001, 'server shutting down');
    },
    stats: () => ({ ...stats, connections: connections.size }),
  };
}
