// A client of the bidirectional API for tests: sockjs-client (as browser and mobile wallets connect)
// or a raw WebSocket on SockJS's raw endpoint. Messages are queued; `next` waits for one matching a
// predicate (with a deadline, never a fixed sleep), `closed` resolves when the server closes.
import SockJS from 'sockjs-client';
import WebSocket from 'ws';

export type FeedTransport = 'sockjs' | 'websocket';

export interface FeedClient {
  send(message: unknown): void;
  /** Sends a request and answers the next message that is not a pushed receipt. */
  request(message: Record<string, unknown>): Promise<any>;
  /** The next message matching `match` (earlier non-matching messages stay queued). */
  next(match?: (message: any) => boolean, timeoutMs?: number): Promise<any>;
  /** Every message received so far that is still queued. */
  pending(): any[];
  closed: Promise<{ code: number; reason: string }>;
  isOpen(): boolean;
  close(): void;
}

const waitMsDefault = 10_000;

export async function connectFeed(baseUrl: string, transport: FeedTransport): Promise<FeedClient> {
  const queue: any[] = [];
  const waiters: { match: (message: any) => boolean; resolve: (message: any) => void }[] = [];
  let open = true;
  let resolveClosed!: (value: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (resolveClosed = resolve));
  const onMessage = (text: string) => {
    const message = JSON.parse(text);
    const waiter = waiters.findIndex((candidate) => candidate.match(message));
    if (waiter >= 0) waiters.splice(waiter, 1)[0].resolve(message);
    else queue.push(message);
  };
  const onClose = (code: number, reason: string) => {
    open = false;
    resolveClosed({ code, reason });
  };
  let sendText: (text: string) => void;
  let closeSocket: () => void;
  if (transport === 'sockjs') {
    // Handlers before the open: a message may arrive with the handshake.
    const socket = new SockJS(`${baseUrl}/bd/sockjs`);
    socket.onmessage = (event) => onMessage(String(event.data));
    await new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve();
      socket.onclose = (event) => reject(new Error(`sockjs closed while opening: ${event.code} ${event.reason}`));
    });
    socket.onclose = (event) => onClose(event.code, event.reason);
    sendText = (text) => socket.send(text);
    closeSocket = () => socket.close();
  } else {
    const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/bd/sockjs/websocket`);
    socket.on('message', (data) => onMessage(data.toString()));
    socket.on('close', (code, reason) => onClose(code, reason.toString()));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    sendText = (text) => socket.send(text);
    closeSocket = () => socket.close();
  }
  const client: FeedClient = {
    send: (message) => sendText(typeof message === 'string' ? message : JSON.stringify(message)),
    async request(message) {
      const answer = client.next((candidate) => candidate.receipt === undefined);
      client.send(message);
      return answer;
    },
    next(match = () => true, timeoutMs = waitMsDefault) {
      const queued = queue.findIndex(match);
      if (queued >= 0) return Promise.resolve(queue.splice(queued, 1)[0]);
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve: (message: any) => { clearTimeout(timer); resolve(message); } };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching feed message within ${timeoutMs} ms (queued: ${JSON.stringify(queue).slice(0, 500)})`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    pending: () => [...queue],
    closed,
    isOpen: () => open,
    close: () => closeSocket(),
  };
  return client;
}

/** A pushed receipt of the given transfer. */
export const receiptOf = (transferId: string) => (message: any) => message.receipt?.transfer_id === transferId;
