// The gate costs the send path nothing (issue 20): uniform P2P sends against this checkout's API and
// against the commit before the gate (a detached git worktree of it, sharing node_modules), each on
// its own fresh database on the same Postgres and Redis, in alternating rounds so the machine's
// drift hits both alike. The figure is the ratio of the medians of the rounds' rates (gate / before);
// the target is at least 0.95 (within 5%).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import type { BenchEnvironment } from '../config.ts';
import { repositoryRoot, startApiProcess, type ApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase, type BenchDatabase } from '../lib/databases.ts';
import { HttpClient } from '../lib/http-client.ts';
import { median } from '../lib/stats.ts';
import { fundedWallets, type Wallet } from '../scenarios/cashloop.ts';
import { maxRate, uniformSource } from '../scenarios/sends.ts';

/** The last commit before the gate's round of work (CASHLOOP_BENCH_GATE_BASE overrides it). */
export const gateBaseCommit = process.env.CASHLOOP_BENCH_GATE_BASE ?? '473afa1';
export const gateCompareTargets = Object.freeze({ ratioMin: 0.95 });
const settings = Object.freeze({ wallets: 200, callers: 16, warmupSeconds: 3, roundSeconds: 8, rounds: 5 });
const walletFunding = '100000.00';

export interface GateCompareResult {
  baseCommit: string;
  headCommit: string;
  rounds: { before: number; gate: number }[];
  beforeMedian: number;
  gateMedian: number;
  ratio: number;
  ok: boolean;
  failed: { before: number; gate: number };
  loadAverage: [number, number];
}

interface Side {
  name: 'before' | 'gate';
  api: ApiProcess;
  database: BenchDatabase;
  client: HttpClient;
  wallets: Wallet[];
}

/** A detached worktree of the base commit, with this checkout's node_modules (the base's packages are a subset). */
function checkoutBase(commit: string): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'cashloop-bench-gate-base-'));
  rmSync(directory, { recursive: true, force: true });
  execFileSync('git', ['worktree', 'add', '--detach', directory, commit], { cwd: repositoryRoot, stdio: 'ignore' });
  symlinkSync(path.join(repositoryRoot, 'node_modules'), path.join(directory, 'node_modules'));
  return directory;
}

async function startSide(name: Side['name'], environment: BenchEnvironment, cwd: string | undefined, log: (message: string) => void): Promise<Side> {
  const database = await createBenchDatabase(environment.postgresUrl, `cashloop_bench_${name}`);
  const dataDir = mkdtempSync(path.join(tmpdir(), `cashloop-bench-${name}-`));
  const api = await startApiProcess({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir, cwd });
  const { client, wallets } = await fundedWallets(api, { callers: settings.callers, walletCount: settings.wallets, funding: walletFunding });
  log(`${name}: API ${api.pid} on ${api.baseUrl}, ${wallets.length} wallets funded`);
  return { name, api, database, client, wallets };
}

export async function runGateCompare(environment: BenchEnvironment, log: (message: string) => void): Promise<GateCompareResult> {
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repositoryRoot }).toString().trim();
  const baseDirectory = checkoutBase(gateBaseCommit);
  const sides: Side[] = [];
  const loadStart = os.loadavg()[0];
  try {
    sides.push(await startSide('before', environment, baseDirectory, log));
    sides.push(await startSide('gate', environment, undefined, log));
    for (const side of sides) await maxRate(`warm-up ${side.name}`, side.client, uniformSource(side.wallets), settings.callers, settings.warmupSeconds);
    const rounds: GateCompareResult['rounds'] = [];
    const failed = { before: 0, gate: 0 };
    for (let round = 0; round < settings.rounds; round++) {
      // Alternate which side goes first, so neither always follows the other's tail.
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      const rates: Record<Side['name'], number> = { before: 0, gate: 0 };
      for (const side of order) {
        const result = await maxRate(`uniform ${side.name}`, side.client, uniformSource(side.wallets), settings.callers, settings.roundSeconds);
        rates[side.name] = result.ratePerSecond;
        failed[side.name] += result.failed;
      }
      rounds.push(rates);
      log(`round ${round + 1}: before ${rates.before.toFixed(0)}/s, gate ${rates.gate.toFixed(0)}/s`);
    }
    const beforeMedian = median(rounds.map((round) => round.before));
    const gateMedian = median(rounds.map((round) => round.gate));
    const ratio = gateMedian / beforeMedian;
    return {
      baseCommit: gateBaseCommit, headCommit: head, rounds, beforeMedian, gateMedian, ratio,
      ok: ratio >= gateCompareTargets.ratioMin && failed.gate === 0, failed, loadAverage: [loadStart, os.loadavg()[0]],
    };
  } finally {
    for (const side of sides) {
      side.client.close();
      await side.api.stop();
      await side.database.drop();
    }
    execFileSync('git', ['worktree', 'remove', '--force', baseDirectory], { cwd: repositoryRoot, stdio: 'ignore' });
    if (existsSync(baseDirectory)) rmSync(baseDirectory, { recursive: true, force: true });
  }
}

export function renderGateCompare(result: GateCompareResult): string {
  return [
    `## The gate's cost on the send path (issue 20)`,
    '',
    `Uniform P2P sends over HTTP, ${settings.callers} callers, ${settings.wallets} wallets, real Postgres + Redis, one API process per side; ` +
      `${settings.rounds} alternating rounds of ${settings.roundSeconds} s. Before: ${result.baseCommit}; gate: ${result.headCommit}. ` +
      `Load average ${result.loadAverage[0].toFixed(1)} -> ${result.loadAverage[1].toFixed(1)}.`,
    '',
    '| round | before (sends/s) | gate (sends/s) |',
    '|---|---|---|',
    ...result.rounds.map((round, index) => `| ${index + 1} | ${round.before.toFixed(0)} | ${round.gate.toFixed(0)} |`),
    `| median | ${result.beforeMedian.toFixed(0)} | ${result.gateMedian.toFixed(0)} |`,
    '',
    `Gate / before: ${result.ratio.toFixed(3)} (target at least ${gateCompareTargets.ratioMin}) ${result.ok ? 'PASS' : 'MISS'}; ` +
      `failed sends: before ${result.failed.before}, gate ${result.failed.gate}.`,
    '',
  ].join('\n');
}
