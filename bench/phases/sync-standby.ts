// What the synchronous standby costs per send (issue 35): uniform P2P sends on one highly available
// cluster (BENCH_POSTGRES_URL pointing at its primary, e.g. `npm run ha`'s HAProxy port), against
// two fresh databases of it that differ in one setting: `synchronous_commit = on` (a commit waits
// until the synchronous standby has flushed it: what Cashloop runs with) and `local` (a commit waits
// for the primary's own disk only, as without a standby). Alternating rounds, so the machine's drift
// hits both alike; the figure is the ratio of the medians of the rounds' rates (with / without).
import os from 'node:os';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { BenchEnvironment } from '../config.ts';
import { startApiProcess, type ApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase, type BenchDatabase } from '../lib/databases.ts';
import { HttpClient } from '../lib/http-client.ts';
import { median } from '../lib/stats.ts';
import { fundedWallets, type Wallet } from '../scenarios/cashloop.ts';
import { maxRate, uniformSource } from '../scenarios/sends.ts';

const settings = Object.freeze({ wallets: 200, callers: 16, warmupSeconds: 3, roundSeconds: 8, rounds: 5 });
const walletFunding = '100000.00';
type SideName = 'with standby' | 'without';

export interface SyncStandbyResult {
  standbys: string;
  rounds: Record<SideName, number>[];
  withMedian: number;
  withoutMedian: number;
  ratio: number;
  failed: Record<SideName, number>;
  loadAverage: [number, number];
}

interface Side {
  name: SideName;
  api: ApiProcess;
  database: BenchDatabase;
  client: HttpClient;
  wallets: Wallet[];
}

async function startSide(name: SideName, environment: BenchEnvironment, log: (message: string) => void): Promise<Side> {
  const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_bench_sync');
  if (name === 'without') {
    const admin = postgres(environment.postgresUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`alter database ${database.name} set synchronous_commit = local`).finally(() => admin.end());
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-bench-sync-'));
  const api = await startApiProcess({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir });
  const { client, wallets } = await fundedWallets(api, { callers: settings.callers, walletCount: settings.wallets, funding: walletFunding });
  log(`${name}: API ${api.pid} on ${api.baseUrl}, ${wallets.length} wallets funded`);
  return { name, api, database, client, wallets };
}

/** The primary's synchronous_standby_names; refuses a server without a synchronous standby (the figure would mean nothing). */
async function synchronousStandbys(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ names: string; streaming: number }[]>`
      select current_setting('synchronous_standby_names') as names, (select count(*)::int from pg_stat_replication where sync_state = 'sync') as streaming`;
    if (!row.names || row.streaming === 0) throw new Error(`${new URL(url).host} has no synchronous standby streaming (start one: npm run ha -- up, and BENCH_POSTGRES_URL=its DATABASE_URL)`);
    return row.names;
  } finally {
    await sql.end();
  }
}

export async function runSyncStandby(environment: BenchEnvironment, log: (message: string) => void): Promise<SyncStandbyResult> {
  const standbys = await synchronousStandbys(environment.postgresUrl);
  const sides: Side[] = [];
  const loadStart = os.loadavg()[0];
  try {
    sides.push(await startSide('with standby', environment, log));
    sides.push(await startSide('without', environment, log));
    for (const side of sides) await maxRate(`warm-up ${side.name}`, side.client, uniformSource(side.wallets), settings.callers, settings.warmupSeconds);
    const rounds: SyncStandbyResult['rounds'] = [];
    const failed: Record<SideName, number> = { 'with standby': 0, without: 0 };
    for (let round = 0; round < settings.rounds; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse();
      const rates: Record<SideName, number> = { 'with standby': 0, without: 0 };
      for (const side of order) {
        const result = await maxRate(`uniform ${side.name}`, side.client, uniformSource(side.wallets), settings.callers, settings.roundSeconds);
        rates[side.name] = result.ratePerSecond;
        failed[side.name] += result.failed;
      }
      rounds.push(rates);
      log(`round ${round + 1}: with standby ${rates['with standby'].toFixed(0)}/s, without ${rates.without.toFixed(0)}/s`);
    }
    const withMedian = median(rounds.map((round) => round['with standby']));
    const withoutMedian = median(rounds.map((round) => round.without));
    return { standbys, rounds, withMedian, withoutMedian, ratio: withMedian / withoutMedian, failed, loadAverage: [loadStart, os.loadavg()[0]] };
  } finally {
    for (const side of sides) {
      side.client.close();
      await side.api.stop();
      await side.database.drop();
    }
  }
}

export function renderSyncStandby(result: SyncStandbyResult): string {
  return [
    '## What the synchronous standby costs per send (issue 35)',
    '',
    `Uniform P2P sends over HTTP, ${settings.callers} callers, ${settings.wallets} wallets, one API process per side, on one Patroni cluster ` +
      `(synchronous_standby_names ${result.standbys}); ${settings.rounds} alternating rounds of ${settings.roundSeconds} s. ` +
      `With standby: synchronous_commit on; without: local. Load average ${result.loadAverage[0].toFixed(1)} -> ${result.loadAverage[1].toFixed(1)}.`,
    '',
    '| round | with standby (sends/s) | without (sends/s) |',
    '|---|---|---|',
    ...result.rounds.map((round, index) => `| ${index + 1} | ${round['with standby'].toFixed(0)} | ${round.without.toFixed(0)} |`),
    `| median | ${result.withMedian.toFixed(0)} | ${result.withoutMedian.toFixed(0)} |`,
    '',
    `With / without: ${result.ratio.toFixed(3)} (medians); failed sends: with ${result.failed['with standby']}, without ${result.failed.without}.`,
    '',
  ].join('\n');
}
