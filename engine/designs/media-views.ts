// Where design media are served (GET /media/design/<media_id>/<rendition>) and how they appear in
// a design's JSON: the image, the images per denomination and the icon with its previews.
import type { Config } from '../config.ts';
import { designImageFullPx } from '../limits.ts';
import { formatMinor } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import type { ImagesContext } from './core-context.ts';
import * as mediaStore from './media-store.ts';
import type { RenditionName } from './media-store.ts';
import type { DesignRow } from './store.ts';

type Json = Record<string, unknown>;

export const renditionNames: readonly RenditionName[] = ['full', 'thumbnail', 'full_zoom', 'full_fit', 'thumbnail_zoom', 'thumbnail_fit'];

/** Where a rendition is served (GET /media/design/<media_id>/<rendition>). */
export function mediaUrlOf(config: Pick<Config, 'publicUrl'>, mediaId: string, rendition: RenditionName): string {
  return `${config.publicUrl}/media/design/${mediaId}/${rendition}`;
}

export function imageJson(config: Config, row: mediaStore.MediaRow, currency: string): Json {
  return {
    media_id: row.media_id,
    denomination: row.denomination_minor === null ? null : formatMinor(row.denomination_minor, currency),
    url: mediaUrlOf(config, row.media_id, 'full'),
    thumbnail_url: mediaUrlOf(config, row.media_id, 'thumbnail'),
    width: designImageFullPx.width,
    height: designImageFullPx.height,
  };
}

/**
 * The image, images, icon and icon_url fields of a design's JSON: image is the design's own image
 * (or null), images maps each denomination with its own image, icon_url serves the icon in its style.
 */
export async function designMediaFields(db: Queryable, config: Config, design: DesignRow): Promise<{ image: Json | null; images: Record<string, Json>; icon: Json; icon_url: string | null }> {
  const rows = await mediaStore.selectImages(db, design.id);
  const own = rows.find((row) => row.denomination_minor === null);
  const images: Record<string, Json> = {};
  for (const row of rows) if (row.denomination_minor !== null) images[formatMinor(row.denomination_minor, design.currency)] = imageJson(config, row, design.currency);
  const mediaId = design.icon_media_id;
  const url = mediaId ? mediaUrlOf(config, mediaId, design.icon_style === 'fit' ? 'full_fit' : 'full_zoom') : null;
  return { image: own ? imageJson(config, own, design.currency) : null, images, icon: { media_id: mediaId, style: design.icon_style }, icon_url: url };
}

/** The icon's four renditions: both sizes in both styles. */
export function previewsOf(config: Pick<Config, 'publicUrl'>, mediaId: string): Json {
  const urlOf = (rendition: RenditionName) => mediaUrlOf(config, mediaId, rendition);
  return {
    thumbnail: { zoom: urlOf('thumbnail_zoom'), fit: urlOf('thumbnail_fit') },
    full: { zoom: urlOf('full_zoom'), fit: urlOf('full_fit') },
  };
}

/** A rendition's bytes, or null for an unknown media id or rendition name. */
export async function rendition(ctx: ImagesContext, mediaId: string, name: string): Promise<{ contentType: string; bytes: Buffer } | null> {
  if (!/^[0-9a-f]{20}$/.test(mediaId) || !(renditionNames as readonly string[]).includes(name)) return null;
  const row = await mediaStore.selectRendition(ctx.sql, mediaId, name);
  return row ? { contentType: row.content_type, bytes: Buffer.from(row.bytes) } : null;
}
