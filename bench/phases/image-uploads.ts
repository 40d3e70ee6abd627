// Image uploads beside sends (issue 25 finding 3): sends at a fixed rate (open loop) with nothing
// else running, then again while uploaders keep heavy images in flight (each a GIF that
// decodes to 3000×3000 pixels, within the bounds, so every one is decoded; the bench's rate limit scale leaves the per-token throttle out of it).
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
import { formatMs } from '../lib/stats.ts';
import { CashloopSetup } from '../scenarios/cashloop.ts';
import { httpOperator } from '../scenarios/operator.ts';
import { uniformSource } from '../scenarios/sends.ts';

export const imageUploadTargets = Object.freeze({ p99RatioMax: 1.1 });
const plan = Object.freeze({ wallets: 40, uploaders: 2, sendsPerSecond: 20, seconds: 20 });

export interface ImageUploadResult {
  alone: PhaseResult;
  withUploads: PhaseResult;
  uploads: { done: number; statuses: Record<string, number> };
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
    log('image uploads: sends alone');
    const alone = await openLoop('sends alone', client, { ratePerSecond: plan.sendsPerSecond, durationMs: plan.seconds * 1000, source });
    const uploaderTokens = Array.from({ length: 1000 }, (_, index) => wallets[index % wallets.length].token);
    log('image uploads: sends with uploads in flight');
    let stopped = false;
    const statuses: Record<string, number> = {};
    const uploaders = Array.from({ length: plan.uploaders }, () => uploadLoop(api.baseUrl, uploaderTokens, gif, () => stopped, statuses));
    const withUploads = await openLoop('sends with uploads in flight', client, { ratePerSecond: plan.sendsPerSecond, durationMs: plan.seconds * 1000, source });
    stopped = true;
    const done = (await Promise.all(uploaders)).reduce((sum, count) => sum + count, 0);
    const p99Ratio = withUploads.latency.p99Ms / alone.latency.p99Ms;
    return { alone, withUploads, uploads: { done, statuses }, p99Ratio, ok: p99Ratio <= imageUploadTargets.p99RatioMax && alone.failed === 0 && withUploads.failed === 0 };
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
    `Open loop sends at ${plan.sendsPerSecond}/s for ${plan.seconds} s over ${plan.wallets} wallets; then again with ${plan.uploaders} uploaders each keeping one 3000×3000 GIF upload in flight.`,
    '',
    '| phase | ok | failed | p50 | p99 |',
    '|---|---|---|---|---|',
    row(result.alone),
    row(result.withUploads),
    '',
    `Uploads answered: ${result.uploads.done} (${Object.entries(result.uploads.statuses).map(([status, count]) => `${status}: ${count}`).join(', ')}).`,
    `p99 with uploads / alone: ${result.p99Ratio.toFixed(3)} (target at most ${imageUploadTargets.p99RatioMax}): ${result.ok ? 'met' : 'NOT met'}.`,
    '',
  ].join('\n');
}
