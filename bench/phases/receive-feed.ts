// The receive feed under load (issue 27): one API process on Postgres and Redis; uniform P2P sends
// at the maximum rate without subscribers, then the same run with 1,000 raw WebSocket subscribers
// (five per recipient wallet, the most one token may hold) connected to that process. Fan-out
// latency is the receipt's arrival at a subscriber minus its timestamp (taken when the send's
// command starts, so it includes the commit); targets: p99 under 100 ms, sends within 10%.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import type { BenchEnvironment } from '../config.ts';
import { startApiProcess, type ApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase } from '../lib/databases.ts';
import { HttpClient } from '../lib/http-client.ts';
import type { PhaseResult } from '../lib/load.ts';
import { formatMs, formatRate, summarize, type LatencySummary } from '../lib/stats.ts';
import { CashloopSetup, inParallel, type Wallet } from '../scenarios/cashloop.ts';
import { httpOperator } from '../scenarios/operator.ts';
import { maxRate, uniformSource } from '../scenarios/sends.ts';

export const receiveFeedTargets = Object.freeze({ subscribers: 1000, perWallet: 5, fanOutP99MsMax: 100, sendsRatioMin: 0.9 });
const plan = Object.freeze({ wallets: 200, concurrency: 16, warmupSeconds: 3, seconds: 15, connectConcurrency: 50 });

export interface ReceiveFeedResult {
  subscribers: number;
  without: PhaseResult;
  with: PhaseResult;
  sendsRatio: number;
  fanOut: LatencySummary;
  /** Receipts each subscriber should have been told (sends to its wallet) and those it was. */
  expectedMessages: number;
  receivedMessages: number;
  fanOutOk: boolean;
  sendsOk: boolean;
}

/** Opens a raw WebSocket subscription for the wallet; every pushed receipt's latency goes to `samples`. */
async function subscribe(baseUrl: string, wallet: Wallet, samples: number[]): Promise<WebSocket> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/bd/sockjs/websocket`);
  const subscribed = new Promise<void>((resolve, reject) => {
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.receipt) samples.push(Date.now() - Date.parse(message.receipt.timestamp));
      else if (message.subscribed === true) resolve();
      else reject(new Error(`subscription refused: ${data.toString().slice(0, 200)}`));
    });
    socket.once('error', reject);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ path: '/wallet/receive-feed', access_token: wallet.token, subscribe: true, limit: 1 }));
  await subscribed;
  return socket;
}

export async function runReceiveFeed(environment: BenchEnvironment, log: (message: string) => void): Promise<ReceiveFeedResult> {
  const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_bench');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-bench-feed-'));
  let api: ApiProcess | null = null;
  const sockets: WebSocket[] = [];
  try {
    api = await startApiProcess({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir });
    const client = new HttpClient(api.baseUrl, plan.concurrency + 8);
    const setup = new CashloopSetup(client, api.operatorKey);
    setup.operator = httpOperator(client, api.operatorKey);
    const app = await setup.createApp();
    await setup.designateIssuer(app);
    const wallets = await setup.wallets(app, plan.wallets);
    await setup.fund(wallets, '100000.00');
    log(`${wallets.length} wallets funded`);
    const source = uniformSource(wallets);
    await maxRate('warm-up', client, source, plan.concurrency, plan.warmupSeconds);
    const without = await maxRate('P2P sends, uniform, no subscribers', client, source, plan.concurrency, plan.seconds);
    log(`without subscribers: ${formatRate(without.ratePerSecond)}/s`);
    const samples: number[] = [];
    const subscribers = Array.from({ length: receiveFeedTargets.subscribers }, (_, index) => wallets[index % wallets.length]);
    sockets.push(...(await inParallel(subscribers, plan.connectConcurrency, (wallet) => subscribe(api!.baseUrl, wallet, samples))));
    log(`${sockets.length} subscribers connected`);
    samples.length = 0;
    const withSubscribers = await maxRate('P2P sends, uniform, 1,000 subscribers', client, source, plan.concurrency, plan.seconds);
    // Receipts of the last sends may still be on their way: wait until the count settles.
    const expectedMessages = withSubscribers.ok * (receiveFeedTargets.subscribers / wallets.length);
    for (let waited = 0; samples.length < expectedMessages && waited < 50; waited++) await new Promise((resolve) => setTimeout(resolve, 100));
    const fanOut = summarize(samples);
    const sendsRatio = withSubscribers.ratePerSecond / without.ratePerSecond;
    log(`with subscribers: ${formatRate(withSubscribers.ratePerSecond)}/s (${(sendsRatio * 100).toFixed(0)}%), fan-out p50 ${formatMs(fanOut.p50Ms)} p99 ${formatMs(fanOut.p99Ms)}, ${samples.length}/${expectedMessages} messages`);
    return {
      subscribers: sockets.length, without, with: withSubscribers, sendsRatio, fanOut, expectedMessages, receivedMessages: samples.length,
      fanOutOk: fanOut.p99Ms < receiveFeedTargets.fanOutP99MsMax, sendsOk: sendsRatio >= receiveFeedTargets.sendsRatioMin,
    };
  } finally {
    for (const socket of sockets) socket.terminate();
    await api?.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function renderReceiveFeed(result: ReceiveFeedResult): string {
  const row = (name: string, phase: PhaseResult) => `| ${name} | ${formatRate(phase.ratePerSecond)}/s | ${formatMs(phase.latency.p50Ms)} | ${formatMs(phase.latency.p99Ms)} | ${phase.failed} |`;
  return [
    '## Receive feed: 1,000 subscribers on one process (issue 27)',
    '',
    `Uniform P2P sends over ${plan.wallets} wallets, ${plan.concurrency} callers, ${plan.seconds} s each; ${result.subscribers} raw WebSocket subscribers (${receiveFeedTargets.perWallet} per wallet) on the same API process, Postgres and Redis.`,
    '',
    '| run | sends | send p50 | send p99 | failed |',
    '|---|---|---|---|---|',
    row('without subscribers', result.without),
    row('with 1,000 subscribers', result.with),
    '',
    `- Sends with subscribers: ${(result.sendsRatio * 100).toFixed(1)}% of without (target at least ${receiveFeedTargets.sendsRatioMin * 100}%): ${result.sendsOk ? 'met' : 'NOT met'}.`,
    `- Fan-out latency (receipt timestamp to arrival): p50 ${formatMs(result.fanOut.p50Ms)}, p90 ${formatMs(result.fanOut.p90Ms)}, p99 ${formatMs(result.fanOut.p99Ms)}, max ${formatMs(result.fanOut.maxMs)} (target p99 under ${receiveFeedTargets.fanOutP99MsMax} ms): ${result.fanOutOk ? 'met' : 'NOT met'}.`,
    `- Messages: ${result.receivedMessages} of ${result.expectedMessages} expected.`,
    '',
  ].join('\n');
}
