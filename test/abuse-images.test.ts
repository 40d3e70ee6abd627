// Proves image uploads cannot take the server's CPU (issue 25 finding 3): a 27 KB GIF that decodes to 6300×6300 pixels answers 400 naming image before any decoding (GIF's pixels times frames bound), a header promising more than imageDecodeWorkPixelsMax pixels times frames is refused before decoding (a decode past imageDecodeSecondsMax is the backstop), and uploads are throttled per token (429 with Retry-After). Limits at their production values (scale 1).
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { imageDecodesInFlightMax, imageDecodesQueuedMax, imageDecodeWorkPixelsMax, rateImageUploadsPerTokenMax } from '../engine/limits.ts';
import { decodeWorkProblem } from '../engine/sharp.ts';
import { addIndividual, createApp, userToken } from './foundation-helpers.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';

let server: TestServer;
let bearer: { bearer: string };
let bomb: Buffer;
test.before(async () => {
  // The production priority: the decoder at low priority still answers (no rendition test relies on timing).
  server = await startTestServer({ env: { CASHLOOP_RATE_LIMIT_SCALE: '1', CASHLOOP_IMAGE_DECODER_PRIORITY: 'low' } });
  const app = await createApp(server);
  const id = await addIndividual(server, app);
  bearer = { bearer: await userToken(server, app, id, { concurrent: true }) };
  bomb = await sharp({ create: { width: 6300, height: 6300, channels: 3, background: { r: 1, g: 2, b: 3 } } }).gif().toBuffer();
});
test.after(async () => server.close());

const put = (body: Buffer, type = 'image/gif') => server.client.request('PUT', '/wallet/image', undefined, { auth: bearer, rawBody: body, headers: { 'content-type': type } });

test('a small GIF that decodes to 40 megapixels is refused before decoding, with the field named', async () => {
  assert.ok(bomb.length < 64 * 1024, `${bomb.length} bytes`);
  const answer = await put(bomb);
  assertRefused(answer, 400, 'invalid');
  assert.match(answer.body.invalid.image, /pixels times frames to decode/);
});

test('pixels times frames past the bound are refused from the header alone', () => {
  assert.is(decodeWorkProblem({ width: 2000, height: 2000, pages: 10 } as never), null);
  assert.ok(decodeWorkProblem({ width: 2000, height: 2000, pages: Math.ceil(imageDecodeWorkPixelsMax / 4_000_000) + 1 } as never));
  assert.ok(decodeWorkProblem({ width: 2000, height: 60_000, pageHeight: 2000, pages: 30 } as never), 'an animated strip counts each frame once');
});

test('uploads are throttled per token: past the limit, 429 with Retry-After', async () => {
  const tiny = Buffer.from('not an image');
  let limited = null;
  for (let index = 0; index <= rateImageUploadsPerTokenMax && !limited; index++) {
    const answer = await put(tiny, 'image/png');
    if (answer.status === 429) limited = answer;
    else assert.is(answer.status, 400, answer.text);
  }
  assert.ok(limited, 'no 429 within the limit plus one');
  assertRefused(limited!, 429, 'rate_limited');
  assert.ok(Number(limited!.headers.get('retry-after')) >= 1);
});

test('uploads past the decoder queue answer 429 with Retry-After before any work; the admitted ones are decoded', async () => {
  const app = await createApp(server);
  const heavy = await sharp({ create: { width: 2500, height: 2500, channels: 3, background: { r: 9, g: 8, b: 7 } } }).gif().toBuffer();
  const room = imageDecodesInFlightMax + imageDecodesQueuedMax;
  // Each upload from its own token, so only the queue (not the per-token throttle) can refuse one.
  const tokens = await Promise.all(Array.from({ length: room + 2 }, async () => userToken(server, app, await addIndividual(server, app), { concurrent: true })));
  const answers = await Promise.all(tokens.map((token) => server.client.request('PUT', '/wallet/image', undefined, { auth: { bearer: token }, rawBody: heavy, headers: { 'content-type': 'image/gif' } })));
  const refused = answers.filter((answer) => answer.status === 429);
  assert.ok(refused.length >= 1, `statuses: ${answers.map((answer) => answer.status).join(', ')}`);
  for (const answer of refused) {
    assertRefused(answer, 429, 'rate_limited');
    assert.ok(Number(answer.headers.get('retry-after')) >= 1);
  }
  const admitted = answers.filter((answer) => answer.status !== 429);
  assert.ok(admitted.length <= room && admitted.length >= 1);
  for (const answer of admitted) assert.ok(answer.status === 200 || /to decode/.test(answer.body?.invalid?.image ?? ''), answer.text);
  assert.ok(admitted.some((answer) => answer.status === 200), 'an admitted upload was decoded');
});

test.run();
