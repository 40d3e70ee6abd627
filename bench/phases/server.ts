// The API on real Postgres and Redis, one child process on a fresh database: setup, uniform sends
// (closed loop for the maximum with the CPU of every process, open loop at 80% of it), sends
// between a few wallets at random, hot-wallet sends, history at two sizes,
// the round trips of one send, and the ledger audit. The database is dropped at the end.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { BenchEnvironment, BenchPlan } from '../config.ts';
import { targets } from '../config.ts';
import { noteStoppedEarly, startApiProcess, type ApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase } from '../lib/databases.ts';
import { HttpClient } from '../lib/http-client.ts';
import { sequential, type PhaseResult } from '../lib/load.ts';
import { cpuMeter, type CpuMeter, type CpuSeconds } from '../lib/process-cpu.ts';
import { meanMsBetween } from '../lib/prometheus.ts';
import { CashloopSetup, paths, type Wallet } from '../scenarios/cashloop.ts';
import { adminPaths, engineOperator, httpOperator, type AuditAnswer, type Operator } from '../scenarios/operator.ts';
import { compareHistory, historyCalls, recentSyncTs, seedHistory, visibleTransfers, type HistoryComparison } from '../scenarios/history.ts';
import { constantRate, hotSource, maxRate, randomPairSource, uniformSource } from '../scenarios/sends.ts';
import { profileOneSend, type SendProfile } from './round-trips.ts';

export interface CommandTimes {
  /** Mean ms inside the command path (lock, transaction, commit) per send. */
  commandMeanMs: number;
  /** Mean ms waiting for the wallet lock per send. */
  lockWaitMeanMs: number;
  /** Mean ms the HTTP edge saw per request (engine metric). */
  httpMeanMs: number;
}

export interface HistoryResult {
  small: number;
  large: number;
  seedSeconds: number;
  comparisons: HistoryComparison[];
}

export interface ServerResult {
  ledgerRoutes: boolean;
  missing: string[];
  uniform: (PhaseResult & { times: CommandTimes }) | null;
  /** CPU seconds of each process over the uniform closed loop (bench/lib/process-cpu.ts). */
  uniformCpu: CpuSeconds | null;
  /** Sends between plan.sharedWallets wallets chosen at random. */
  sharedWallets: PhaseResult | null;
  openLoop: (PhaseResult & { scheduledRatePerSecond: number; lateStartsMax: number }) | null;
  hot: (PhaseResult & { times: CommandTimes }) | null;
  history: HistoryResult | null;
  profile: SendProfile | null;
  audit: AuditAnswer | null;
  /** How cash was issued and audited. */
  operator: Operator['kind'] | null;
  wallets: number;
  notes: string[];
}

const walletFunding = '100000.00';
const historyIncrementalBack = 10;

async function commandTimes(setup: CashloopSetup, body: () => Promise<PhaseResult>): Promise<PhaseResult & { times: CommandTimes }> {
  const before = await setup.metricsText();
  const result = await body();
  const after = await setup.metricsText();
  return {
    ...result,
    times: {
      commandMeanMs: meanMsBetween(before, after, 'cashloop_command_duration_seconds', { command: 'transfer.send' }).meanMs,
      lockWaitMeanMs: meanMsBetween(before, after, 'cashloop_lock_wait_seconds', { command: 'transfer.send' }).meanMs,
      httpMeanMs: meanMsBetween(before, after, 'cashloop_http_request_duration_seconds', { route: `POST ${paths.send}` }).meanMs,
    },
  };
}

/** The phase's result and the CPU each process spent during it. */
async function withCpu<T>(meter: CpuMeter, body: () => Promise<T>): Promise<{ value: T; cpu: CpuSeconds }> {
  const window = await meter.start();
  const value = await body();
  return { value, cpu: await window.stop() };
}

async function templateTransfer(databaseUrl: string): Promise<string | null> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ id: string }[]>`
      select id from transfers where workflow_type = 'profile_to_profile' and completed order by start_at desc limit 1`;
    return rows[0]?.id ?? null;
  } finally {
    await sql.end();
  }
}

export async function runServer(plan: BenchPlan, environment: BenchEnvironment, log: (message: string) => void): Promise<ServerResult> {
  const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_bench');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-bench-server-'));
  let api: ApiProcess | null = null;
  let client: HttpClient | null = null;
  let setupRef: CashloopSetup | null = null;
  let meter: CpuMeter | null = null;
  const result: ServerResult = { ledgerRoutes: false, missing: [], uniform: null, uniformCpu: null, sharedWallets: null, openLoop: null, hot: null, history: null, profile: null, audit: null, operator: null, wallets: plan.uniformWallets, notes: [] };
  try {
    api = await startApiProcess({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir });
    log(`API process ${api.pid} on ${api.baseUrl}, database ${database.name}`);
    meter = cpuMeter({ serverPids: [api.pid], databaseUrl: database.url, redisUrl: environment.redisUrl });
    client = new HttpClient(api.baseUrl, Math.max(plan.uniformConcurrency, plan.hotConcurrency) + 8);
    const setup = new CashloopSetup(client, api.operatorKey);
    setupRef = setup;
    for (const [method, route] of [['POST', paths.send], ['POST', adminPaths.cashIssue], ['POST', adminPaths.cashIssuer], ['GET', adminPaths.audit], ['GET', paths.history], ['POST', paths.historySync]] as const) {
      if (!(await setup.routeExists(method, route))) result.missing.push(`${method} ${route}`);
    }
    result.ledgerRoutes = result.missing.length === 0;
    if (result.missing.includes(`POST ${paths.send}`)) {
      result.notes.push(`POST ${paths.send} does not exist yet; send, history and audit phases skipped.`);
      return result;
    }
    const adminCash = !result.missing.some((route) => Object.values(adminPaths).some((admin) => route.endsWith(admin)));
    setup.operator = adminCash ? httpOperator(client, api.operatorKey) : await engineOperator(database.url, environment.redisUrl);
    result.operator = setup.operator.kind;
    if (!adminCash) result.notes.push('The admin cash routes are missing: the issuer, issuance and audit ran through the engine\'s ledger service in the bench process (same database, same Redis locks).');
    const historyRoutes = !result.missing.includes(`GET ${paths.history}`) && !result.missing.includes(`POST ${paths.historySync}`);

    const app = await setup.createApp();
    await setup.designateIssuer(app);
    const wallets = await setup.wallets(app, plan.uniformWallets);
    const [hot] = await setup.wallets(app, 1, plan.uniformWallets);
    await setup.fund([...wallets, hot], walletFunding);
    log(`${wallets.length + 1} wallets funded`);

    const step = async <T>(name: string, body: () => Promise<T>): Promise<T | null> => {
      try {
        return await body();
      } catch (error) {
        result.notes.push(`${name} failed: ${String((error as Error).stack ?? error).split('\n').slice(0, 4).join(' | ')}`);
        log(`${name} FAILED: ${String(error)}`);
        return null;
      }
    };
    const uniform = uniformSource(wallets);
    await maxRate('warm-up', client, uniform, plan.uniformConcurrency, plan.warmupSeconds);
    const measured = await step('uniform sends', () => withCpu(meter!, () => commandTimes(setup, () => maxRate('P2P sends, uniform', client!, uniform, plan.uniformConcurrency, plan.closedLoopSeconds))));
    result.uniform = measured?.value ?? null;
    result.uniformCpu = measured?.cpu ?? null;
    if (result.uniform) {
      log(`uniform: ${result.uniform.ratePerSecond.toFixed(0)}/s, p99 ${result.uniform.latency.p99Ms.toFixed(1)} ms, ${result.uniform.failed} failed`);
      const openRate = Math.max(1, targets.openLoopLoadFraction * result.uniform.ratePerSecond);
      result.openLoop = await step('open loop sends', () => constantRate('P2P sends, uniform, open loop', client!, uniform, openRate, plan.openLoopSeconds));
      if (result.openLoop) log(`open loop at ${openRate.toFixed(0)}/s: p99 ${result.openLoop.latency.p99Ms.toFixed(1)} ms`);
    }
    result.sharedWallets = await step('sends between a few wallets', () => maxRate(`P2P sends between ${plan.sharedWallets} wallets chosen at random`, client!, randomPairSource(wallets.slice(0, plan.sharedWallets)), plan.sharedConcurrency, plan.sharedWalletsSeconds));
    if (result.sharedWallets) log(`${plan.sharedWallets} wallets at random: ${result.sharedWallets.ratePerSecond.toFixed(0)}/s, p99 ${result.sharedWallets.latency.p99Ms.toFixed(1)} ms, ${result.sharedWallets.failed} failed`);
    const hotRecipients = wallets.slice(0, plan.hotRecipients);
    result.hot = await step('hot wallet sends', () => commandTimes(setup, () => maxRate('P2P sends, one hot wallet', client!, hotSource(hot, hotRecipients), plan.hotConcurrency, plan.hotWalletSeconds)));
    if (result.hot) log(`hot wallet: ${result.hot.ratePerSecond.toFixed(0)}/s, p99 ${result.hot.latency.p99Ms.toFixed(1)} ms`);

    if (historyRoutes) result.history = await step('history', () => runHistory(plan, database.url, setup, app, log));
    else result.notes.push('GET /wallet/history or POST /wallet/history_sync does not exist yet; the history phase was skipped.');
    result.profile = await step('round trips of one send', () => profileOneSend({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir, from: wallets[0], to: wallets[1], sends: plan.quick ? 50 : 200 }));
    result.audit = await step('audit', () => setup.audit());
    if (result.audit) log(`audit: ${result.audit.ok ? 'balanced' : `PROBLEMS ${result.audit.problems.join('; ')}`}`);
    return result;
  } catch (error) {
    noteStoppedEarly(result, api, log, 'API on Postgres', error);
    return result;
  } finally {
    client?.close();
    await meter?.close();
    await setupRef?.operator?.close();
    await api?.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** What `npm run bench -- --history` measures: the history phase alone, and the audit after it. */
export interface HistoryOnlyResult {
  history: HistoryResult | null;
  audit: AuditAnswer | null;
  notes: string[];
}

/**
 * The history phase alone on a fresh database (`npm run bench -- --history`, `--quick` for 100,000
 * transfers): the API as in runServer, a few wallets, a few sends (the completed transfer the seed
 * copies), then the same seed and timed calls as the full run, and the ledger audit.
 */
export async function runHistoryOnly(plan: BenchPlan, environment: BenchEnvironment, log: (message: string) => void): Promise<HistoryOnlyResult> {
  const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_bench');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-bench-history-'));
  let api: ApiProcess | null = null;
  let client: HttpClient | null = null;
  const result: HistoryOnlyResult = { history: null, audit: null, notes: [] };
  try {
    api = await startApiProcess({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir });
    log(`API process ${api.pid} on ${api.baseUrl}, database ${database.name}`);
    client = new HttpClient(api.baseUrl, 8);
    const setup = new CashloopSetup(client, api.operatorKey);
    setup.operator = httpOperator(client, api.operatorKey);
    const app = await setup.createApp();
    await setup.designateIssuer(app);
    const wallets = await setup.wallets(app, historyOnlySenders);
    await setup.fund(wallets, walletFunding);
    const sends = await sequential('sends to copy', client, { count: historyOnlySenders, source: uniformSource(wallets) });
    if (sends.failed > 0) throw new Error(`sends failed: ${sends.failureSamples.join(' / ')}`);
    result.history = await runHistory(plan, database.url, setup, app, log, historyOnlySenders);
    result.audit = await setup.audit();
    log(`audit: ${result.audit.ok ? 'balanced' : `PROBLEMS ${result.audit.problems.join('; ')}`}`);
    await setup.operator.close();
    return result;
  } catch (error) {
    noteStoppedEarly(result, api, log, 'history phase', error);
    return result;
  } finally {
    client?.close();
    await api?.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Wallets (and sends between them) the history-only run makes before its seed. */
const historyOnlySenders = 4;

async function runHistory(plan: BenchPlan, databaseUrl: string, setup: CashloopSetup, app: Awaited<ReturnType<CashloopSetup['createApp']>>, log: (message: string) => void, walletsBefore = plan.uniformWallets + 1): Promise<HistoryResult> {
  const templateId = await templateTransfer(databaseUrl);
  if (!templateId) throw new Error('no completed P2P transfer to copy for the history seed');
  const [small, large, other] = await setup.wallets(app, 3, walletsBefore);
  const endAt = new Date(Date.now() - 60_000);
  const seededSmall = await seedHistory(databaseUrl, { templateId, reader: small.profileId, other: other.profileId, count: plan.historySmallTransfers, readerNumber: 1, endAt });
  const seededLarge = await seedHistory(databaseUrl, { templateId, reader: large.profileId, other: other.profileId, count: plan.historyLargeTransfers, readerNumber: 2, endAt });
  const seedSeconds = seededSmall.seconds + seededLarge.seconds;
  const smallCount = await visibleTransfers(databaseUrl, small.profileId);
  const largeCount = await visibleTransfers(databaseUrl, large.profileId);
  log(`history seeded: ${smallCount} and ${largeCount} transfers in ${seedSeconds.toFixed(1)} s`);
  const incremental = new Map<string, string>();
  for (const reader of [small, large] as Wallet[]) incremental.set(reader.profileId, await recentSyncTs(databaseUrl, reader.profileId, historyIncrementalBack));
  const comparisons = await compareHistory(setup.client, historyCalls(plan.historyRequests, incremental), small, large);
  return { small: smallCount, large: largeCount, seedSeconds, comparisons };
}
