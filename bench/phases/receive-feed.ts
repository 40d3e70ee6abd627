// The receive feed under load (issue 27): one API process on Postgres and Redis; uniform P2P sends
// at the maximum rate without subscribers, then the same run with 1,000 raw WebSocket subscribers
// (five per recipient wallet, the most one token may hold) connected to that process, then without
// again once they have gone (the sends are compared with the mean of the two runs without, so a
// machine whose load drifts during the phase favours neither side). Fan-out
// latency runs from the commit to the receipt's arrival at a subscriber; the commit is taken as the
// moment the payer got its 200 (just after the commit, so this slightly flatters the feed), and the
// receipt's own timestamp (when the send's command started) is reported beside it. Targets: p99
// under 100 ms, sends within 10%. `--short` runs each half for 6 s instead of 15 (a loaded machine).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import type { BenchEnvironment } from '../config.ts';
import { startApiProcess, type ApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase } from '../lib/databases.ts';
import { HttpClient } from '../lib/http-client.ts';
import { closedLoop, type AnswerCheck, type PhaseResult } from '../lib/load.ts';
import { formatMs, formatRate, summarize, type LatencySummary } from '../lib/stats.ts';
import { CashloopSetup, inParallel, type Wallet } from '../scenarios/cashloop.ts';
import { httpOperator } from '../scenarios/operator.ts';
import { maxRate, uniformSource } from '../scenarios/sends.ts';

export const receiveFeedTargets = Object.freeze({ subscribers: 1000, perWallet: 5, fanOutP99MsMax: 100, sendsRatioMin: 0.9 });
const fullPlan = Object.freeze({ wallets: 200, concurrency: 16, warmupSeconds: 3, seconds: 15, connectConcurrency: 50 });
const shortPlan = Object.freeze({ ...fullPlan, warmupSeconds: 2, seconds: 6 });
const planOf = (argv: readonly string[]) => (argv.includes('--short') ? shortPlan : fullPlan);

export interface ReceiveFeedResult {
  subscribers: number;
  without: PhaseResult;
  /** The same run again after the subscribers have gone. */
  withoutAfter: PhaseResult;
  with: PhaseResult;
  sendsRatio: number;
  seconds: number;
  /** Commit (the payer's answer) to arrival; receipts that arrived before the payer's answer count 0. */
  fanOut: LatencySummary;
  arrivedBeforeAnswer: number;
  /** The receipt's timestamp (its command's start, so the send's own time in the server too) to arrival. */
  fromTimestamp: LatencySummary;
  /** The machine's 1-minute load average at the start and the end of the phase. */
  load: { start: number; end: number };
  /** Receipts each subscriber should have been told (sends to its wallet) and those it was. */
  expectedMessages: number;
  receivedMessages: number;
  fanOutOk: boolean;
  sendsOk: boolean;
}

/** A pushed receipt as the subscriber saw it: its transfer, its timestamp and when it arrived. */
interface Arrival {
  transferId: string;
  timestamp: number;
  at: number;
}

/** Opens a raw WebSocket subscription for the wallet; every pushed receipt goes to `arrivals`. */
async function subscribe(baseUrl: string, wallet: Wallet, arrivals: Arrival[]): Promise<WebSocket> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/bd/sockjs/websocket`);
  const subscribed = new Promise<void>((resolve, reject) => {
    socket.on('message', (data) => {
      const at = Date.now();
      const message = JSON.parse(data.toString());
      if (message.receipt) arrivals.push({ transferId: message.receipt.transfer_id, timestamp: Date.parse(message.receipt.timestamp), at });
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

/** A check for the load loop that also notes when each send's 200 reached the payer (after its commit). */
function answerClock(answeredAt: Map<string, number>): AnswerCheck {
  return (answer) => {
    if (answer.status < 200 || answer.status >= 300) return false;
    const transferId = (JSON.parse(answer.text) as { transfer?: { id?: string } }).transfer?.id;
    if (transferId) answeredAt.set(transferId, Date.now());
    return true;
  };
}

/** Fan-out from the payer's answer (commit) and from the receipt's timestamp. */
function fanOutOf(arrivals: readonly Arrival[], answeredAt: ReadonlyMap<string, number>) {
  const fromCommit: number[] = [];
  let arrivedBeforeAnswer = 0;
  for (const arrival of arrivals) {
    const answered = answeredAt.get(arrival.transferId);
    if (answered === undefined) continue;
    if (arrival.at < answered) arrivedBeforeAnswer++;
    fromCommit.push(Math.max(0, arrival.at - answered));
  }
  return { fanOut: summarize(fromCommit), arrivedBeforeAnswer, fromTimestamp: summarize(arrivals.map((arrival) => arrival.at - arrival.timestamp)) };
}

export async function runReceiveFeed(environment: BenchEnvironment, log: (message: string) => void, argv: readonly string[] = process.argv): Promise<ReceiveFeedResult> {
  const plan = planOf(argv);
  const loadStart = os.loadavg()[0];
  log(`load average at start: ${loadStart.toFixed(2)}`);
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
    // Both halves run the same answer check, so the client does the same work in each.
    const without = await closedLoop('P2P sends, uniform, no subscribers', client, { callers: plan.concurrency, durationMs: plan.seconds * 1000, source, check: answerClock(new Map()) });
    log(`without subscribers: ${formatRate(without.ratePerSecond)}/s`);
    const arrivals: Arrival[] = [];
    const subscribers = Array.from({ length: receiveFeedTargets.subscribers }, (_, index) => wallets[index % wallets.length]);
    sockets.push(...(await inParallel(subscribers, plan.connectConcurrency, (wallet) => subscribe(api!.baseUrl, wallet, arrivals))));
    const connected = sockets.length;
    log(`${connected} subscribers connected`);
    arrivals.length = 0;
    const answeredAt = new Map<string, number>();
    const withSubscribers = await closedLoop('P2P sends, uniform, 1,000 subscribers', client, { callers: plan.concurrency, durationMs: plan.seconds * 1000, source, check: answerClock(answeredAt) });
    // Receipts of the last sends may still be on their way: wait until the count settles.
    const expectedMessages = withSubscribers.ok * (receiveFeedTargets.subscribers / wallets.length);
    for (let waited = 0; arrivals.length < expectedMessages && waited < 50; waited++) await new Promise((resolve) => setTimeout(resolve, 100));
    const { fanOut, arrivedBeforeAnswer, fromTimestamp } = fanOutOf(arrivals, answeredAt);
    for (const socket of sockets.splice(0)) socket.terminate();
    const withoutAfter = await closedLoop('P2P sends, uniform, no subscribers again', client, { callers: plan.concurrency, durationMs: plan.seconds * 1000, source, check: answerClock(new Map()) });
    const sendsRatio = withSubscribers.ratePerSecond / ((without.ratePerSecond + withoutAfter.ratePerSecond) / 2);
    const load = { start: loadStart, end: os.loadavg()[0] };
    log(`with subscribers: ${formatRate(withSubscribers.ratePerSecond)}/s, without again ${formatRate(withoutAfter.ratePerSecond)}/s (${(sendsRatio * 100).toFixed(0)}%), fan-out from commit p50 ${formatMs(fanOut.p50Ms)} p99 ${formatMs(fanOut.p99Ms)}, ${arrivals.length}/${expectedMessages} messages, load ${load.end.toFixed(2)}`);
    return {
      subscribers: connected, without, withoutAfter, with: withSubscribers, sendsRatio, seconds: plan.seconds, fanOut, arrivedBeforeAnswer, fromTimestamp, load, expectedMessages, receivedMessages: arrivals.length,
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
  const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
  const { fanOut, fromTimestamp } = result;
  return [
    '## Receive feed: 1,000 subscribers on one process (issue 27)',
    '',
    `Uniform P2P sends over ${fullPlan.wallets} wallets, ${fullPlan.concurrency} callers, ${result.seconds} s each; ${result.subscribers} raw WebSocket subscribers (${receiveFeedTargets.perWallet} per wallet) on the same API process, Postgres and Redis. Load average ${result.load.start.toFixed(2)} at the start, ${result.load.end.toFixed(2)} at the end.`,
    '',
    '| run | sends | send p50 ms | send p99 ms | failed |',
    '|---|---|---|---|---|',
    row('without subscribers', result.without),
    row('with 1,000 subscribers', result.with),
    row('without subscribers, again', result.withoutAfter),
    '',
    `- ${verdict(result.fanOutOk)} fan-out, commit to message (the payer's 200 to the subscriber's arrival): p50 ${formatMs(fanOut.p50Ms)} ms, p90 ${formatMs(fanOut.p90Ms)}, p99 ${formatMs(fanOut.p99Ms)}, max ${formatMs(fanOut.maxMs)} (target p99 under ${receiveFeedTargets.fanOutP99MsMax} ms); ${result.arrivedBeforeAnswer} of ${fanOut.count} arrived before the payer's answer (counted 0).`,
    `- ${verdict(result.sendsOk)} sends with subscribers: ${(result.sendsRatio * 100).toFixed(1)}% of the mean of the two runs without (target at least ${receiveFeedTargets.sendsRatioMin * 100}%).`,
    `- For reference, from the receipt's timestamp (its command's start, so the send's own server time too): p50 ${formatMs(fromTimestamp.p50Ms)} ms, p99 ${formatMs(fromTimestamp.p99Ms)}.`,
    `- Messages: ${result.receivedMessages} of ${result.expectedMessages} expected.`,
    '',
  ].join('\n');
}
