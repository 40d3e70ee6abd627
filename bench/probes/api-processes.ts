// Uniform sends split over several API processes on one database and Redis: the rate of each
// and together, the CPU per send of the API processes, Postgres, Redis and this load generator
// (bench/lib/process-cpu.ts), and Postgres's deadlock count over the run (shared transactions of
// different processes lock balances in one order, so it should stay 0).
//   node --import tsx bench/probes/api-processes.ts [--processes 1,2,4] [--callers 16] [--seconds 15]
// --processes runs one round per count, in order, on one database (wallets made once);
// --callers is per process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { loadBenchEnvironment } from '../config.ts';
import { startApiProcess, type ApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase, type BenchDatabase } from '../lib/databases.ts';
import { HttpClient } from '../lib/http-client.ts';
import { closedLoop, type RequestSource } from '../lib/load.ts';
import { cpuMeter, cpuPerOperationMs, cpuPerOperationText } from '../lib/process-cpu.ts';
import { CashloopSetup } from '../scenarios/cashloop.ts';
import { httpOperator } from '../scenarios/operator.ts';
import { maxRate, uniformSource } from '../scenarios/sends.ts';

const walletCount = 200;
const warmupSeconds = 3;

const { values } = parseArgs({
  options: { processes: { type: 'string', default: '2' }, callers: { type: 'string', default: '16' }, seconds: { type: 'string', default: '15' } },
});
const processCounts = values.processes.split(',').map(Number);
const callers = Number(values.callers);
const seconds = Number(values.seconds);

const environment = loadBenchEnvironment();

async function startApis(database: BenchDatabase, count: number): Promise<ApiProcess[]> {
  const apis: ApiProcess[] = [];
  for (let index = 0; index < count; index++) {
    apis.push(await startApiProcess({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir: mkdtempSync(path.join(tmpdir(), 'cashloop-probe-')) }));
  }
  return apis;
}

/** One round: processCount API processes, each driven by its own callers; sender k, k + n, k + 2n… belong to process k. */
async function round(database: BenchDatabase, statistics: postgres.Sql, processCount: number, source: RequestSource): Promise<string> {
  const apis = await startApis(database, processCount);
  const meter = cpuMeter({ serverPids: apis.map((api) => api.pid), databaseUrl: database.url, redisUrl: environment.redisUrl });
  const clients = apis.map((api) => new HttpClient(api.baseUrl, callers * 2));
  try {
    const drive = (durationSeconds: number) => Promise.all(clients.map((client, process) =>
      closedLoop(`process ${process}`, client, { callers, durationMs: durationSeconds * 1000, source: (index, caller) => source(index * processCount + process, caller) })));
    await drive(warmupSeconds);
    const deadlocks = async () => (await statistics<{ count: number }[]>`select deadlocks::int as count from pg_stat_database where datname = current_database()`)[0].count;
    const before = await deadlocks();
    const window = await meter.start();
    const runs = await drive(seconds);
    const cpu = await window.stop();
    // Postgres publishes its statistics within a second.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const total = runs.reduce((sum, run) => sum + run.ok, 0);
    runs.forEach((run, process) => console.log(`  process ${process}: ${(run.ok / seconds).toFixed(0)}/s, p50 ${run.latency.p50Ms.toFixed(1)} ms, p99 ${run.latency.p99Ms.toFixed(1)} ms, ${run.failed} failed`));
    const perSend = cpuPerOperationMs(cpu, total);
    const line = `${processCount} API process(es): ${(total / seconds).toFixed(0)} sends/s; CPU per send ${cpuPerOperationText(perSend)}; Postgres ${((cpu.postgres / seconds) * 100).toFixed(0)}% of a core; deadlocks: ${(await deadlocks()) - before}`;
    console.log(line);
    return line;
  } finally {
    for (const client of clients) client.close();
    await meter.close();
    for (const api of apis) await api.stop();
  }
}

const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_probe');
const statistics = postgres(database.url, { max: 1, onnotice: () => {} });
try {
  const [first] = await startApis(database, 1);
  const client = new HttpClient(first.baseUrl, callers * 2);
  const setup = new CashloopSetup(client, first.operatorKey);
  setup.operator = httpOperator(client, first.operatorKey);
  const app = await setup.createApp();
  await setup.designateIssuer(app);
  const wallets = await setup.wallets(app, walletCount);
  await setup.fund(wallets, '100000.00');
  // The first process's warm send path is not the rounds' business: it stops before they start.
  await maxRate('setup check', client, uniformSource(wallets), 1, 1);
  client.close();
  await first.stop();
  const lines: string[] = [];
  for (const processCount of processCounts) lines.push(await round(database, statistics, processCount, uniformSource(wallets)));
  console.log(`\nSummary (${seconds} s each, ${callers} callers per process, ${walletCount} wallets):\n${lines.join('\n')}`);
} finally {
  await statistics.end();
  await database.drop();
}
