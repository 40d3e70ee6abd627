// Proves design images and icons over HTTP: PNG, JPEG and GIF uploads, renditions served with the
// right type, caching headers and dimensions, zoom vs fit icons, per-denomination images only with
// multiple_images, and every bad upload (narrow, truncated, garbage, mislabeled, bomb) a 400.
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { designPermissions } from '../engine/designs/service.ts';
import { addBusiness, addIndividual, createApp, userToken, type TestApp } from './foundation-helpers.ts';
import { startTestServer, type TestServer, assertRefused } from './support/http.ts';

let server: TestServer;
let app: TestApp;
const allDesign = [...designPermissions, 'create_design'];

interface Actor {
  id: string;
  bearer: string;
}

async function merchant(name: string, permissions = allDesign): Promise<Actor> {
  const managerId = await addIndividual(server, app);
  const id = await addBusiness(server, app, managerId, name);
  const feature = await server.client.post(`/admin/profiles/${id}/features`, { feature: 'design_gl' }, { auth: { operator: true } });
  assert.is(feature.status, 200, feature.text);
  return { id, bearer: await userToken(server, app, id, { personalProfileId: managerId, concurrent: true, permissions }) };
}

async function createDesign(owner: Actor): Promise<any> {
  const answer = await server.client.post('/design/create', { title: 'Cafe Gift', currency: 'USD', design_type: 'gl_design' }, { auth: { bearer: owner.bearer } });
  assert.is(answer.status, 200, answer.text);
  return answer.body;
}

function put(path: string, who: Actor, bytes: Buffer, contentType: string, headers: Record<string, string> = {}) {
  return server.client.request('PUT', path, undefined, { auth: { bearer: who.bearer }, rawBody: bytes, headers: { 'content-type': contentType, ...headers } });
}

function get(path: string, who: Actor) {
  return server.client.get(path, undefined, { auth: { bearer: who.bearer } });
}

/** Fetches a served rendition by the path of its URL (the test server listens on a random port). */
async function fetchRendition(url: string) {
  const response = await fetch(new URL(new URL(url).pathname, server.baseUrl));
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, metadata: response.status === 200 ? await sharp(bytes).metadata() : null };
}

const red = { r: 220, g: 30, b: 30, alpha: 1 };
function picture(width: number, height: number) {
  return sharp({ create: { width, height, channels: 4, background: red } });
}
const png = (width: number, height: number) => picture(width, height).png().toBuffer();
const jpeg = (width: number, height: number) => picture(width, height).jpeg().toBuffer();
const gif = (width: number, height: number) => picture(width, height).gif().toBuffer();

/** A PNG whose header claims 20000x20000 pixels (a decompression bomb) with a tiny data chunk. */
function bombPng(): Buffer {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = table[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(20_000, 0);
  header.writeUInt32BE(20_000, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.alloc(60_001 * 4))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

test.before(async () => {
  server = await startTestServer();
  app = await createApp(server);
});

test.after(async () => {
  await server.close();
});

test('PUT image: a PNG becomes a 1080x608 rendition and a 540x304 thumbnail, served with type and caching headers', async () => {
  const cafe = await merchant('Image Cafe');
  const design = await createDesign(cafe);
  assert.is(design.image, null);
  const answer = await put(`/design/${design.id}/image`, cafe, await png(1600, 900), 'image/png');
  assert.is(answer.status, 200, answer.text);
  const image = answer.body.image;
  assert.match(image.media_id, /^[0-9a-f]{20}$/);
  assert.is(image.denomination, null);
  const full = await fetchRendition(image.url);
  assert.is(full.status, 200);
  assert.is(full.headers.get('content-type'), 'image/png');
  assert.match(full.headers.get('cache-control') ?? '', /public.*max-age=31536000.*immutable/);
  assert.is(full.headers.get('x-content-type-options'), 'nosniff');
  assert.is(full.metadata!.format, 'png');
  assert.equal([full.metadata!.width, full.metadata!.height], [1080, 608]);
  const thumbnail = await fetchRendition(image.thumbnail_url);
  assert.equal([thumbnail.metadata!.width, thumbnail.metadata!.height], [540, 304]);
  // The design shows the image; a new upload replaces it under a new media id.
  const shown = await get(`/design/${design.id}`, cafe);
  assert.is(shown.body.image.media_id, image.media_id);
  assert.equal(shown.body.images, {});
  const again = await put(`/design/${design.id}/image`, cafe, await png(540, 400), 'image/png');
  assert.is(again.status, 200, again.text);
  assert.is.not(again.body.image.media_id, image.media_id);
  assert.is((await fetchRendition(image.url)).status, 404, 'the replaced image is gone');
  assert.is((await get(`/design/${design.id}`, cafe)).body.image.media_id, again.body.image.media_id);
});

test('PUT image: JPEG stays JPEG, GIF and octet-stream are taken, 540 px is the narrowest', async () => {
  const cafe = await merchant('Format Cafe');
  const design = await createDesign(cafe);
  const fromJpeg = await put(`/design/${design.id}/image`, cafe, await jpeg(800, 450), 'image/jpeg');
  assert.is(fromJpeg.status, 200, fromJpeg.text);
  const served = await fetchRendition(fromJpeg.body.image.url);
  assert.is(served.headers.get('content-type'), 'image/jpeg');
  assert.equal([served.metadata!.format, served.metadata!.width, served.metadata!.height], ['jpeg', 1080, 608]);
  const fromGif = await put(`/design/${design.id}/image`, cafe, await gif(600, 340), 'image/gif');
  assert.is(fromGif.status, 200, fromGif.text);
  assert.is((await fetchRendition(fromGif.body.image.url)).metadata!.format, 'png');
  const unlabeled = await put(`/design/${design.id}/image`, cafe, await jpeg(540, 300), 'application/octet-stream');
  assert.is(unlabeled.status, 200, unlabeled.text);
  const narrow = await put(`/design/${design.id}/image`, cafe, await png(539, 300), 'image/png');
  assert.is(narrow.status, 400);
  assert.is(narrow.body.error, 'invalid');
  assert.match(narrow.body.invalid.image, /at least 540 px wide/);
});

test('bad uploads are 400s: truncated, garbage, mislabeled, empty, a decompression bomb; other types 415', async () => {
  const cafe = await merchant('Bad Upload Cafe');
  const design = await createDesign(cafe);
  const path = `/design/${design.id}/image`;
  const goodPng = await png(800, 450);
  const goodJpeg = await jpeg(800, 450);
  const cases: [string, Buffer, string, RegExp][] = [
    ['truncated PNG', goodPng.subarray(0, Math.floor(goodPng.length / 2)), 'image/png', /truncated or corrupt|not a PNG/],
    ['truncated JPEG', goodJpeg.subarray(0, Math.floor(goodJpeg.length / 2)), 'image/jpeg', /truncated or corrupt|not a PNG/],
    ['garbage bytes labeled PNG', Buffer.from('this is not an image at all, just some text bytes'.repeat(20)), 'image/png', /not a PNG, JPEG or GIF/],
    ['JPEG labeled PNG', goodJpeg, 'image/png', /labeled image\/png but is a JPEG/],
    ['PNG labeled GIF', goodPng, 'image/gif', /labeled image\/gif but is a PNG/],
    ['decompression bomb', bombPng(), 'image/png', /pixels/],
    ['empty body', Buffer.alloc(0), 'image/png', /empty/],
  ];
  for (const [name, bytes, type, reason] of cases) {
    for (const target of [path, `/design/${design.id}/icon`]) {
      const answer = await put(target, cafe, bytes, type);
      assert.is(answer.status, 400, `${name} on ${target}: ${answer.text}`);
      assert.is(answer.body.error, 'invalid', name);
      assert.match(answer.body.invalid.image, reason, name);
    }
  }
  const text = await put(path, cafe, goodPng, 'text/plain');
  assertRefused(text, 415, 'invalid');
  const shown = await get(`/design/${design.id}`, cafe);
  assert.is(shown.body.image, null, 'no bad upload left anything behind');
  assert.is(shown.body.icon.media_id, null);
});

test('PUT image/<denomination>: refused while multiple_images is off, then one image per denomination', async () => {
  const cafe = await merchant('Denomination Cafe');
  const design = await createDesign(cafe);
  const bytes = await png(1080, 608);
  const off = await put(`/design/${design.id}/image/10.50`, cafe, bytes, 'image/png');
  assertRefused(off, 400, 'invalid');
  assert.match(off.body.invalid.denomination, /multiple_images/);
  const patched = await server.client.request('PATCH', `/design/${design.id}`, { multiple_images: true }, { auth: { bearer: cafe.bearer } });
  assert.is(patched.status, 200, patched.text);
  const ten = await put(`/design/${design.id}/image/10.5`, cafe, bytes, 'image/png');
  assert.is(ten.status, 200, ten.text);
  assert.is(ten.body.image.denomination, '10.50');
  const twenty = await put(`/design/${design.id}/image/20`, cafe, await jpeg(900, 500), 'image/jpeg');
  assert.is(twenty.status, 200, twenty.text);
  for (const bad of ['abc', '10.555', '0', '-5']) {
    const answer = await put(`/design/${design.id}/image/${bad}`, cafe, bytes, 'image/png');
    assert.is(answer.status, 400, bad);
    assert.type(answer.body.invalid.denomination, 'string', bad);
  }
  const shown = (await get(`/design/${design.id}`, cafe)).body;
  assert.equal(Object.keys(shown.images), ['10.50', '20.00']);
  assert.is(shown.images['10.50'].media_id, ten.body.image.media_id);
  assert.is(shown.image, null, "the design's own image is separate");
  const served = await fetchRendition(shown.images['20.00'].thumbnail_url);
  assert.equal([served.metadata!.width, served.metadata!.height], [540, 304]);
});

test('icons: none at first, zoom by default, fit on request, previews in both styles, PATCH takes the media_id', async () => {
  const cafe = await merchant('Icon Cafe');
  const design = await createDesign(cafe);
  assert.equal((await get(`/design/${design.id}/icon`, cafe)).body, { url: null });
  assert.equal((await get(`/design/${design.id}/icon-previews`, cafe)).body, {});

  const wide = await png(1000, 500);
  const zoomed = await put(`/design/${design.id}/icon`, cafe, wide, 'image/png');
  assert.is(zoomed.status, 200, zoomed.text);
  assert.is(zoomed.body.icon.style, 'zoom');
  const url = (await get(`/design/${design.id}/icon`, cafe)).body.url;
  assert.match(url, /\/full_zoom$/);
  const previews = (await get(`/design/${design.id}/icon-previews`, cafe)).body;
  assert.equal(Object.keys(previews).sort(), ['full', 'thumbnail']);
  const sizes: Record<string, number> = { full: 512, thumbnail: 128 };
  for (const size of ['full', 'thumbnail']) {
    for (const style of ['zoom', 'fit']) {
      const served = await fetchRendition(previews[size][style]);
      assert.is(served.headers.get('content-type'), 'image/png');
      assert.equal([served.metadata!.width, served.metadata!.height], [sizes[size], sizes[size]], `${size} ${style}`);
    }
  }
  // Zoom fills the square (an opaque corner); fit letterboxes a wide picture on transparency.
  const corner = async (link: string) => {
    const { data } = await sharp((await fetchRendition(link)).bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return data[3];
  };
  assert.is(await corner(previews.full.zoom), 255);
  assert.is(await corner(previews.full.fit), 0);

  const fitted = await put(`/design/${design.id}/icon`, cafe, await jpeg(300, 300), 'application/octet-stream', { 'x-image-style': 'fit' });
  assert.is(fitted.status, 200, fitted.text);
  const shown = (await get(`/design/${design.id}`, cafe)).body;
  assert.is(shown.icon.media_id, fitted.body.icon.media_id);
  assert.is(shown.icon.style, 'fit');
  assert.match((await get(`/design/${design.id}/icon`, cafe)).body.url, new RegExp(`${fitted.body.icon.media_id}/full_fit$`));
  assert.is((await fetchRendition(previews.full.zoom)).status, 404, 'the replaced icon is gone');

  const bogus = await put(`/design/${design.id}/icon`, cafe, wide, 'image/png', { 'x-image-style': 'stretch' });
  assertRefused(bogus, 400, 'invalid');
  assert.ok(bogus.body.invalid['X-Image-Style']);

  const patch = (body: Record<string, unknown>) => server.client.request('PATCH', `/design/${design.id}`, body, { auth: { bearer: cafe.bearer } });
  const kept = await patch({ icon: { media_id: fitted.body.icon.media_id, style: 'zoom' } });
  assert.is(kept.status, 200, kept.text);
  assert.is(kept.body.icon.style, 'zoom');
  assert.match(kept.body.icon_url, /full_zoom$/);
  assert.is((await patch({ icon: { media_id: zoomed.body.icon.media_id } })).status, 400, 'an old icon is no longer this design\'s');
  const cleared = await patch({ icon: { media_id: null } });
  assert.is(cleared.body.icon.media_id, null);
  assert.equal((await get(`/design/${design.id}/icon`, cafe)).body, { url: null });
  assert.equal((await get(`/design/${design.id}/icon-previews`, cafe)).body, {});
});

test("another profile's design is not found; missing permissions are 403; unknown renditions 404", async () => {
  const cafe = await merchant('Owner Cafe');
  const design = await createDesign(cafe);
  const bytes = await png(800, 450);
  const stranger = await merchant('Stranger Shop');
  for (const path of [`/design/${design.id}/image`, `/design/${design.id}/icon`]) {
    const answer = await put(path, stranger, bytes, 'image/png');
    assert.is(answer.status, 404, answer.text);
  }
  assertRefused(await get(`/design/${design.id}/icon`, stranger), 404, 'not_found');
  assertRefused(await get(`/design/${design.id}/icon-previews`, stranger), 404, 'not_found');
  assertRefused(await put('/design/9999999999/image', cafe, bytes, 'image/png'), 404, 'not_found');

  // A token without edit_design (or view_design) is refused at the edge.
  const viewOnly = { id: cafe.id, bearer: await userToken(server, app, cafe.id, { concurrent: true, permissions: ['view_design'] }) };
  const noScope = await put(`/design/${design.id}/image`, viewOnly, bytes, 'image/png');
  assert.is(noScope.status, 403);
  assert.is(noScope.body.error, 'insufficient_scope');
  assert.is((await get(`/design/${design.id}/icon`, viewOnly)).status, 200);
  const editOnly = { id: cafe.id, bearer: await userToken(server, app, cafe.id, { concurrent: true, permissions: ['edit_design'] }) };
  assertRefused(await get(`/design/${design.id}/icon`, editOnly), 403, 'insufficient_scope');

  // An agreement member may view the design but holds no edit_design on it.
  const member = await merchant('Member Shop');
  const added = await server.client.post(`/design/${design.id}/agreement/add`, { uid: `service:${member.id}`, redeemer: true, terms_text: 'Redeems' }, { auth: { bearer: cafe.bearer } });
  assert.is(added.status, 200, added.text);
  assert.equal((await get(`/design/${design.id}/icon`, member)).body, { url: null });
  const forbidden = await put(`/design/${design.id}/icon`, member, bytes, 'image/png');
  assert.is(forbidden.status, 403);
  assert.is(forbidden.body.error, 'forbidden');

  // A deleted design's images are no longer served.
  const doomed = await createDesign(cafe);
  const uploaded = await put(`/design/${doomed.id}/image`, cafe, bytes, 'image/png');
  assert.is((await fetchRendition(uploaded.body.image.url)).status, 200);
  assert.is((await server.client.request('DELETE', `/design/${doomed.id}`, undefined, { auth: { bearer: cafe.bearer } })).status, 200);
  assert.is((await fetchRendition(uploaded.body.image.url)).status, 404);

  for (const path of ['/media/design/00000000000000000000/full', '/media/design/nothex/full', '/media/design/00000000000000000000/huge']) {
    const response = await fetch(new URL(path, server.baseUrl));
    assert.is(response.status, 404, path);
  }
});

test.run();
