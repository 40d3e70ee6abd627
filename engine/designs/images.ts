// Design images and icons. An upload is checked (PNG, JPEG or GIF whose bytes match the label,
// wide enough, not a decompression bomb, decodable to the end), rendered into fixed sizes, and
// stored as a new media id; renditions are served by GET /media/design/<media_id>/<rendition>.
// Images: the design's own and, with multiple_images on, one per denomination, cropped to fill
// 1080x608 (near 16:9) and a 540x304 thumbnail. Icons: 512x512 and 128x128, each in both styles
// (zoom crops to fill, fit letterboxes on transparency); the upload's X-Image-Style picks the
// design's icon_style, and the icon's media_id becomes the design's icon.media_id.
import sharp, { type Metadata } from 'sharp';
import type { Unit } from '../actors/command.ts';
import type { Config } from '../config.ts';
import type { Core } from '../core.ts';
import { randomHex } from '../ids.ts';
import {
  defaultImageWidthPxMin,
  designIconThumbnailPx,
  designImageDenominationsMax,
  designImageFullPx,
  designImageThumbnailPx,
  iconFitPx,
  imageBodyBytesMax,
  imageInputPixelsMax,
} from '../limits.ts';
import { formatMinor, parsePositiveAmount } from '../money.ts';
import type { Queryable } from '../storage/database.ts';
import { designFor } from './access.ts';
import { invalid, type DesignFailure } from './errors.ts';
import { designKind } from './machine.ts';
import * as mediaStore from './media-store.ts';
import type { Rendition, RenditionName } from './media-store.ts';
import * as store from './store.ts';
import type { DesignRow } from './store.ts';

export type IconStyle = 'fit' | 'zoom';
export const iconStyles: readonly IconStyle[] = ['fit', 'zoom'];
export const renditionNames: readonly RenditionName[] = ['full', 'thumbnail', 'full_zoom', 'full_fit', 'thumbnail_zoom', 'thumbnail_fit'];

/** Content types an upload may be labeled with; application/octet-stream lets the bytes decide. */
const labeledFormats: Record<string, string | null> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'application/octet-stream': null };

type Json = Record<string, unknown>;
export type MediaResult<T> = ({ ok: true } & T) | DesignFailure;

export interface ImageUpload {
  bytes: Buffer;
  /** The request's Content-Type (without parameters). */
  contentType: string;
}

export interface DesignImagesService {
  setImage(profileId: string, designId: string, denomination: string | null, upload: ImageUpload): Promise<MediaResult<{ image: Json }>>;
  setIcon(profileId: string, designId: string, style: IconStyle, upload: ImageUpload): Promise<MediaResult<{ icon: Json }>>;
  iconUrl(profileId: string, designId: string): Promise<MediaResult<{ url: string | null }>>;
  iconPreviews(profileId: string, designId: string): Promise<MediaResult<{ previews: Json }>>;
  rendition(mediaId: string, rendition: string): Promise<{ contentType: string; bytes: Buffer } | null>;
}

interface Checked {
  format: 'png' | 'jpeg' | 'gif';
  width: number;
  height: number;
}

const sharpOptions = { limitInputPixels: imageInputPixelsMax, animated: false, failOn: 'warning' } as const;

/** Checks an upload without decoding its pixels: a named 400 for anything that is not a sound image. */
async function check(upload: ImageUpload): Promise<Checked | DesignFailure> {
  if (!(upload.contentType in labeledFormats)) return invalid('image', 'send image/png, image/jpeg, image/gif or application/octet-stream');
  if (upload.bytes.length === 0) return invalid('image', 'is empty; send a PNG, JPEG or GIF file as the body');
  if (upload.bytes.length > imageBodyBytesMax) return invalid('image', `must be at most ${imageBodyBytesMax} bytes`);
  let metadata: Metadata;
  try {
    metadata = await sharp(upload.bytes, sharpOptions).metadata();
  } catch (error) {
    // sharp refuses a header that promises more than limitInputPixels before decoding anything.
    if (/pixel limit/i.test(String((error as Error)?.message))) return invalid('image', `has more than ${imageInputPixelsMax} pixels`);
    return invalid('image', 'is not a PNG, JPEG or GIF image');
  }
  const format = metadata.format;
  if (format !== 'png' && format !== 'jpeg' && format !== 'gif') return invalid('image', 'must be a PNG, JPEG or GIF image');
  const labeled = labeledFormats[upload.contentType];
  if (labeled && labeled !== format) return invalid('image', `is labeled ${upload.contentType} but is a ${format.toUpperCase()} image`);
  const rotated = (metadata.orientation ?? 1) >= 5;
  const width = (rotated ? metadata.height : metadata.width) ?? 0;
  const height = (rotated ? metadata.width : metadata.height) ?? 0;
  if (width <= 0 || height <= 0) return invalid('image', 'has no size');
  if (width * height > imageInputPixelsMax) return invalid('image', `has more than ${imageInputPixelsMax} pixels`);
  return { format, width, height };
}

/** Decodes and resizes; a file that breaks off or is corrupt inside is a 400, never a 500. */
async function render(bytes: Buffer, jobs: { rendition: RenditionName; width: number; height: number; fit: 'cover' | 'contain'; jpeg: boolean }[]): Promise<Rendition[] | DesignFailure> {
  try {
    return await Promise.all(
      jobs.map(async (job) => {
        const pipeline = sharp(bytes, sharpOptions)
          .rotate()
          .resize(job.width, job.height, job.fit === 'cover' ? { fit: 'cover', position: 'attention' } : { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } });
        const output = job.jpeg ? pipeline.jpeg({ quality: 85 }) : pipeline.png();
        const contentType: Rendition['contentType'] = job.jpeg ? 'image/jpeg' : 'image/png';
        return { rendition: job.rendition, contentType, width: job.width, height: job.height, bytes: await output.toBuffer() };
      }),
    );
  } catch {
    return invalid('image', 'could not be decoded (truncated or corrupt)');
  }
}

/** Where a rendition is served (GET /media/design/<media_id>/<rendition>). */
export function mediaUrlOf(config: Pick<Config, 'publicUrl'>, mediaId: string, rendition: RenditionName): string {
  return `${config.publicUrl}/media/design/${mediaId}/${rendition}`;
}

function imageJson(config: Config, row: mediaStore.MediaRow, currency: string): Json {
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

export function createDesignImagesService(core: Core): DesignImagesService {
  const { sql, commands, config } = core;
  const urlOf = (mediaId: string, rendition: RenditionName) => mediaUrlOf(config, mediaId, rendition);

  function previewsOf(mediaId: string): Json {
    return {
      thumbnail: { zoom: urlOf(mediaId, 'thumbnail_zoom'), fit: urlOf(mediaId, 'thumbnail_fit') },
      full: { zoom: urlOf(mediaId, 'full_zoom'), fit: urlOf(mediaId, 'full_fit') },
    };
  }

  /** Runs a change under the design's lock after checking the caller holds edit_design on it. */
  function onDesign<T>(name: string, profileId: string, designId: string, body: (unit: Unit<DesignFailure>, design: DesignRow) => Promise<T>): Promise<T | DesignFailure> {
    return commands.run(name, [{ kind: designKind.kind, id: designId }], async (unit: Unit<DesignFailure>) => {
      const found = await designFor(unit.tx, profileId, designId, 'edit_design');
      if ('error' in found) return unit.reject(found);
      return body(unit, found.design);
    });
  }

  return {
    async setImage(profileId, designId, denomination, upload) {
      // The design is read first (outside the lock) only to parse the denomination and fail early.
      const seen = await designFor(sql, profileId, designId, 'edit_design');
      if ('error' in seen) return seen;
      let denominationMinor: bigint | null = null;
      if (denomination !== null) {
        if (!seen.design.multiple_images) return invalid('denomination', 'images per denomination need multiple_images on (PATCH the design first)');
        const parsed = parsePositiveAmount(denomination, seen.design.currency);
        if (!parsed.ok) return invalid('denomination', `must be a positive amount of ${seen.design.currency} (${parsed.error})`);
        denominationMinor = parsed.value.minor;
      }
      const checked = await check(upload);
      if ('error' in checked) return checked;
      if (checked.width < defaultImageWidthPxMin) return invalid('image', `must be at least ${defaultImageWidthPxMin} px wide (this one is ${checked.width} px)`);
      const jpeg = checked.format === 'jpeg';
      const renditions = await render(upload.bytes, [
        { rendition: 'full', ...designImageFullPx, fit: 'cover', jpeg },
        { rendition: 'thumbnail', ...designImageThumbnailPx, fit: 'cover', jpeg },
      ]);
      if ('error' in renditions) return renditions;
      const mediaId = randomHex(10);
      const result = await onDesign('design.image_set', profileId, designId, async (unit, design) => {
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
      const stored = await mediaStore.selectMedia(sql, mediaId);
      return { ok: true, image: imageJson(config, stored!, result.design.currency) };
    },

    async setIcon(profileId, designId, style, upload) {
      const seen = await designFor(sql, profileId, designId, 'edit_design');
      if ('error' in seen) return seen;
      const checked = await check(upload);
      if ('error' in checked) return checked;
      const jobs = [
        { rendition: 'full_zoom', size: iconFitPx, fit: 'cover' },
        { rendition: 'full_fit', size: iconFitPx, fit: 'contain' },
        { rendition: 'thumbnail_zoom', size: designIconThumbnailPx, fit: 'cover' },
        { rendition: 'thumbnail_fit', size: designIconThumbnailPx, fit: 'contain' },
      ] as const;
      const renditions = await render(upload.bytes, jobs.map((job) => ({ rendition: job.rendition, width: job.size, height: job.size, fit: job.fit, jpeg: false })));
      if ('error' in renditions) return renditions;
      const mediaId = randomHex(10);
      const result = await onDesign('design.icon_set', profileId, designId, async (unit) => {
        await mediaStore.deleteIconsExcept(unit.tx, designId, null);
        const row = { mediaId, designId, kind: 'icon' as const, denominationMinor: null, sourceFormat: checked.format, sourceWidth: checked.width, sourceHeight: checked.height };
        await mediaStore.insertMedia(unit.tx, row, renditions, unit.now);
        await store.updateDesign(unit.tx, designId, { icon_media_id: mediaId, icon_style: style }, unit.now);
        return { ok: true as const };
      });
      if ('error' in result) return result;
      return { ok: true, icon: { media_id: mediaId, style, url: urlOf(mediaId, style === 'fit' ? 'full_fit' : 'full_zoom'), previews: previewsOf(mediaId) } };
    },

    async iconUrl(profileId, designId) {
      const found = await designFor(sql, profileId, designId, 'view_design');
      if ('error' in found) return found;
      const { icon_media_id: mediaId, icon_style: style } = found.design;
      return { ok: true, url: mediaId ? urlOf(mediaId, style === 'fit' ? 'full_fit' : 'full_zoom') : null };
    },

    async iconPreviews(profileId, designId) {
      const found = await designFor(sql, profileId, designId, 'view_design');
      if ('error' in found) return found;
      const mediaId = found.design.icon_media_id;
      return { ok: true, previews: mediaId ? previewsOf(mediaId) : {} };
    },

    async rendition(mediaId, rendition) {
      if (!/^[0-9a-f]{20}$/.test(mediaId) || !(renditionNames as readonly string[]).includes(rendition)) return null;
      const row = await mediaStore.selectRendition(sql, mediaId, rendition);
      return row ? { contentType: row.content_type, bytes: Buffer.from(row.bytes) } : null;
    },
  };
}

