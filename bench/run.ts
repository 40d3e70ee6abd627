// `npm run bench` (add `-- --quick` for a ~2-minute smoke run): the issue 4 and issue 24 benchmarks.
// Baselines first (pgbench tpcb-like on the same Postgres; for reference, the HTTP ceiling of
// express 5 + postgres.js serving one tpcb-like transaction per request; PGlite's single-row
// update rate), then the API as a child process on a fresh database: P2P sends (uniform and hot
// wallet, closed and open loop), history at 1,000 and 1,000,000 transfers, round trips of one
// send, the ledger audit; then the embedded default (PGlite); then the receive feed with 1,000
// subscribers (`-- --receive-feed` runs only that). Writes bench/results/latest.md.
// `-- --cli-startup` runs only the CLI's start-up against `node -e ""` (bench/phases/cli-startup.ts);
// `-- --gate-compare` only uniform sends against the commit before the gate (bench/phases/gate-compare.ts);
// `-- --sync-standby` only sends with and without waiting for the synchronous standby, on the cluster at
// BENCH_POSTGRES_URL (bench/phases/sync-standby.ts; e.g. `npm run ha -- up`'s DATABASE_URL);
// `-- --pos-report`, `-- --image-uploads` and `-- --history` (with `--quick`: 100,000 transfers) only those phases;
// `-- --growth` (with `--quick`: smaller) only the growth phase (bench/phases/growth.ts; `--api-checkout=DIR`
// runs another checkout's API, `--keep-database` keeps the grown database).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runHttpCeiling, type HttpCeilingResult } from './baselines/http-ceiling.ts';
import { runPgliteBaseline, type PgliteBaselineResult } from './baselines/pglite.ts';
import { findPgbench, runPgbench, type PgbenchResult } from './baselines/pgbench.ts';
import { loadBenchEnvironment, planFor, type BenchEnvironment, type BenchPlan } from './config.ts';
import { repositoryRoot } from './lib/api-process.ts';
import { renderMarkdown, type Report } from './report.ts';
import { runEmbedded, type EmbeddedResult } from './phases/embedded.ts';
import { runHistoryOnly, runServer, type ServerResult } from './phases/server.ts';
import { buildReport, renderHistoryOnly } from './phases/summary.ts';
import { renderPosReport, runPosReport, type PosReportResult } from './phases/pos-report.ts';
import { renderImageUploads, runImageUploads } from './phases/image-uploads.ts';
import { renderReceiveFeed, runReceiveFeed } from './phases/receive-feed.ts';
import { renderCliStartup, runCliStartup } from './phases/cli-startup.ts';
import { renderGateCompare, runGateCompare } from './phases/gate-compare.ts';
import { renderSyncStandby, runSyncStandby } from './phases/sync-standby.ts';
import { growthOptions, renderGrowth, runGrowth, type GrowthResult } from './phases/growth.ts';

export interface RunState {
  plan: BenchPlan;
  environment: BenchEnvironment;
  pgbench: PgbenchResult | null;
  httpCeiling: HttpCeilingResult | null;
  pglite: PgliteBaselineResult | null;
  server: ServerResult | null;
  embedded: EmbeddedResult | null;
  /** The receivable report at 100,000 rows (its verdicts join the table). */
  posReport: PosReportResult | null;
  /** The growth phase (issue 36): rows and statements per send, a grown wallet's payout, drift, bytes, the outbox. */
  growth: GrowthResult | null;
  /** Phases that could not run, and why. */
  problems: string[];
  /** Promise rejections nobody handled (PGlite's socket can raise them; see docs/performance.md). */
  unhandled: string[];
  startedAt: Date;
  loadAverageStart: number;
  seconds: number;
}

function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

async function phase<T>(state: RunState, name: string, body: () => Promise<T>): Promise<T | null> {
  log(`${name}...`);
  const startedAt = performance.now();
  try {
    const value = await body();
    log(`${name} done in ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
    return value;
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    state.problems.push(`${name}: ${message.split('\n').slice(0, 6).join(' | ')}`);
    log(`${name} FAILED: ${message}`);
    return null;
  }
}

/** A phase that runs alone with its own flag, writes bench/results/<file> and exits 1 on a MISS. */
interface OnlyPhase {
  flag: string;
  file: string;
  run(): Promise<{ markdown: string; ok: boolean }>;
}

const onlyPhases: readonly OnlyPhase[] = [
  // History and history_sync at 1,000 and 1,000,000 transfers (100,000 with --quick), count_remain among them (issue 24).
  { flag: '--history', file: 'history.md', run: async () => renderHistoryOnly(await runHistoryOnly(planFor(process.argv.slice(2)), loadBenchEnvironment(), log)) },
  // The received-and-receivable report at 100,000 rows (issues 11 and 24).
  { flag: '--pos-report', file: 'pos-report.md', run: async () => {
    const result = await runPosReport(loadBenchEnvironment(), log);
    return { markdown: renderPosReport(result), ok: result.csvMemoryOk && result.csvTimeOk && result.jsonMemoryOk && result.jsonTimeOk };
  } },
  // Sends beside heavy image uploads (issue 25).
  { flag: '--image-uploads', file: 'image-uploads.md', run: async () => {
    const result = await runImageUploads(loadBenchEnvironment(), log);
    return { markdown: renderImageUploads(result), ok: result.ok };
  } },
  // The receive feed with 1,000 subscribers (issue 27).
  { flag: '--receive-feed', file: 'receive-feed.md', run: async () => {
    const result = await runReceiveFeed(loadBenchEnvironment(), log);
    return { markdown: renderReceiveFeed(result), ok: result.fanOutOk && result.sendsOk };
  } },
  // The CLI's start-up against `node -e ""` (issue 22 item 2).
  { flag: '--cli-startup', file: 'cli-startup.md', run: async () => {
    const result = await runCliStartup(log);
    return { markdown: renderCliStartup(result), ok: result.helpOk && result.callOk };
  } },
  // Rows and statements per send, a wallet's payout after many payments, a long run's drift, bytes and outbox (issue 36).
  { flag: '--growth', file: 'growth.md', run: async () => renderGrowth(await runGrowth(planFor(process.argv.slice(2)), loadBenchEnvironment(), log, growthOptions(process.argv.slice(2)))) },
  // Uniform sends through the gate against the commit before it, in one run (issue 20).
  { flag: '--gate-compare', file: 'gate-compare.md', run: async () => {
    const result = await runGateCompare(loadBenchEnvironment(), log);
    return { markdown: renderGateCompare(result), ok: result.ok };
  } },
  // Sends with and without waiting for the synchronous standby, on a highly available cluster at BENCH_POSTGRES_URL (issue 35).
  { flag: '--sync-standby', file: 'sync-standby.md', run: async () => {
    const result = await runSyncStandby(loadBenchEnvironment(), log);
    return { markdown: renderSyncStandby(result), ok: result.failed['with standby'] === 0 && result.failed.without === 0 };
  } },
];

async function runOnly(phase: OnlyPhase): Promise<void> {
  const { markdown, ok } = await phase.run();
  const resultsDirectory = path.join(repositoryRoot, 'bench', 'results');
  mkdirSync(resultsDirectory, { recursive: true });
  writeFileSync(path.join(resultsDirectory, phase.file), markdown);
  process.stdout.write(`\n${markdown}`);
  process.exitCode = ok ? 0 : 1;
}

async function main(): Promise<void> {
  const only = onlyPhases.find((phase) => process.argv.includes(phase.flag));
  if (only) return runOnly(only);
  const plan = planFor(process.argv.slice(2));
  const environment = loadBenchEnvironment();
  const state: RunState = { plan, environment, pgbench: null, httpCeiling: null, pglite: null, server: null, embedded: null, posReport: null, growth: null, problems: [], unhandled: [], startedAt: new Date(), loadAverageStart: os.loadavg()[0], seconds: 0 };
  process.on('unhandledRejection', (reason) => {
    state.unhandled.push(String(reason).slice(0, 300));
    log(`unhandled rejection: ${String(reason).slice(0, 300)}`);
  });
  const startedAt = performance.now();
  log(`${plan.quick ? 'quick' : 'full'} run on ${os.cpus().length} cores`);

  state.pgbench = await phase(state, 'pgbench tpcb-like baseline', () =>
    runPgbench({ adminUrl: environment.postgresUrl, binary: findPgbench(environment.pgbench), scale: plan.pgbenchScale, clients: plan.pgbenchClients, threads: plan.pgbenchThreads, seconds: plan.pgbenchSeconds }),
  );
  state.httpCeiling = await phase(state, 'HTTP ceiling reference (express 5 + postgres.js, tpcb-like)', () =>
    runHttpCeiling({ adminUrl: environment.postgresUrl, redisUrl: environment.redisUrl, pgbenchBinary: findPgbench(environment.pgbench), plan, log }),
  );
  state.pglite = await phase(state, 'PGlite single-row update baseline', () =>
    runPgliteBaseline({ seconds: plan.pgliteBaselineSeconds, rows: plan.pgliteBaselineRows, warmupSeconds: plan.warmupSeconds }),
  );
  state.server = await phase(state, 'API on Postgres and Redis', () => runServer(plan, environment, log));
  state.embedded = await phase(state, 'API on embedded PGlite', () => runEmbedded(plan, log));
  state.growth = await phase(state, 'growth: rows per send, a grown wallet\'s payout, a long run', () => runGrowth(plan, environment, log));
  const posReport = await phase(state, 'received-and-receivable report at 100,000 rows', () => runPosReport(environment, log));
  state.posReport = posReport;
  const receiveFeed = plan.quick ? null : await phase(state, 'receive feed with 1,000 subscribers', () => runReceiveFeed(environment, log));
  state.seconds = (performance.now() - startedAt) / 1000;

  const report: Report = buildReport(state);
  const markdown = renderMarkdown(report) + (posReport ? `\n${renderPosReport(posReport)}` : '') + (receiveFeed ? `\n${renderReceiveFeed(receiveFeed)}` : '');
  const resultsDirectory = path.join(repositoryRoot, 'bench', 'results');
  mkdirSync(resultsDirectory, { recursive: true });
  writeFileSync(path.join(resultsDirectory, plan.quick ? 'latest-quick.md' : 'latest.md'), markdown);
  process.stdout.write(`\n${markdown}`);
  log(`finished in ${state.seconds.toFixed(0)} s; wrote bench/results/${plan.quick ? 'latest-quick.md' : 'latest.md'}`);
  const auditFailed = (state.server?.audit && !state.server.audit.ok) || (state.growth?.audit && !state.growth.audit.ok);
  process.exitCode = auditFailed || state.problems.length > 0 ? 1 : 0;
}

await main();
