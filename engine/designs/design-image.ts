// PUT /design/<id>/image: the design's own image or, with multiple_images on, one per denomination,
// cropped to fill 1080x608 (near 16:9) and a 540x304 thumbnail, stored as a new media id.
import { randomHex } from '../ids.ts';
import { defaultImageWidthPxMin, designImageDenominationsMax, designImageFullPx, designImageThumbnailPx } from '../limits.ts';
import { parsePositiveAmount } from '../money.ts';
import { designFor, onEditableDesign } from './access.ts';
import type { ImagesContext } from './core-context.ts';
import { invalid, type DesignFailure } from './errors.ts';
import type { ImageUpload, MediaResult } from './image-types.ts';
import { check, render } from './media-render.ts';
import * as mediaStore from './media-store.ts';
import { imageJson } from './media-views.ts';
import type { DesignRow } from './store.ts';
import * as store from './store.ts';

type Json = Record<string, unknown>;

/** The denomination in minor units (null for the design's own image); it needs multiple_images on. */
function denominationOf(design: DesignRow, denomination: string | null): { ok: true; minor: bigint | null } | DesignFailure {
  if (denomination === null) return { ok: true, minor: null };
  if (!design.multiple_images) return invalid('denomination', 'images per denomination need multiple_images on (PATCH the design first)');
  const parsed = parsePositiveAmount(denomination, design.currency);
  if (!parsed.ok) return invalid('denomination', `must be a positive amount of ${design.currency} (${parsed.error})`);
  return { ok: true, minor: parsed.value.minor };
}

export async function setImage(ctx: ImagesContext, profileId: string, designId: string, denomination: string | null, upload: ImageUpload): Promise<MediaResult<{ image: Json }>> {
  // The design is read first (outside the lock) only to parse the denomination and fail early.
  const seen = await designFor(ctx.sql, profileId, designId, 'edit_design');
  if ('error' in seen) return seen;
  const parsedDenomination = denominationOf(seen.design, denomination);
  if ('error' in parsedDenomination) return parsedDenomination;
  const denominationMinor = parsedDenomination.minor;
  const checked = await check(upload);
  if ('error' in checked) return checked;
  if (checked.width < defaultImageWidthPxMin) return invalid('image', `must be at least ${defaultImageWidthPxMin} px wide (this one is ${checked.width} px)`);
  const jpeg = checked.format === 'jpeg';
  const renditions = await render(upload.bytes, [
    { rendition: 'full', ...designImageFullPx, fit: 'cover', jpeg },
    { rendition: 'thumbnail', ...designImageThumbnailPx, fit: 'cover', jpeg },
  ], ctx.config.imageDecoderPriority);
  if ('error' in renditions) return renditions;
  const mediaId = randomHex(10);
  const result = await onEditableDesign(ctx.commands, 'design.image_set', profileId, designId, async (unit, design) => {
    if (denominationMinor !== null && !design.multiple_images) return unit.reject(invalid('denomination', 'images per denomination need multiple_images on'));
    await mediaStore.deleteImageSlot(unit.tx, designId, denominationMinor);
    if ((await mediaStore.countImages(unit.tx, designId)) >= designImageDenominationsMax + 1) {
      return unit.reject(invalid('denomination', `a design has at most ${designImageDenominationsMax} denomination images`));
    }
    const row = { mediaId, designId, kind: 'image' as const, denominationMinor, sourceFormat: checked.format, sourceWidth: checked.width, sourceHeight: checked.height };
    await mediaStore.insertMedia(unit.tx, row, renditions, unit.now);
    await store.updateDesign(unit.tx, designId, {}, unit.now);
    return { ok: true as const, design };
  });
  if ('error' in result) return result;
  const stored = await mediaStore.selectMedia(ctx.sql, mediaId);
  return { ok: true, image: imageJson(ctx.config, stored!, result.design.currency) };
}
