// The Postgres ceiling on this machine: `pgbench -b tpcb-like` (a bank transfer: three updates,
// one select, one insert per transaction) in its own database on the same server, same run.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { createBenchDatabase } from '../lib/databases.ts';

const run = promisify(execFile);
const pgbenchCandidates = ['/usr/lib/postgresql/15/bin/pgbench', '/usr/bin/pgbench'];
const outputBytesMax = 16 * 1024 * 1024;

export interface PgbenchResult {
  tps: number;
  latencyAverageMs: number;
  transactions: number;
  scale: number;
  clients: number;
  threads: number;
  seconds: number;
  command: string;
}

export function findPgbench(explicit: string | undefined): string {
  if (explicit) return explicit;
  const found = pgbenchCandidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error('pgbench not found; set BENCH_PGBENCH to its path');
  return found;
}

function connectionArguments(url: string): string[] {
  const parsed = new URL(url);
  return ['-h', parsed.hostname, '-p', parsed.port || '5432', '-U', decodeURIComponent(parsed.username || 'postgres')];
}

/** Parses pgbench's summary: `tps = 3512.3 (without initial connection time)` and `latency average = 2.27 ms`. */
export function parsePgbenchOutput(text: string): { tps: number; latencyAverageMs: number; transactions: number } {
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(text) ?? /tps = ([\d.]+)/.exec(text);
  const latency = /latency average = ([\d.]+) ms/.exec(text);
  const transactions = /number of transactions actually processed: (\d+)/.exec(text);
  if (!tps) throw new Error(`pgbench printed no tps:\n${text}`);
  return { tps: Number(tps[1]), latencyAverageMs: latency ? Number(latency[1]) : Number.NaN, transactions: transactions ? Number(transactions[1]) : 0 };
}

function pgbenchEnvironment(url: string): NodeJS.ProcessEnv {
  return { ...process.env, PGPASSWORD: decodeURIComponent(new URL(url).password || '') };
}

/** `pgbench -i -s scale`: the accounts, tellers, branches and history tables in an existing database. */
export async function initialisePgbench(options: { adminUrl: string; binary: string; database: string; scale: number }): Promise<void> {
  const initialiseArguments = ['-i', '-q', '-s', String(options.scale), ...connectionArguments(options.adminUrl), options.database];
  await run(options.binary, initialiseArguments, { env: pgbenchEnvironment(options.adminUrl), maxBuffer: outputBytesMax });
}

export async function runPgbench(options: { adminUrl: string; binary: string; scale: number; clients: number; threads: number; seconds: number }): Promise<PgbenchResult> {
  const database = await createBenchDatabase(options.adminUrl, 'cashloop_pgbench');
  const connection = connectionArguments(options.adminUrl);
  const env = pgbenchEnvironment(options.adminUrl);
  try {
    await initialisePgbench({ adminUrl: options.adminUrl, binary: options.binary, database: database.name, scale: options.scale });
    const runArguments = ['-b', 'tpcb-like', '-c', String(options.clients), '-j', String(options.threads), '-T', String(options.seconds), ...connection, database.name];
    const { stdout } = await run(options.binary, runArguments, { env, maxBuffer: outputBytesMax });
    return {
      ...parsePgbenchOutput(stdout),
      scale: options.scale,
      clients: options.clients,
      threads: options.threads,
      seconds: options.seconds,
      command: `pgbench ${runArguments.slice(0, 8).join(' ')}`,
    };
  } finally {
    await database.drop();
  }
}
