// sharp (libvips) adds about 20 MB to a process's resident memory once loaded. A process that never
// handles an image (most API processes most of the time) should not carry it, so it loads on first use,
// and only to read headers: decoding runs in a decoder process of lower CPU priority (image-decoder.mjs),
// one upload at a time, with a bounded queue in front of it.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type SharpConstructor from 'sharp';
import type { Metadata } from 'sharp';
import {
  gifDecodeWorkPixelsMax, imageDecoderNice, imageDecoderWatchdogSeconds, imageDecodesInFlightMax, imageDecodesQueuedMax, imageDecodeSecondsMax, imageDecodeWorkPixelsMax, imageInputPixelsMax,
} from './limits.ts';

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

let decodesInFlight = 0;
const waiting: (() => void)[] = [];
let uploadsAdmitted = 0;

/**
 * Whether one more upload may wait for the decoder: at most imageDecodesInFlightMax decoding and
 * imageDecodesQueuedMax waiting per process; past that the upload is refused before any work
 * (the route answers 429 with Retry-After). Every admitted upload calls releaseUpload once.
 */
export function admitUpload(): boolean {
  if (uploadsAdmitted >= imageDecodesInFlightMax + imageDecodesQueuedMax) return false;
  uploadsAdmitted += 1;
  return true;
}

export function releaseUpload(): void {
  uploadsAdmitted -= 1;
}

/** Runs one upload's decoding when a slot is free (imageDecodesInFlightMax per process); the rest wait their turn. */
async function withDecodeSlot<T>(work: () => Promise<T>): Promise<T> {
  if (decodesInFlight >= imageDecodesInFlightMax) await new Promise<void>((resolve) => waiting.push(resolve));
  decodesInFlight += 1;
  try {
    return await work();
  } finally {
    decodesInFlight -= 1;
    waiting.shift()?.();
  }
}

/** One rendition of an upload: its size, how the image fills it, and its format. */
export interface RenderJob {
  width: number;
  height: number;
  fit: 'cover' | 'contain';
  format: 'png' | 'jpeg';
  quality?: number;
}

export type Rendered = { ok: true; outputs: Buffer[] } | { ok: false; problem: 'slow' | 'corrupt' };

const decoderPath = fileURLToPath(new URL('./image-decoder.mjs', import.meta.url));
const idleLauncher = ['/usr/bin/chrt', '/bin/chrt'].find((candidate) => existsSync(candidate)) ?? null;
let decoder: ChildProcess | null = null;
let nextRequestId = 0;
const answers = new Map<number, (answer: Rendered) => void>();

function settle(id: number, answer: Rendered): void {
  const resolve = answers.get(id);
  answers.delete(id);
  // An idle decoder keeps no process alive; it exits when its parent does (the IPC channel closes).
  if (answers.size === 0 && decoder) {
    decoder.unref();
    decoder.channel?.unref();
  }
  resolve?.(answer);
}

/** The decoder process (image-decoder.mjs, in the idle scheduling class or at imageDecoderNice), started on the first upload and again after it ends. */
function decoderProcess(): ChildProcess {
  if (decoder) return decoder;
  // Linux's idle scheduling class (chrt --idle) runs the decoder only on CPU time nothing else wants,
  // whatever process group the rest is in; without chrt, the decoder lowers its own niceness.
  const child = fork(decoderPath, [], {
    execPath: idleLauncher ?? process.execPath,
    execArgv: idleLauncher ? ['--idle', '0', process.execPath] : [],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, CASHLOOP_DECODER_NICE: String(imageDecoderNice), CASHLOOP_DECODER_PIXELS_MAX: String(imageInputPixelsMax), CASHLOOP_DECODER_SECONDS_MAX: String(imageDecodeSecondsMax) },
  });
  const ended = () => {
    if (decoder === child) decoder = null;
    for (const id of [...answers.keys()]) settle(id, { ok: false, problem: 'corrupt' });
  };
  child.on('message', (message: { id: number } & Rendered) => settle(message.id, message.ok ? { ok: true, outputs: message.outputs.map((output) => Buffer.from(output)) } : message));
  child.on('exit', ended);
  child.on('error', ended);
  decoder = child;
  return child;
}

/**
 * Decodes an upload once in the decoder process and renders every job from it, one upload at a
 * time per process. 'slow' past imageDecodeSecondsMax (the decoder's own budget, or the watchdog's
 * imageDecoderWatchdogSeconds, which ends the process), 'corrupt' when the pixels do not decode.
 */
export function renderImage(bytes: Buffer, jobs: RenderJob[]): Promise<Rendered> {
  return withDecodeSlot(() => new Promise<Rendered>((resolve) => {
    const child = decoderProcess();
    const id = ++nextRequestId;
    const watchdog = setTimeout(() => {
      settle(id, { ok: false, problem: 'slow' });
      child.kill('SIGKILL');
    }, imageDecoderWatchdogSeconds * 1000);
    answers.set(id, (answer) => {
      clearTimeout(watchdog);
      resolve(answer);
    });
    child.ref();
    child.channel?.ref();
    child.send({ id, bytes, jobs });
  }));
}

/** The answer to an upload past the decode time budget. */
export const decodeTooSlow = `took longer than ${imageDecodeSecondsMax} s to decode; send a smaller image`;
