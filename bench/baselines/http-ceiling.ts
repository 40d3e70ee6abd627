// A reference, not a target: what the API's own stack (express 5 + postgres.js, one child
// process) sustains when each HTTP request is one pgbench tpcb-like transaction and nothing else.
// Its own pgbench database (dropped after), the uniform sends phase's callers, warm-up and
// duration, so its ratio to pgbench is the most the API could reach with one send = one transaction.
import type { BenchPlan } from '../config.ts';
import { startChildServer, type ChildServer } from '../lib/child-server.ts';
import { createBenchDatabase } from '../lib/databases.ts';
import { HttpClient, prepare } from '../lib/http-client.ts';
import { closedLoop, type PhaseResult, type RequestSource } from '../lib/load.ts';
import { cpuMeter, type CpuMeter, type CpuSeconds } from '../lib/process-cpu.ts';
import { initialisePgbench } from './pgbench.ts';

export interface HttpCeilingResult {
  run: PhaseResult;
  /** CPU seconds of each process over the run, measured as for the sends (bench/lib/process-cpu.ts). */
  cpu: CpuSeconds;
  scale: number;
  callers: number;
  /** Failed requests with the server's last words; empty when every request succeeded. */
  notes: string[];
}

const serverScript = 'bench/baselines/http-ceiling-server.ts';
const accountsPerBranch = 100_000;
const tellersPerBranch = 10;
const deltaMax = 5000;
const serverOutputReportedChars = 1500;

/** An integer in min..max inclusive. */
function randomBetween(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

/** pgbench's tpcb-like variables, drawn the way pgbench draws them (uniformly), one request each. */
function tpcbSource(scale: number): RequestSource {
  return () => prepare('POST', '/tx', {
    aid: randomBetween(1, accountsPerBranch * scale),
    bid: randomBetween(1, scale),
    tid: randomBetween(1, tellersPerBranch * scale),
    delta: randomBetween(-deltaMax, deltaMax),
  });
}

function serverOutputTail(server: ChildServer): string {
  const tail = server.output().slice(-serverOutputReportedChars).trim();
  return tail ? tail.replace(/\n+/g, ' | ') : '(no output)';
}

export async function runHttpCeiling(options: { adminUrl: string; redisUrl: string; pgbenchBinary: string; plan: BenchPlan; log: (message: string) => void }): Promise<HttpCeilingResult> {
  const { plan } = options;
  const database = await createBenchDatabase(options.adminUrl, 'cashloop_ceiling');
  let server: ChildServer | null = null;
  let client: HttpClient | null = null;
  let meter: CpuMeter | null = null;
  try {
    await initialisePgbench({ adminUrl: options.adminUrl, binary: options.pgbenchBinary, database: database.name, scale: plan.pgbenchScale });
    server = await startChildServer({
      name: 'HTTP ceiling server',
      script: serverScript,
      env: { DATABASE_URL: database.url, PGBENCH_SCALE: String(plan.pgbenchScale), NODE_ENV: 'production' },
      readyPath: '/readyz',
    });
    options.log(`HTTP ceiling server ${server.pid} on ${server.baseUrl}, database ${database.name}`);
    client = new HttpClient(server.baseUrl, plan.uniformConcurrency);
    const source = tpcbSource(plan.pgbenchScale);
    const callers = plan.uniformConcurrency;
    await closedLoop('warm-up', client, { callers, durationMs: plan.warmupSeconds * 1000, source });
    meter = cpuMeter({ serverPids: [server.pid], databaseUrl: database.url, redisUrl: options.redisUrl });
    const window = await meter.start();
    const run = await closedLoop('Reference: HTTP ceiling (express 5 + postgres.js, tpcb-like)', client, { callers, durationMs: plan.closedLoopSeconds * 1000, source });
    const cpu = await window.stop();
    if (run.ok === 0) throw new Error(`every request failed: ${run.failureSamples.join(' / ')}`);
    const notes = run.failed > 0 ? [`HTTP ceiling: ${run.failed} requests failed; server output: ${serverOutputTail(server)}`] : [];
    return { run, cpu, scale: plan.pgbenchScale, callers, notes };
  } catch (error) {
    if (!server) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}; HTTP ceiling server output: ${serverOutputTail(server)}`, { cause: error });
  } finally {
    client?.close();
    await meter?.close();
    await server?.stop();
    await database.drop();
  }
}
