// Design images and icons: PUT the image (the design's own, or one denomination's), PUT the icon,
// GET the icon's URL and previews, and the public GET of a rendition's bytes. The bodies are raw
// PNG, JPEG or GIF files; engine/designs/images.ts checks and renders them.
import type { Request } from 'express';
import { z } from 'zod';
import { iconStyles, type IconStyle } from '../../engine/designs/images.ts';
import { edgeErrors, httpError } from '../http/errors.ts';
import { defineRoute, RawResponse, uploadThrottle, withUploadRoom, type RouteDefinition } from '../http/route.ts';
import { raise } from './designs.ts';
import { designImageCacheSeconds } from '../../engine/limits.ts';

function uploadOf(request: Request) {
  const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  const contentType = (request.get('content-type') ?? 'application/octet-stream').split(';')[0].trim().toLowerCase();
  return { bytes, contentType };
}

const empty = z.object({}).strict();
const imageAnswer = z.object({
  image: z.object({
    media_id: z.string(), denomination: z.string().nullable(), url: z.string(), thumbnail_url: z.string(), width: z.number(), height: z.number(),
  }),
});
const iconUrls = z.object({ zoom: z.string(), fit: z.string() });
const previewsAnswer = z.union([z.object({ thumbnail: iconUrls, full: iconUrls }), z.object({}).strict()]);

function imageRoute(path: string, summary: string) {
  return defineRoute({
    method: 'put',
    path,
    summary,
    tags: ['designs'],
    caller: { kind: 'token', permission: 'edit_design' },
    input: empty,
    binaryBody: true,
    throttle: uploadThrottle,
    errors: [429],
    response: imageAnswer,
    async handler({ engine, token, params, request, response }) {
      const result = await withUploadRoom(response, () => engine.services.designImages.setImage(token.profileId, params.designId, params.denomination ?? null, uploadOf(request)));
      if (!result.ok) raise(result);
      return { image: result.image };
    },
  });
}

export const designImageRoutes: RouteDefinition[] = [
  imageRoute(
    '/design/:designId/image',
    "Sets the design's image (PNG, JPEG or GIF, at least 540 px wide), cropped to 1080x608 with a 540x304 thumbnail; used when multiple_images is off and for denominations without their own.",
  ),
  imageRoute('/design/:designId/image/:denomination', "Sets one denomination's image (a decimal string in the design's currency); only when multiple_images is on."),

  defineRoute({
    method: 'put',
    path: '/design/:designId/icon',
    summary: 'Sets the design icon (PNG, JPEG or GIF), fitted into 512x512 and a 128x128 thumbnail in both styles; X-Image-Style (fit or zoom, default zoom) sets the style.',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'edit_design' },
    input: empty,
    binaryBody: true,
    throttle: uploadThrottle,
    errors: [429],
    response: z.object({ icon: z.object({ media_id: z.string(), style: z.enum(['fit', 'zoom']), url: z.string(), previews: previewsAnswer }) }),
    async handler({ engine, token, params, request, response }) {
      const style = (request.get('x-image-style') ?? 'zoom').trim().toLowerCase();
      if (!(iconStyles as readonly string[]).includes(style)) throw httpError(edgeErrors, 'invalid', { invalid: { 'X-Image-Style': 'must be fit or zoom' } });
      const result = await withUploadRoom(response, () => engine.services.designImages.setIcon(token.profileId, params.designId, style as IconStyle, uploadOf(request)));
      if (!result.ok) raise(result);
      return { icon: result.icon };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/design/:designId/icon',
    summary: "The URL of the design's icon in its style (null when it has none).",
    tags: ['designs'],
    caller: { kind: 'token', permission: 'view_design' },
    input: empty,
    response: z.object({ url: z.string().nullable() }),
    async handler({ engine, token, params }) {
      const result = await engine.services.designImages.iconUrl(token.profileId, params.designId);
      if (!result.ok) raise(result);
      return { url: result.url };
    },
  }),

  defineRoute({
    method: 'get',
    path: '/design/:designId/icon-previews',
    summary: 'The icon in both styles: thumbnail {zoom, fit} and full {zoom, fit} URLs; an empty object when the design has no icon.',
    tags: ['designs'],
    caller: { kind: 'token', permission: 'view_design' },
    input: empty,
    response: previewsAnswer,
    async handler({ engine, token, params }) {
      const result = await engine.services.designImages.iconPreviews(token.profileId, params.designId);
      if (!result.ok) raise(result);
      return result.previews;
    },
  }),

  defineRoute({
    method: 'get',
    path: '/media/design/:mediaId/:rendition',
    summary: 'The bytes of a design image or icon rendition (full, thumbnail, full_zoom, full_fit, thumbnail_zoom, thumbnail_fit). A media id never changes its bytes.',
    tags: ['designs'],
    caller: { kind: 'none' },
    input: empty,
    rawResponse: { contentTypes: ['image/png', 'image/jpeg'], description: 'The rendition.' },
    async handler({ engine, params }) {
      const image = await engine.services.designImages.rendition(params.mediaId, params.rendition);
      if (!image) throw httpError(edgeErrors, 'route_not_found', { description: 'No such design image.' });
      return new RawResponse(200, image.contentType, image.bytes, {
        'cache-control': `public, max-age=${designImageCacheSeconds}, immutable`,
        etag: `"${params.mediaId}-${params.rendition}"`,
        'x-content-type-options': 'nosniff',
      });
    },
  }),
];
