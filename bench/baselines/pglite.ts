// PGlite's own ceiling for the embedded default: single-row UPDATE transactions through PGlite
// opened exactly as the engine opens it (engine/storage/database.ts openPglite: on disk, served
// over the loopback socket to a postgres.js pool), with as many workers as that pool has.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openPglite } from '../../engine/storage/database.ts';
import { summarize, type LatencySummary } from '../lib/stats.ts';

/** engine/storage/database.ts gives PGlite's postgres.js pool 4 connections. */
export const pglitePoolSize = 4;

export interface PgliteBaselineResult {
  updatesPerSecond: number;
  /** Transactions that failed (PGlite serves one backend; see docs/performance.md on protocol errors). */
  errors: number;
  errorSample: string | null;
  workers: number;
  seconds: number;
  latency: LatencySummary;
}

export async function runPgliteBaseline(options: { seconds: number; rows: number; warmupSeconds: number }): Promise<PgliteBaselineResult> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-bench-pglite-baseline-'));
  const database = await openPglite(dataDir);
  const { sql } = database;
  try {
    await sql`create table bench_counters (id integer primary key, value bigint not null)`;
    await sql`insert into bench_counters (id, value) select id, 0 from generate_series(1, ${options.rows}::integer) as id`;
    const measure = async (durationMs: number) => {
      const samplesMs: number[] = [];
      let errors = 0;
      let errorSample: string | null = null;
      const startedAt = performance.now();
      const endsAt = startedAt + durationMs;
      let next = 0;
      const worker = async () => {
        while (performance.now() < endsAt) {
          const id = (next++ % options.rows) + 1;
          const sentAt = performance.now();
          try {
            await sql.begin(async (tx) => {
              const result = await tx`update bench_counters set value = value + 1 where id = ${id}`;
              if (result.count !== 1) throw new Error(`the update touched ${result.count} rows`);
            });
            samplesMs.push(performance.now() - sentAt);
          } catch (error) {
            errors++;
            errorSample ??= String(error);
          }
        }
      };
      await Promise.all(Array.from({ length: pglitePoolSize }, worker));
      return { samplesMs, errors, errorSample, seconds: (performance.now() - startedAt) / 1000 };
    };
    await measure(options.warmupSeconds * 1000);
    const { samplesMs, errors, errorSample, seconds } = await measure(options.seconds * 1000);
    return { updatesPerSecond: samplesMs.length / seconds, errors, errorSample, workers: pglitePoolSize, seconds, latency: summarize(samplesMs) };
  } finally {
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
