// A design's icon: PUT /design/<id>/icon renders 512x512 and 128x128, each in both styles (zoom
// crops to fill, fit letterboxes on transparency); the upload's X-Image-Style picks the design's
// icon_style and the icon's media_id becomes its icon.media_id. Also the icon's URL and previews.
import { randomHex } from '../ids.ts';
import { designIconThumbnailPx, iconFitPx } from '../limits.ts';
import { designFor, onEditableDesign } from './access.ts';
import type { ImagesContext } from './core-context.ts';
import type { IconStyle, ImageUpload, MediaResult } from './image-types.ts';
import { check, render } from './media-render.ts';
import * as mediaStore from './media-store.ts';
import { mediaUrlOf, previewsOf } from './media-views.ts';
import * as store from './store.ts';

type Json = Record<string, unknown>;

export async function setIcon(ctx: ImagesContext, profileId: string, designId: string, style: IconStyle, upload: ImageUpload): Promise<MediaResult<{ icon: Json }>> {
  const seen = await designFor(ctx.sql, profileId, designId, 'edit_design');
  if ('error' in seen) return seen;
  const checked = await check(upload);
  if ('error' in checked) return checked;
  const jobs = [
    { rendition: 'full_zoom', size: iconFitPx, fit: 'cover' },
    { rendition: 'full_fit', size: iconFitPx, fit: 'contain' },
    { rendition: 'thumbnail_zoom', size: designIconThumbnailPx, fit: 'cover' },
    { rendition: 'thumbnail_fit', size: designIconThumbnailPx, fit: 'contain' },
  ] as const;
  const renditions = await render(upload.bytes, jobs.map((job) => ({ rendition: job.rendition, width: job.size, height: job.size, fit: job.fit, jpeg: false })), ctx.config.imageDecoderPriority);
  if ('error' in renditions) return renditions;
  const mediaId = randomHex(10);
  const result = await onEditableDesign(ctx.commands, 'design.icon_set', profileId, designId, async (unit) => {
    await mediaStore.deleteIconsExcept(unit.tx, designId, null);
    const row = { mediaId, designId, kind: 'icon' as const, denominationMinor: null, sourceFormat: checked.format, sourceWidth: checked.width, sourceHeight: checked.height };
    await mediaStore.insertMedia(unit.tx, row, renditions, unit.now);
    await store.updateDesign(unit.tx, designId, { icon_media_id: mediaId, icon_style: style }, unit.now);
    return { ok: true as const };
  });
  if ('error' in result) return result;
  return { ok: true, icon: { media_id: mediaId, style, url: mediaUrlOf(ctx.config, mediaId, style === 'fit' ? 'full_fit' : 'full_zoom'), previews: previewsOf(ctx.config, mediaId) } };
}

export async function iconUrl(ctx: ImagesContext, profileId: string, designId: string): Promise<MediaResult<{ url: string | null }>> {
  const found = await designFor(ctx.sql, profileId, designId, 'view_design');
  if ('error' in found) return found;
  const { icon_media_id: mediaId, icon_style: style } = found.design;
  return { ok: true, url: mediaId ? mediaUrlOf(ctx.config, mediaId, style === 'fit' ? 'full_fit' : 'full_zoom') : null };
}

export async function iconPreviews(ctx: ImagesContext, profileId: string, designId: string): Promise<MediaResult<{ previews: Json }>> {
  const found = await designFor(ctx.sql, profileId, designId, 'view_design');
  if ('error' in found) return found;
  const mediaId = found.design.icon_media_id;
  return { ok: true, previews: mediaId ? previewsOf(ctx.config, mediaId) : {} };
}
