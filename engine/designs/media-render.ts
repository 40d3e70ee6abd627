// Checking and rendering an uploaded image: PNG, JPEG or GIF whose bytes match the label, not a
// decompression bomb, decodable to the end; rendered into fixed sizes (cropped or letterboxed).
import type { Metadata } from 'sharp';
import { decodeTooSlow, decodeWorkProblem, loadSharp, renderImage, type DecoderPriority } from '../sharp.ts';
import { designJpegQuality, imageBodyBytesMax, imageInputPixelsMax } from '../limits.ts';
import { invalid, type DesignFailure } from './errors.ts';
import type { Rendition, RenditionName } from './media-store.ts';
import type { ImageUpload } from './image-types.ts';

/** Content types an upload may be labeled with; application/octet-stream lets the bytes decide. */
const labeledFormats: Record<string, string | null> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/gif': 'gif', 'application/octet-stream': null };

export interface Checked {
  format: 'png' | 'jpeg' | 'gif';
  width: number;
  height: number;
}

const sharpOptions = { limitInputPixels: imageInputPixelsMax, animated: false, failOn: 'warning' } as const;

/** Checks an upload without decoding its pixels: a named 400 for anything that is not a sound image. */
export async function check(upload: ImageUpload): Promise<Checked | DesignFailure> {
  if (!(upload.contentType in labeledFormats)) return invalid('image', 'send image/png, image/jpeg, image/gif or application/octet-stream');
  if (upload.bytes.length === 0) return invalid('image', 'is empty; send a PNG, JPEG or GIF file as the body');
  if (upload.bytes.length > imageBodyBytesMax) return invalid('image', `must be at most ${imageBodyBytesMax} bytes`);
  const sharp = await loadSharp();
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
  const work = decodeWorkProblem(metadata);
  if (work) return invalid('image', work);
  return { format, width, height };
}

/** Decodes and resizes (in the decoder process); a file that breaks off or is corrupt inside is a 400, never a 500. */
export async function render(bytes: Buffer, jobs: { rendition: RenditionName; width: number; height: number; fit: 'cover' | 'contain'; jpeg: boolean }[], priority: DecoderPriority): Promise<Rendition[] | DesignFailure> {
  const rendered = await renderImage(bytes, jobs.map((job) => ({ width: job.width, height: job.height, fit: job.fit, format: job.jpeg ? 'jpeg' : 'png', quality: designJpegQuality })), priority);
  if (!rendered.ok) return invalid('image', rendered.problem === 'slow' ? decodeTooSlow : 'could not be decoded (truncated or corrupt)');
  return jobs.map((job, index) => ({ rendition: job.rendition, contentType: job.jpeg ? 'image/jpeg' : 'image/png', width: job.width, height: job.height, bytes: rendered.outputs[index] }));
}
