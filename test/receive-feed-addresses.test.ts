// The feed's connections per client address count the address the HTTP edge trusts: behind a proxy
// on the same host (X-Forwarded-For from loopback, as Express's `trust proxy`), one client holding
// its limit of connections is refused more, while other clients behind the same proxy still connect;
// a client cannot escape its limit by writing extra entries into X-Forwarded-For.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { clientAddress } from '../api/feed/socket.ts';
import { startTestServer, type TestServer } from './support/http.ts';

let server: TestServer;
const opened: WebSocket[] = [];

test.before(async () => {
  // 3 connections per client address (50 scaled by 0.06).
  server = await startTestServer({ env: { CASHLOOP_RATE_LIMIT_SCALE: '0.06' } });
});

test.after(async () => {
  for (const socket of opened) socket.terminate();
  await server.close();
});

/** Opens a raw WebSocket as if through a proxy on this host; answers the first message (or none) and how it closed. */
async function connectAs(forwardedFor: string | null): Promise<{ socket: WebSocket; first: Promise<any>; closed: Promise<number> }> {
  const socket = new WebSocket(`${server.baseUrl.replace(/^http/, 'ws')}/bd/sockjs/websocket`, { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });
  opened.push(socket);
  const first = new Promise<any>((resolve) => socket.once('message', (data) => resolve(JSON.parse(data.toString()))));
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, first, closed };
}

async function ping(connection: { socket: WebSocket; first: Promise<any> }): Promise<void> {
  connection.socket.send(JSON.stringify({ path: '/ping' }));
  assert.is((await connection.first).pong, 1);
}

test('one proxied client at its limit is refused; others behind the same proxy, and the proxy itself, still connect', async () => {
  for (let index = 0; index < 3; index++) await ping(await connectAs('203.0.113.7'));
  const fourth = await connectAs('203.0.113.7');
  assert.is((await fourth.first).error, 'too_many_connections');
  assert.is(await fourth.closed, 4029);
  // Extra entries written by the client itself do not make it someone else: the proxy appended its address last.
  const spoofed = await connectAs('198.51.100.99, 203.0.113.7');
  assert.is((await spoofed.first).error, 'too_many_connections');
  await ping(await connectAs('198.51.100.9'));
  await ping(await connectAs(null));
});

test('the client address: the socket unless it is a trusted (loopback) proxy; then the nearest untrusted X-Forwarded-For entry', () => {
  assert.is(clientAddress('127.0.0.1', undefined), '127.0.0.1');
  assert.is(clientAddress('127.0.0.1', '203.0.113.7'), '203.0.113.7');
  assert.is(clientAddress('::1', '198.51.100.1, 203.0.113.7'), '203.0.113.7');
  assert.is(clientAddress('127.0.0.1', '203.0.113.7, 127.0.0.1'), '203.0.113.7');
  // A client that is not a trusted proxy is itself, whatever it claims.
  assert.is(clientAddress('192.0.2.5', '203.0.113.7'), '192.0.2.5');
  // Junk in the header stops the walk there, as in Express.
  assert.is(clientAddress('127.0.0.1', 'not-an-address'), 'not-an-address');
});

test.run();
