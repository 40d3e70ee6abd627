// A wallet's profile image: checked, decoded into square PNG renditions kept in Postgres, served
// by size, and named by versioned URLs.
import type { Metadata } from 'sharp';
import { decodeTooSlow, decodeWorkProblem, loadSharp, renderImage, type DecoderPriority } from '../sharp.ts';
import { failure } from '../authn/errors.ts';
import { imageBodyBytesMax, imageInputPixelsMax, profileImageRenditionsPx, profileImageWidthPxMin } from '../limits.ts';
import type { Queryable } from '../storage/database.ts';
import type { SettingsContext, SettingsOutcome } from './types.ts';
import * as store from './store.ts';

type Rendition = { size: number; bytes: Buffer };

/** The header's problem, if any: format and width. */
async function headerProblem(image: Buffer): Promise<SettingsOutcome | null> {
  const sharp = await loadSharp();
  let metadata: Metadata;
  try {
    metadata = await sharp(image, { animated: false, limitInputPixels: imageInputPixelsMax }).metadata();
  } catch {
    return failure('invalid', { image: 'is not a PNG, JPEG or GIF image' });
  }
  if (!['png', 'jpeg', 'gif'].includes(metadata.format ?? '')) return failure('invalid', { image: 'must be PNG, JPEG or GIF' });
  if ((metadata.width ?? 0) < profileImageWidthPxMin) return failure('invalid', { image: `must be at least ${profileImageWidthPxMin} px wide` });
  const work = decodeWorkProblem(metadata);
  return work ? failure('invalid', { image: work }) : null;
}

/** Every square rendition (decoded in the decoder process); 'corrupt' when the pixels do not decode, 'slow' past the time budget. */
async function renditionsOf(image: Buffer, priority: DecoderPriority): Promise<Rendition[] | 'corrupt' | 'slow'> {
  // A header can read well while the pixels are truncated or corrupt: decoding is where that shows.
  const rendered = await renderImage(image, profileImageRenditionsPx.map((size) => ({ width: size, height: size, fit: 'cover', format: 'png' })), priority);
  if (!rendered.ok) return rendered.problem;
  return profileImageRenditionsPx.map((size, index) => ({ size, bytes: rendered.outputs[index] }));
}

export async function imageUrls(ctx: SettingsContext, db: Queryable, profileId: string): Promise<Record<string, string | null>> {
  const record = await ctx.profiles.get(db, profileId);
  if (!record) throw new Error(`profile ${profileId} does not exist`);
  return ctx.profiles.imageUrls(record);
}

export async function setImage(ctx: SettingsContext, profileId: string, image: Buffer): Promise<SettingsOutcome> {
  const { sql, clock } = ctx.core;
  if (image.length === 0 || image.length > imageBodyBytesMax) return failure('invalid', { image: 'send a PNG, JPEG or GIF image' });
  const problem = await headerProblem(image);
  if (problem) return problem;
  const renditions = await renditionsOf(image, ctx.core.config.imageDecoderPriority);
  if (renditions === 'corrupt') return failure('invalid', { image: 'is truncated or corrupt' });
  if (renditions === 'slow') return failure('invalid', { image: decodeTooSlow });
  const now = clock.now();
  await sql.begin(async (tx) => {
    for (const rendition of renditions) await store.upsertImage(tx, profileId, rendition.size, 'image/png', rendition.bytes, now);
    await ctx.profiles.bumpImageVersion(tx, profileId);
  });
  return { ok: true, ...(await imageUrls(ctx, sql, profileId)) };
}

export async function image(ctx: SettingsContext, profileId: string, sizePx: number): Promise<{ contentType: string; bytes: Buffer } | null> {
  const row = await store.selectImage(ctx.core.sql, profileId, sizePx);
  return row ? { contentType: row.content_type, bytes: Buffer.from(row.bytes) } : null;
}
