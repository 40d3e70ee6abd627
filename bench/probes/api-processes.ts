// Uniform sends split over several API processes on one database and Redis: the rate of each
// and together, and Postgres's deadlock count over the run (shared transactions of different
// processes lock balances in one order, so it should stay 0).
//   node --import tsx bench/probes/api-processes.ts [--processes 2] [--callers 16] [--seconds 15]
// --callers is per process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { loadBenchEnvironment } from '../config.ts';
import { startApiProcess, type ApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase } from '../lib/databases.ts';
import { HttpClient } from '../lib/http-client.ts';
import { closedLoop } from '../lib/load.ts';
import { CashloopSetup } from '../scenarios/cashloop.ts';
import { httpOperator } from '../scenarios/operator.ts';
import { uniformSource } from '../scenarios/sends.ts';

const walletCount = 200;

const { values } = parseArgs({
  options: { processes: { type: 'string', default: '2' }, callers: { type: 'string', default: '16' }, seconds: { type: 'string', default: '15' } },
});
const processCount = Number(values.processes);
const callers = Number(values.callers);
const seconds = Number(values.seconds);

const environment = loadBenchEnvironment();
const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_probe');
const statistics = postgres(database.url, { max: 1, onnotice: () => {} });
const apis: ApiProcess[] = [];
try {
  for (let index = 0; index < processCount; index++) {
    apis.push(await startApiProcess({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir: mkdtempSync(path.join(tmpdir(), 'cashloop-probe-')) }));
  }
  const clients = apis.map((api) => new HttpClient(api.baseUrl, callers * 2));
  const setup = new CashloopSetup(clients[0], apis[0].operatorKey);
  setup.operator = httpOperator(clients[0], apis[0].operatorKey);
  const app = await setup.createApp();
  await setup.designateIssuer(app);
  const wallets = await setup.wallets(app, walletCount);
  await setup.fund(wallets, '100000.00');
  const source = uniformSource(wallets);
  const deadlocks = async () => (await statistics<{ count: number }[]>`select deadlocks::int as count from pg_stat_database where datname = current_database()`)[0].count;

  const before = await deadlocks();
  // Process k sends as senders k, k + n, k + 2n…: no two processes share a sender.
  const runs = await Promise.all(clients.map((client, process) =>
    closedLoop(`process ${process}`, client, { callers, durationMs: seconds * 1000, source: (index, caller) => source(index * processCount + process, caller) })));
  // Postgres publishes its statistics within a second.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const total = runs.reduce((sum, run) => sum + run.ok, 0);
  runs.forEach((run, process) => console.log(`process ${process}: ${(run.ok / seconds).toFixed(0)}/s, p50 ${run.latency.p50Ms.toFixed(1)} ms, p99 ${run.latency.p99Ms.toFixed(1)} ms, ${run.failed} failed`));
  console.log(`${processCount} processes together: ${(total / seconds).toFixed(0)} sends/s; deadlocks: ${(await deadlocks()) - before}`);
} finally {
  await statistics.end();
  for (const api of apis) await api.stop();
  await database.drop();
}
