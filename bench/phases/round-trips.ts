// Where one send's time goes: a second API process on the same database, reaching Postgres
// through a counting pass-through, sends one at a time. Postgres round trips and statements per
// send (minus the background workers' idle polling, measured first), rows written per send (by
// table, from Postgres's statistics: the send's own and what delivering its effects writes), Redis
// commands per send, and the unloaded latency with the engine's own split (command path, lock wait).
import { performance } from 'node:perf_hooks';
import { startApiProcess } from '../lib/api-process.ts';
import { HttpClient } from '../lib/http-client.ts';
import { sequential } from '../lib/load.ts';
import { meanMsBetween } from '../lib/prometheus.ts';
import { commandDelta, startPostgresCounter, startRedisCounter } from '../lib/round-trips.ts';
import { formatMs, type LatencySummary } from '../lib/stats.ts';
import { statsFlushWaitMs, tableWrites, writesBetween } from '../lib/table-writes.ts';
import { CashloopSetup, paths, type Wallet } from '../scenarios/cashloop.ts';
import { sendAmount } from '../scenarios/sends.ts';
import { sendRequest } from '../scenarios/cashloop.ts';

export interface SendProfile {
  sends: number;
  postgresRoundTripsPerSend: number;
  /** Statements (Execute and simple Query messages, BEGIN and COMMIT included) per send. */
  statementsPerSend: number;
  /** Rows inserted, updated or deleted per send, every table. */
  rowsPerSend: number;
  /** The same by table, largest first. */
  rowsPerSendByTable: [string, number][];
  redisCommandsPerSend: Record<string, number>;
  latency: LatencySummary;
  commandMeanMs: number;
  lockWaitMeanMs: number;
  httpMeanMs: number;
  idleRoundTripsPerSecond: number;
}

/** The idle window is long enough for every backend to hand Postgres its row counts of the warm-up. */
const idleWindowMs = statsFlushWaitMs;

export async function profileOneSend(options: { databaseUrl: string; redisUrl: string; dataDir: string; from: Wallet; to: Wallet; sends: number; cwd?: string }): Promise<SendProfile> {
  const target = new URL(options.databaseUrl);
  const counter = await startPostgresCounter({ host: target.hostname, port: Number(target.port || 5432) });
  const proxied = new URL(options.databaseUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(counter.port);
  const redisTarget = new URL(options.redisUrl);
  const redisCounter = await startRedisCounter({ host: redisTarget.hostname, port: Number(redisTarget.port || 6379) });
  const redisProxied = new URL(options.redisUrl);
  redisProxied.hostname = '127.0.0.1';
  redisProxied.port = String(redisCounter.port);
  const api = await startApiProcess({ databaseUrl: proxied.toString(), redisUrl: redisProxied.toString(), dataDir: options.dataDir, cwd: options.cwd });
  const client = new HttpClient(api.baseUrl, 2);
  let stopped = false;
  try {
    const setup = new CashloopSetup(client, api.operatorKey);
    // Warm the process (its first send compiles the path), then watch it idle.
    await sequential('warm-up', client, { count: 20, source: () => sendRequest(options.from, options.to, sendAmount) });
    const idleStart = counter.roundTrips();
    const idleStatementsStart = counter.statements();
    await new Promise((resolve) => setTimeout(resolve, idleWindowMs));
    const idleRoundTripsPerSecond = (counter.roundTrips() - idleStart) / (idleWindowMs / 1000);
    const idleStatementsPerSecond = (counter.statements() - idleStatementsStart) / (idleWindowMs / 1000);
    const writesBefore = await tableWrites(options.databaseUrl);

    const metricsBefore = await setup.metricsText();
    const redisBefore = new Map(redisCounter.commands());
    const roundTripsBefore = counter.roundTrips();
    const statementsBefore = counter.statements();
    const startedAt = performance.now();
    const run = await sequential('one send at a time', client, { count: options.sends, source: () => sendRequest(options.from, options.to, sendAmount) });
    const seconds = (performance.now() - startedAt) / 1000;
    const roundTrips = counter.roundTrips() - roundTripsBefore - idleRoundTripsPerSecond * seconds;
    const statements = counter.statements() - statementsBefore - idleStatementsPerSecond * seconds;
    const redisAfter = redisCounter.commands();
    const metricsAfter = await setup.metricsText();
    if (run.failed > 0) throw new Error(`sends failed while profiling: ${run.failureSamples.join(' / ')}`);
    // The process's backends hand over their counts as they exit; the other processes' within statsFlushWaitMs.
    client.close();
    await api.stop();
    stopped = true;
    await new Promise((resolve) => setTimeout(resolve, statsFlushWaitMs));
    const written = writesBetween(writesBefore, await tableWrites(options.databaseUrl));
    const perSend = (count: number) => Number((count / options.sends).toFixed(2));
    const redisPerSend: Record<string, number> = {};
    for (const [name, count] of commandDelta(redisBefore, redisAfter)) redisPerSend[name] = Number((count / options.sends).toFixed(2));
    return {
      sends: options.sends,
      postgresRoundTripsPerSend: roundTrips / options.sends,
      statementsPerSend: statements / options.sends,
      rowsPerSend: perSend(written.reduce((sum, [, count]) => sum + count, 0)),
      rowsPerSendByTable: written.map(([table, count]) => [table, perSend(count)]),
      redisCommandsPerSend: redisPerSend,
      latency: run.latency,
      commandMeanMs: meanMsBetween(metricsBefore, metricsAfter, 'cashloop_command_duration_seconds', { command: 'transfer.send' }).meanMs,
      lockWaitMeanMs: meanMsBetween(metricsBefore, metricsAfter, 'cashloop_lock_wait_seconds', { command: 'transfer.send' }).meanMs,
      httpMeanMs: meanMsBetween(metricsBefore, metricsAfter, 'cashloop_http_request_duration_seconds', { route: `POST ${paths.send}` }).meanMs,
      idleRoundTripsPerSecond,
    };
  } finally {
    if (!stopped) {
      client.close();
      await api.stop();
    }
    await counter.close();
    await redisCounter.close();
  }
}

export function describeProfile(profile: SendProfile): string[] {
  const redis = Object.entries(profile.redisCommandsPerSend).map(([name, count]) => `${name} ${count}`).join(', ') || 'none';
  return [
    `- ${profile.sends} sends one at a time through a second API process: p50 ${formatMs(profile.latency.p50Ms)} ms, p99 ${formatMs(profile.latency.p99Ms)} ms at the client.`,
    `- Postgres round trips per send (Sync + simple Query messages; statements sent together share a round trip): **${profile.postgresRoundTripsPerSend.toFixed(1)}** (idle background polling, ${profile.idleRoundTripsPerSecond.toFixed(1)}/s, subtracted).`,
    `- Postgres statements per send (Execute + simple Query messages, BEGIN and COMMIT included): **${profile.statementsPerSend.toFixed(1)}**.`,
    `- Rows written per send (inserted + updated + deleted, pg_stat_user_tables, the send's and its effects' delivery): **${profile.rowsPerSend.toFixed(2)}**: ${profile.rowsPerSendByTable.map(([table, count]) => `${table} ${count}`).join(', ')}.`,
    `- Redis commands per send: ${redis}.`,
    `- Engine metrics per send: HTTP ${formatMs(profile.httpMeanMs)} ms, of which the command path (lock + transaction + commit) ${formatMs(profile.commandMeanMs)} ms, lock wait ${formatMs(profile.lockWaitMeanMs)} ms.`,
  ];
}
