// Every SockJS transport caps what it reads before keeping it: a body over feedTransportBodyBytesMax
// (declared or streamed, on xhr_send, jsonp_send, chunking_test and the polling POSTs) is answered
// 413 while the client is still sending, /healthz stays fast meanwhile, a WebSocket message over
// the cap closes its connection (1009) on both WebSocket endpoints, junk payloads answer 400 (not
// 500), and the iframe page that would load sockjs-client from a public CDN is not served.
import http from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { feedTransportBodyBytesMax } from '../engine/limits.ts';
import { startTestServer, type TestServer } from './support/http.ts';

let server: TestServer;

test.before(async () => {
  server = await startTestServer();
});

test.after(async () => {
  await server.close();
});

const answerWaitMs = 10_000;

interface Upload {
  status: number;
  /** Bytes the client had written when the answer arrived. */
  sentBeforeAnswer: number;
  elapsedMs: number;
}

/**
 * POSTs `totalBytes` of `fill` in 64 KiB writes (respecting backpressure), chunked or with the length
 * declared, and stops writing as soon as the answer arrives. Fails past answerWaitMs.
 */
function upload(path: string, options: { totalBytes: number; contentType: string; declareLength: boolean; fill?: string }): Promise<Upload> {
  const startedAt = performance.now();
  const chunk = Buffer.alloc(64 * 1024, options.fill ?? 'a');
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const timer = setTimeout(() => reject(new Error(`no answer within ${answerWaitMs} ms; ${sent} bytes sent`)), answerWaitMs);
    const request = http.request(new URL(path, server.baseUrl), {
      method: 'POST',
      headers: { 'content-type': options.contentType, ...(options.declareLength ? { 'content-length': String(options.totalBytes) } : {}) },
    });
    request.on('response', (response) => {
      answered = true;
      clearTimeout(timer);
      resolve({ status: response.statusCode ?? 0, sentBeforeAnswer: sent, elapsedMs: performance.now() - startedAt });
      response.resume();
      request.destroy();
    });
    // Once answered, the server closing the connection under the rest of the body is expected.
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sent < options.totalBytes) {
        const piece = chunk.subarray(0, Math.min(chunk.length, options.totalBytes - sent));
        sent += piece.length;
        if (!request.write(piece)) return void request.once('drain', pump);
      }
      if (!answered) request.end();
    };
    pump();
  });
}

async function healthzMs(): Promise<number> {
  const startedAt = performance.now();
  const answer = await server.client.get('/healthz');
  assert.is(answer.status, 200);
  return performance.now() - startedAt;
}

const severalMegabytes = 16 * 1024 * 1024;
const bodyPaths = [
  { path: '/bd/sockjs/000/anysession/xhr_send', contentType: 'text/plain' },
  { path: '/bd/sockjs/000/anysession/jsonp_send', contentType: 'application/x-www-form-urlencoded' },
  { path: '/bd/sockjs/chunking_test', contentType: 'text/plain' },
];

for (const { path, contentType } of bodyPaths) {
  test(`${path}: a streamed body of several MB is answered 413 while it is still being sent; /healthz stays fast`, async () => {
    const uploading = upload(path, { totalBytes: severalMegabytes, contentType, declareLength: false });
    const healthz: number[] = [];
    for (let index = 0; index < 5; index++) healthz.push(await healthzMs());
    const result = await uploading;
    assert.is(result.status, 413);
    assert.ok(result.sentBeforeAnswer < severalMegabytes, `answered before the body ended: ${result.sentBeforeAnswer} of ${severalMegabytes} bytes sent`);
    assert.ok(result.elapsedMs < 2_000, `answered in ${Math.round(result.elapsedMs)} ms`);
    assert.ok(Math.max(...healthz) < 1_000, `/healthz answered in ${healthz.map(Math.round).join(', ')} ms`);
  });
}

for (const path of ['/bd/sockjs/000/anysession/xhr_send', '/bd/sockjs/000/anysession/xhr', '/bd/sockjs/000/anysession/xhr_streaming', '/bd/sockjs/000/anysession/jsonp_send']) {
  test(`${path}: a declared 48 MB body is answered 413 before it is read`, async () => {
    const declared = 48 * 1024 * 1024;
    const result = await upload(path, { totalBytes: declared, contentType: 'text/plain', declareLength: true });
    assert.is(result.status, 413);
    assert.ok(result.sentBeforeAnswer < declared, `${result.sentBeforeAnswer} of ${declared} bytes sent`);
  });
}

test('a body at the cap is read: a batch of messages to a session that does not exist is 404, junk is 400 (never 500)', async () => {
  const batch = JSON.stringify(['x'.repeat(feedTransportBodyBytesMax - 4)]);
  assert.is(Buffer.byteLength(batch), feedTransportBodyBytesMax);
  const atCap = await server.client.request('POST', '/bd/sockjs/000/nosession/xhr_send', undefined, { rawBody: batch, headers: { 'content-type': 'text/plain' } });
  assert.is(atCap.status, 404);
  const overCap = await server.client.request('POST', '/bd/sockjs/000/nosession/xhr_send', undefined, { rawBody: `${batch} `, headers: { 'content-type': 'text/plain' } });
  assert.is(overCap.status, 413);
  const junk = await server.client.request('POST', '/bd/sockjs/000/nosession/xhr_send', undefined, { rawBody: 'not json', headers: { 'content-type': 'text/plain' } });
  assert.is(junk.status, 400, junk.text);
  const noCallback = await server.client.request('GET', '/bd/sockjs/000/nosession/jsonp');
  assert.is(noCallback.status, 400, noCallback.text);
});

/** Opens a WebSocket and resolves with how the server closed it after `message` was sent. */
async function closeAfter(url: string, message: string, opening?: (data: string) => boolean): Promise<number> {
  const socket = new WebSocket(url);
  const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    if (opening) socket.once('message', (data) => (opening(data.toString()) ? resolve() : reject(new Error(`unexpected ${data}`))));
    else socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(message);
  const code = await closed;
  return code;
}

test('a WebSocket message over the cap closes its connection (1009) on the raw and the SockJS endpoints', async () => {
  const ws = server.baseUrl.replace(/^http/, 'ws');
  const oversize = JSON.stringify({ path: '/ping', pad: 'x'.repeat(feedTransportBodyBytesMax) });
  assert.is(await closeAfter(`${ws}/bd/sockjs/websocket`, oversize), 1009);
  assert.is(await closeAfter(`${ws}/bd/sockjs/000/oversize/websocket`, JSON.stringify([oversize]), (data) => data === 'o'), 1009);
});

test('the iframe page is not served (it would load sockjs-client from a public CDN into this origin)', async () => {
  for (const path of ['/bd/sockjs/iframe.html', '/bd/sockjs/iframe-1.6.1.html', '/bd/sockjs/iframe.html?x=1']) {
    const answer = await server.client.get(path);
    assert.is(answer.status, 404, path);
    assert.not.match(answer.text, /cdn|<script/i);
  }
  // The transport's other pages still answer.
  assert.is((await server.client.get('/bd/sockjs/info')).status, 200);
});

test.run();
