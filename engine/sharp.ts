// sharp (libvips) adds about 20 MB to a process's resident memory once loaded. A process that never
// handles an image (most API processes most of the time) should not carry it, so it loads on first use.
import type SharpConstructor from 'sharp';
import type { Metadata } from 'sharp';
import { gifDecodeWorkPixelsMax, imageDecodesInFlightMax, imageDecodeSecondsMax, imageDecodeWorkPixelsMax } from './limits.ts';

let loaded: Promise<typeof SharpConstructor> | null = null;

export function loadSharp(): Promise<typeof SharpConstructor> {
  // One libvips thread per image: an upload's decode takes one core, not all of them.
  loaded ??= import('sharp').then((module) => {
    module.default.concurrency(1);
    return module.default;
  });
  return loaded;
}

/** The work an image's header promises: pixels times frames. Past its bound (lower for GIF), the upload's problem. */
export function decodeWorkProblem(metadata: Metadata): string | null {
  const work = (metadata.width ?? 0) * (metadata.pageHeight ?? metadata.height ?? 0) * Math.max(1, metadata.pages ?? 1);
  const bound = metadata.format === 'gif' ? gifDecodeWorkPixelsMax : imageDecodeWorkPixelsMax;
  return work > bound ? `promises more than ${bound} pixels times frames to decode` : null;
}

/** Every decode stops after imageDecodeSecondsMax (sharp's timeout). */
export const decodeTimeout = { seconds: imageDecodeSecondsMax };

/** Whether an error is sharp's timeout (the decode ran out of its time budget). */
export function isDecodeTimeout(error: unknown): boolean {
  return /timeout/i.test(String((error as Error)?.message));
}

let decodesInFlight = 0;
const waiting: (() => void)[] = [];

/**
 * Runs one upload's decoding when a slot is free (imageDecodesInFlightMax per process), so image
 * uploads in flight queue behind each other instead of taking every core from the send path.
 */
export async function withDecodeSlot<T>(work: () => Promise<T>): Promise<T> {
  if (decodesInFlight >= imageDecodesInFlightMax) await new Promise<void>((resolve) => waiting.push(resolve));
  decodesInFlight += 1;
  try {
    return await work();
  } finally {
    decodesInFlight -= 1;
    waiting.shift()?.();
  }
}
