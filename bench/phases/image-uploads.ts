// Image uploads beside sends (issue 25 finding 3): sends at a fixed rate (open loop) in windows
// that take turns, nothing else running in one, uploaders keeping heavy images in flight in the next
// (each a GIF that decodes to 3000×3000 pixels, within the bounds, so every one is decoded; the
// bench's rate limit scale leaves the per-token throttle out of it). Taking turns within one run
// lets a machine whose other load changes over the run weigh on both kinds of window alike.
// Target: the sends' p99 with uploads in flight within 10% of the p99 without.
// Run alone with `npm run bench -- --image-uploads`; writes bench/results/image-uploads.md.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import type { BenchEnvironment } from '../config.ts';
import { startApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase } from '../lib/databases.ts';
import { HttpClient } from '../lib/http-client.ts';
import { openLoop, type PhaseResult } from '../lib/load.ts';
import { formatMs, median, summarize } from '../lib/stats.ts';
import { CashloopSetup } from '../scenarios/cashloop.ts';
import { httpOperator } from '../scenarios/operator.ts';
import { uniformSource } from '../scenarios/sends.ts';

export const imageUploadTargets = Object.freeze({ p99RatioMax: 1.1 });
// 20 sends/s in 3 s windows of three kinds taking turns (two of sends alone, one with uploads), 20
// rounds: 1,200 samples with uploads and 2,400 alone, so a p99 is the 12th (24th) slowest. Short
// windows that take turns spread the machine's own slow spells (other tenants of the host, seen here
// as alone windows whose p99 ranged from 18 to 690 ms) over every kind. The two alone kinds compared
// with each other (an A/A comparison) show how far p99 moves between windows that differ in nothing.
const plan = Object.freeze({ wallets: 40, uploaders: 2, sendsPerSecond: 20, windowSeconds: 3, rounds: 20 });
/** The order of the three windows in each round, in turn: every kind comes first, second and third alike. */
const orders = [['a', 'u', 'b'], ['u', 'b', 'a'], ['b', 'a', 'u'], ['a', 'b', 'u'], ['u', 'a', 'b'], ['b', 'u', 'a']] as const;

export interface ImageUploadResult {
  alone: PhaseResult;
  withUploads: PhaseResult;
  /** The A/A control: the first alone kind's p99 over the second's. */
  aloneP99Ratio: number;
  uploads: { done: number; statuses: Record<string, number> };
  /** Each round's p99 alone and with uploads, in ms. */
  rounds: { aloneP99Ms: number; withUploadsP99Ms: number }[];
  /** The median over rounds of (p99 with uploads / p99 of both alone windows), which one slow spell moves little. */
  medianRoundRatio: number;
  p99Ratio: number;
  /** The one-minute load average when the run began and when it ended. */
  load: { start: number; end: number };
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
  const loadAtStart = loadavg()[0];
  const gif = await sharp({ create: { width: 3000, height: 3000, channels: 3, background: { r: 1, g: 2, b: 3 } } }).gif().toBuffer();
  // What this phase weighs is the CPU the decoding takes from the sends. Commits here do not wait for
  // the disk: this machine's disk stalls fsyncs for up to hundreds of ms at random (iowait to 43% in
  // vmstat during a run), which moved alone windows' p99 from 16 to 740 ms and buried the effect.
  const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_bench', { commitsWaitForDisk: false });
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
    const uploaderTokens = Array.from({ length: 4000 }, (_, index) => wallets[index % wallets.length].token);
    const statuses: Record<string, number> = {};
    const windows = { a: [] as PhaseResult[], b: [] as PhaseResult[], u: [] as PhaseResult[] };
    let done = 0;
    const sends = (name: string) => openLoop(name, client, { ratePerSecond: plan.sendsPerSecond, durationMs: plan.windowSeconds * 1000, source });
    const aloneWindow = async (kind: 'a' | 'b', round: number) => {
      log(`image uploads: round ${round}, sends alone (${kind})`);
      windows[kind].push(await sends('sends alone'));
    };
    const uploadsWindow = async (round: number) => {
      log(`image uploads: round ${round}, sends with uploads in flight`);
      let stopped = false;
      const uploaders = Array.from({ length: plan.uploaders }, () => uploadLoop(api.baseUrl, uploaderTokens, gif, () => stopped, statuses));
      windows.u.push(await sends('sends with uploads in flight'));
      stopped = true;
      done += (await Promise.all(uploaders)).reduce((sum, count) => sum + count, 0);
    };
    // One upload first: the API process loads sharp and starts its decoder on its first upload, a
    // one-time cost that is not what uploads in flight cost the sends.
    await uploadLoop(api.baseUrl, [uploaderTokens[0]], gif, () => false, {});
    for (let round = 1; round <= plan.rounds; round++) {
      for (const kind of orders[(round - 1) % orders.length]) await (kind === 'u' ? uploadsWindow(round) : aloneWindow(kind, round));
    }
    const alone = merged('sends alone', [...windows.a, ...windows.b]);
    const withUploads = merged('sends with uploads in flight', windows.u);
    const p99Ratio = withUploads.latency.p99Ms / alone.latency.p99Ms;
    const aloneP99Ratio = merged('a', windows.a).latency.p99Ms / merged('b', windows.b).latency.p99Ms;
    const rounds = windows.u.map((window, index) => ({ aloneP99Ms: merged('alone', [windows.a[index], windows.b[index]]).latency.p99Ms, withUploadsP99Ms: window.latency.p99Ms }));
    const medianRoundRatio = median(rounds.map((round) => round.withUploadsP99Ms / round.aloneP99Ms));
    const failed = alone.failed + withUploads.failed;
    return { alone, withUploads, aloneP99Ratio, uploads: { done, statuses }, rounds, medianRoundRatio, p99Ratio, load: { start: loadAtStart, end: loadavg()[0] }, ok: p99Ratio <= imageUploadTargets.p99RatioMax && failed === 0 };
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
    `Open loop sends at ${plan.sendsPerSecond}/s over ${plan.wallets} wallets in ${plan.rounds} rounds of three ${plan.windowSeconds} s windows in turn (their order changing by round): two of sends alone (A and B), one of sends while ${plan.uploaders} uploaders each keep one 3000×3000 GIF upload in flight.`,
    `Run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC; load average (1 min) ${result.load.start.toFixed(2)} at the start, ${result.load.end.toFixed(2)} at the end, on ${cpus().length} cores. Commits do not wait for the disk (synchronous_commit off) in this phase: the machine's fsync stalls, not the decoding, set the p99 otherwise.`,
    '',
    '| phase | ok | failed | p50 | p99 |',
    '|---|---|---|---|---|',
    row(result.alone),
    row(result.withUploads),
    '',
    `p99 by round (alone / with uploads, ms): ${result.rounds.map((round) => `${formatMs(round.aloneP99Ms)} / ${formatMs(round.withUploadsP99Ms)}`).join('; ')}.`,
    `Uploads answered: ${result.uploads.done} (${Object.entries(result.uploads.statuses).map(([status, count]) => `${status}: ${count}`).join(', ')}).`,
    `p99 with uploads / alone: ${result.p99Ratio.toFixed(3)} (target at most ${imageUploadTargets.p99RatioMax}): ${result.ok ? 'met' : 'NOT met'}.`,
    `Median over rounds of the round's p99 with uploads / alone: ${result.medianRoundRatio.toFixed(3)}.`,
    `A/A control, p99 of alone windows A / alone windows B (nothing differs): ${result.aloneP99Ratio.toFixed(3)}; how far this moves from 1 is how far this machine moves a p99 by itself.`,
    '',
  ].join('\n');
}
