// CPU per send, split by process: uniform P2P sends (closed loop) against one API process on
// Postgres and Redis, with the CPU time the API process, the Postgres processes serving its
// database, Redis and this load generator spent per send (bench/lib/process-cpu.ts), and
// optionally open-loop rates after it.
//   node --import tsx bench/probes/send-cpu.ts [--callers 16] [--seconds 10] [--open 300,450] [--routes] [--cpu-prof DIR]
//     [--node-option=--max-semi-space-size=64 ...] [--env NAME=value ...]
// --routes first measures the API's CPU per request of cheaper calls (the floor under a send);
// --cpu-prof writes the API process's V8 profile to DIR (summarise it with profile-summary.ts);
// --env adds to the API process's environment (an A/B of one setting).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadBenchEnvironment } from '../config.ts';
import { startApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase } from '../lib/databases.ts';
import { bearer, HttpClient, prepare, type PreparedRequest } from '../lib/http-client.ts';
import { closedLoop } from '../lib/load.ts';
import { cpuMeter, cpuParts, processCpuSeconds, totalCpuSeconds } from '../lib/process-cpu.ts';
import { CashloopSetup } from '../scenarios/cashloop.ts';
import { httpOperator } from '../scenarios/operator.ts';
import { constantRate, maxRate, uniformSource } from '../scenarios/sends.ts';

const walletCount = 200;
const warmupSeconds = 3;
const openLoopSeconds = 15;

const { values } = parseArgs({
  options: {
    callers: { type: 'string', default: '16' }, seconds: { type: 'string', default: '10' }, open: { type: 'string' }, routes: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' }, 'node-option': { type: 'string', multiple: true, default: [] }, env: { type: 'string', multiple: true, default: [] },
  },
});
const callers = Number(values.callers);
const seconds = Number(values.seconds);
const environment = loadBenchEnvironment();
const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_probe');
const api = await startApiProcess({
  databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir: mkdtempSync(path.join(tmpdir(), 'cashloop-probe-')),
  nodeArguments: [...(values['node-option'] ?? []), ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`] : [])],
  env: Object.fromEntries((values.env ?? []).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])),
});
const meter = cpuMeter({ serverPids: [api.pid], databaseUrl: database.url, redisUrl: environment.redisUrl });
try {
  const client = new HttpClient(api.baseUrl, callers * 4);
  const setup = new CashloopSetup(client, api.operatorKey);
  setup.operator = httpOperator(client, api.operatorKey);
  const app = await setup.createApp();
  await setup.designateIssuer(app);
  const wallets = await setup.wallets(app, walletCount);
  await setup.fund(wallets, '100000.00');
  if (values.routes) {
    const routes: [string, (index: number) => PreparedRequest][] = [
      ['GET /healthz', () => prepare('GET', '/healthz', undefined)],
      ['GET /me (token lookup)', (index) => prepare('GET', '/me', undefined, bearer(wallets[index % walletCount].token))],
      ['GET /wallet/info (ProfileDetail)', (index) => prepare('GET', '/wallet/info', undefined, bearer(wallets[index % walletCount].token))],
    ];
    for (const [name, source] of routes) {
      await closedLoop('warm-up', client, { callers, durationMs: warmupSeconds * 1000, source });
      const before = processCpuSeconds(api.pid);
      const run = await closedLoop(name, client, { callers, durationMs: seconds * 1000, source });
      const spent = processCpuSeconds(api.pid) - before;
      console.log(`${name}: ${(run.ok / seconds).toFixed(0)}/s, API ${((spent / (run.ok + run.failed)) * 1e6).toFixed(0)} us/request, ${run.failed} failed`);
    }
  }
  const source = uniformSource(wallets);
  await maxRate('warm-up', client, source, callers, warmupSeconds);

  const window = await meter.start();
  const result = await maxRate('uniform', client, source, callers, seconds);
  const spentByPart = await window.stop();
  const perSend = (name: (typeof cpuParts)[number]) => {
    const spent = spentByPart[name];
    return `${name} ${((spent / result.ok) * 1e6).toFixed(0)} us/send (${((spent / seconds) * 100).toFixed(0)}% of a core)`;
  };
  const total = totalCpuSeconds(spentByPart);
  console.log(`uniform, ${callers} callers: ${(result.ok / seconds).toFixed(0)}/s, p50 ${result.latency.p50Ms.toFixed(1)} ms, p99 ${result.latency.p99Ms.toFixed(1)} ms, ${result.failed} failed`);
  console.log(`CPU: total ${((total / result.ok) * 1e6).toFixed(0)} us/send; ${cpuParts.map(perSend).join('; ')}`);

  for (const rate of (values.open ?? '').split(',').filter(Boolean).map(Number)) {
    const open = await constantRate('open loop', client, source, rate, openLoopSeconds);
    console.log(`open loop at ${rate}/s: ${(open.ok / openLoopSeconds).toFixed(0)}/s done, p50 ${open.latency.p50Ms.toFixed(1)} ms, p90 ${open.latency.p90Ms.toFixed(1)} ms, p99 ${open.latency.p99Ms.toFixed(1)} ms`);
  }
} finally {
  await meter.close();
  await api.stop();
  await database.drop();
}
