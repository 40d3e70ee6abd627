// sharp (libvips) adds about 20 MB to a process's resident memory once loaded. A process that never
// handles an image (most API processes most of the time) should not carry it, so it loads on first use.
import type SharpConstructor from 'sharp';

let loaded: Promise<typeof SharpConstructor> | null = null;

export function loadSharp(): Promise<typeof SharpConstructor> {
  loaded ??= import('sharp').then((module) => module.default);
  return loaded;
}
