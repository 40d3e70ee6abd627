// Image uploads beside sends (issue 25 finding 3): sends at a fixed rate (open loop) in windows
// that take turns, nothing else running in one, uploaders keeping heavy images in flight in the next
// (each a GIF that decodes to 3000×3000 pixels, within the bounds, so every one is decoded; the
// bench's rate limit scale leaves the per-token throttle out of it). Taking turns within one run
// lets a machine whose other load changes over the run weigh on both kinds of window alike.
// Target: the sends' p99 with uploads in flight within 10% of the p99 without.
// Run alone with `npm run bench -- --image-uploads`; writes bench/results/image-uploads.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { BenchEnvironment } from '../config.ts';
import { startApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase } from '../lib/databases.ts';
import { HttpClient } from '../lib/http-client.ts';
import { openLoop, type PhaseResult } from '../lib/load.ts';
import { formatMs, summarize } from '../lib/stats.ts';
import { CashloopSetup } from '../scenarios/cashloop.ts';
import { httpOperator } from '../scenarios/operator.ts';
import { uniformSource } from '../scenarios/sends.ts';

export const imageUploadTargets = Object.freeze({ p99RatioMax: 1.1 });
const plan = Object.freeze({ wallets: 20, uploaders: 2, sendsPerSecond: 5, windowSeconds: 10, rounds: 5 });

export interface ImageUploadResult {
  alone: PhaseResult;
  withUploads: PhaseResult;
  uploads: { done: number; statuses: Record<string, number> };
  /** Each round's p99 alone and with uploads, in ms. */
  rounds: { aloneP99Ms: number; withUploadsP99Ms: number }[];
  p99Ratio: number;
  ok: boolean;
}

/** Uploaders put the heavy GIF, one after another each, until `stop`, taking turns over the wallets' tokens. */
async function uploadLoop(baseUrl: string, tokens: string[], gif: Buffer, stop: () => boolean, statuses: Record<string, number>): Promise<number> {
  let done = 0;
  while (!stop() && tokens.length > 0) {
    const token = tokens.pop()!;
    const answer = await fetch(`${baseUrl}/wallet/image`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'image/gif' }, body: new Uint8Array(gif) });
    await answer.text();
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    done += 1;
  }
  return done;
}

/** The windows of one kind as one phase: their samples together. */
function merged(name: string, windows: PhaseResult[]): PhaseResult {
  const samplesMs = windows.flatMap((window) => window.samplesMs);
  const seconds = windows.reduce((sum, window) => sum + window.seconds, 0);
  const ok = windows.reduce((sum, window) => sum + window.ok, 0);
  const failureStatuses: Record<string, number> = {};
  for (const window of windows) for (const [status, count] of Object.entries(window.failureStatuses)) failureStatuses[status] = (failureStatuses[status] ?? 0) + count;
  return {
    name, seconds, ok, failed: windows.reduce((sum, window) => sum + window.failed, 0), ratePerSecond: ok / seconds, latency: summarize(samplesMs), samplesMs,
    failureSamples: windows.flatMap((window) => window.failureSamples).slice(0, 5), failureStatuses,
  };
}

export async function runImageUploads(environment: BenchEnvironment, log: (message: string) => void): Promise<ImageUploadResult> {
  const gif = await sharp({ create: { width: 3000, height: 3000, channels: 3, background: { r: 1, g: 2, b: 3 } } }).gif().toBuffer();
  const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_bench');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-bench-images-'));
  const api = await startApiProcess({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir });
  const client = new HttpClient(api.baseUrl, 16);
  try {
    const setup = new CashloopSetup(client, api.operatorKey);
    setup.operator = httpOperator(client, api.operatorKey);
    const app = await setup.createApp();
    await setup.designateIssuer(app);
    const wallets = await setup.wallets(app, plan.wallets);
    await setup.fund(wallets, '1000.00');
    const source = uniformSource(wallets);
    const uploaderTokens = Array.from({ length: 1000 }, (_, index) => wallets[index % wallets.length].token);
    const statuses: Record<string, number> = {};
    const windows = { alone: [] as PhaseResult[], withUploads: [] as PhaseResult[] };
    let done = 0;
    const sends = (name: string) => openLoop(name, client, { ratePerSecond: plan.sendsPerSecond, durationMs: plan.windowSeconds * 1000, source });
    for (let round = 1; round <= plan.rounds; round++) {
      log(`image uploads: round ${round}, sends alone`);
      windows.alone.push(await sends('sends alone'));
      log(`image uploads: round ${round}, sends with uploads in flight`);
      let stopped = false;
      const uploaders = Array.from({ length: plan.uploaders }, () => uploadLoop(api.baseUrl, uploaderTokens, gif, () => stopped, statuses));
      windows.withUploads.push(await sends('sends with uploads in flight'));
      stopped = true;
      done += (await Promise.all(uploaders)).reduce((sum, count) => sum + count, 0);
    }
    const alone = merged('sends alone', windows.alone);
    const withUploads = merged('sends with uploads in flight', windows.withUploads);
    const p99Ratio = withUploads.latency.p99Ms / alone.latency.p99Ms;
    const rounds = windows.alone.map((window, index) => ({ aloneP99Ms: window.latency.p99Ms, withUploadsP99Ms: windows.withUploads[index].latency.p99Ms }));
    return { alone, withUploads, uploads: { done, statuses }, rounds, p99Ratio, ok: p99Ratio <= imageUploadTargets.p99RatioMax && alone.failed === 0 && withUploads.failed === 0 };
  } finally {
    client.close();
    await api.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function renderImageUploads(result: ImageUploadResult): string {
  const row = (phase: PhaseResult) => `| ${phase.name} | ${phase.ok} | ${phase.failed} | ${formatMs(phase.latency.p50Ms)} | ${formatMs(phase.latency.p99Ms)} |`;
  return [
    '# Image uploads beside sends (issue 25)',
    '',
    `Open loop sends at ${plan.sendsPerSecond}/s over ${plan.wallets} wallets in ${plan.rounds} rounds of two ${plan.windowSeconds} s windows: sends alone, then sends while ${plan.uploaders} uploaders each keep one 3000×3000 GIF upload in flight.`,
    '',
    '| phase | ok | failed | p50 | p99 |',
    '|---|---|---|---|---|',
    row(result.alone),
    row(result.withUploads),
    '',
    `p99 by round (alone / with uploads, ms): ${result.rounds.map((round) => `${formatMs(round.aloneP99Ms)} / ${formatMs(round.withUploadsP99Ms)}`).join('; ')}.`,
    `Uploads answered: ${result.uploads.done} (${Object.entries(result.uploads.statuses).map(([status, count]) => `${status}: ${count}`).join(', ')}).`,
    `p99 with uploads / alone: ${result.p99Ratio.toFixed(3)} (target at most ${imageUploadTargets.p99RatioMax}): ${result.ok ? 'met' : 'NOT met'}.`,
    '',
  ].join('\n');
}
