// CPU per send, split by process: uniform P2P sends (closed loop) against one API process on
// Postgres and Redis, with the CPU time the API process, the Postgres backends, Redis and this
// load generator spent per send (from /proc), and optionally open-loop rates after it.
//   node --import tsx bench/probes/send-cpu.ts [--callers 16] [--seconds 10] [--open 300,450] [--routes] [--cpu-prof DIR]
//     [--node-option=--max-semi-space-size=64 ...]
// --routes first measures the API's CPU per request of cheaper calls (the floor under a send);
// --cpu-prof writes the API process's V8 profile to DIR (summarise it with profile-summary.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadBenchEnvironment } from '../config.ts';
import { startApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase } from '../lib/databases.ts';
import { bearer, HttpClient, prepare, type PreparedRequest } from '../lib/http-client.ts';
import { closedLoop } from '../lib/load.ts';
import { CashloopSetup } from '../scenarios/cashloop.ts';
import { httpOperator } from '../scenarios/operator.ts';
import { constantRate, maxRate, uniformSource } from '../scenarios/sends.ts';

const walletCount = 200;
const warmupSeconds = 3;
const openLoopSeconds = 15;

const { values } = parseArgs({
  options: {
    callers: { type: 'string', default: '16' }, seconds: { type: 'string', default: '10' }, open: { type: 'string' }, routes: { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' }, 'node-option': { type: 'string', multiple: true, default: [] },
  },
});
const callers = Number(values.callers);
const seconds = Number(values.seconds);
const clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString());

/** User + system CPU seconds of a process so far (0 once it is gone). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
  } catch {
    return 0;
  }
}

function pidsMatching(pattern: string, exact: boolean): number[] {
  try {
    return execFileSync('pgrep', exact ? ['-x', pattern] : ['-f', pattern]).toString().trim().split('\n').map(Number);
  } catch {
    return [];
  }
}

function cpuSnapshot(apiPid: number) {
  const sum = (pids: number[]) => pids.reduce((total, pid) => total + cpuSeconds(pid), 0);
  const self = process.cpuUsage();
  return { api: cpuSeconds(apiPid), postgres: sum(pidsMatching('postgres', false)), redis: sum(pidsMatching('redis-server', true)), generator: (self.user + self.system) / 1e6 };
}

const environment = loadBenchEnvironment();
const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_probe');
const api = await startApiProcess({
  databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir: mkdtempSync(path.join(tmpdir(), 'cashloop-probe-')),
  nodeArguments: [...(values['node-option'] ?? []), ...(values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`] : [])],
});
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
      const before = cpuSeconds(api.pid);
      const run = await closedLoop(name, client, { callers, durationMs: seconds * 1000, source });
      const spent = cpuSeconds(api.pid) - before;
      console.log(`${name}: ${(run.ok / seconds).toFixed(0)}/s, API ${((spent / (run.ok + run.failed)) * 1e6).toFixed(0)} us/request, ${run.failed} failed`);
    }
  }
  const source = uniformSource(wallets);
  await maxRate('warm-up', client, source, callers, warmupSeconds);

  const before = cpuSnapshot(api.pid);
  const result = await maxRate('uniform', client, source, callers, seconds);
  const after = cpuSnapshot(api.pid);
  const perSend = (name: keyof typeof before) => {
    const spent = after[name] - before[name];
    return `${name} ${((spent / result.ok) * 1e6).toFixed(0)} us/send (${((spent / seconds) * 100).toFixed(0)}% of a core)`;
  };
  console.log(`uniform, ${callers} callers: ${(result.ok / seconds).toFixed(0)}/s, p50 ${result.latency.p50Ms.toFixed(1)} ms, p99 ${result.latency.p99Ms.toFixed(1)} ms, ${result.failed} failed`);
  console.log(`CPU: ${(['api', 'postgres', 'redis', 'generator'] as const).map(perSend).join('; ')}`);

  for (const rate of (values.open ?? '').split(',').filter(Boolean).map(Number)) {
    const open = await constantRate('open loop', client, source, rate, openLoopSeconds);
    console.log(`open loop at ${rate}/s: ${(open.ok / openLoopSeconds).toFixed(0)}/s done, p50 ${open.latency.p50Ms.toFixed(1)} ms, p90 ${open.latency.p90Ms.toFixed(1)} ms, p99 ${open.latency.p99Ms.toFixed(1)} ms`);
  }
} finally {
  await api.stop();
  await database.drop();
}
