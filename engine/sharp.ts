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
  gifDecodeWorkPixelsMax, imageDecodeCoreShareMax, imageDecoderNice, imageDecoderWatchdogSeconds, imageDecodesInFlightMax, imageDecodesQueuedMax, imageDecodeSecondsMax, imageDecodeWorkPixelsMax, imageInputPixelsMax,
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
  const startedAt = performance.now();
  try {
    return await work();
  } finally {
    // The decoder's share of a core (imageDecodeCoreShareMax): the slot rests before the next decode.
    const restMs = (performance.now() - startedAt) * (1 / imageDecodeCoreShareMax - 1);
    setTimeout(() => {
      decodesInFlight -= 1;
      waiting.shift()?.();
    }, restMs).unref();
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

/** 'low': the decoder takes CPU time the rest leaves (production); 'normal': as the API process (the test suites, on busy machines). */
export type DecoderPriority = 'low' | 'normal';
const decoders = new Map<DecoderPriority, ChildProcess>();
let nextRequestId = 0;
const answers = new Map<number, { child: ChildProcess; resolve: (answer: Rendered) => void }>();

function settle(id: number, answer: Rendered): void {
  const waiting = answers.get(id);
  if (!waiting) return;
  answers.delete(id);
  // An idle decoder keeps no process alive; it exits when its parent does (the IPC channel closes).
  if (![...answers.values()].some((other) => other.child === waiting.child)) {
    waiting.child.unref();
    waiting.child.channel?.unref();
  }
  waiting.resolve(answer);
}

/**
 * The decoder process (image-decoder.mjs), started on the first upload and again after it ends. At
 * 'low': in Linux's idle scheduling class (chrt --idle), which runs it only on CPU time nothing
 * else wants; in a session of its own, so its autogroup (which it nices) weighs little against
 * every other session, Postgres included; and at imageDecoderNice where neither exists.
 */
function decoderProcess(priority: DecoderPriority): ChildProcess {
  const running = decoders.get(priority);
  if (running) return running;
  const low = priority === 'low';
  const launcher = low ? idleLauncher : null;
  const child = fork(decoderPath, [String(low ? imageDecoderNice : 0), String(low), String(imageInputPixelsMax), String(imageDecodeSecondsMax)], {
    execPath: launcher ?? process.execPath,
    execArgv: launcher ? ['--idle', '0', process.execPath] : [],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    detached: low,
  });
  const ended = () => {
    if (decoders.get(priority) === child) decoders.delete(priority);
    for (const [id, waiting] of [...answers]) if (waiting.child === child) settle(id, { ok: false, problem: 'corrupt' });
  };
  child.on('message', (message: { id: number } & Rendered) => settle(message.id, message.ok ? { ok: true, outputs: message.outputs.map((output) => Buffer.from(output)) } : message));
  child.on('exit', ended);
  child.on('error', ended);
  decoders.set(priority, child);
  return child;
}

/**
 * Decodes an upload once in the decoder process and renders every job from it, one upload at a
 * time per process. 'slow' past imageDecodeSecondsMax (the decoder's own budget, or the watchdog's
 * imageDecoderWatchdogSeconds, which ends the process), 'corrupt' when the pixels do not decode.
 */
export function renderImage(bytes: Buffer, jobs: RenderJob[], priority: DecoderPriority): Promise<Rendered> {
  return withDecodeSlot(() => new Promise<Rendered>((resolve) => {
    const child = decoderProcess(priority);
    const id = ++nextRequestId;
    const watchdog = setTimeout(() => {
      settle(id, { ok: false, problem: 'slow' });
      child.kill('SIGKILL');
    }, imageDecoderWatchdogSeconds * 1000);
    answers.set(id, {
      child,
      resolve: (answer) => {
        clearTimeout(watchdog);
        resolve(answer);
      },
    });
    child.ref();
    child.channel?.ref();
    child.send({ id, bytes, jobs });
  }));
}

/** The answer to an upload past the decode time budget. */
export const decodeTooSlow = `took longer than ${imageDecodeSecondsMax} s to decode; send a smaller image`;
