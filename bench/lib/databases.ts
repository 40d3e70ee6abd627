// Bench databases on the real Postgres: each run makes its own (cashloop_bench_<random>,
// cashloop_pgbench_<random>) and drops it at the end, whatever happened.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export function databaseUrlWithName(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** `commitsWaitForDisk: false`: the database's sessions commit without waiting for the WAL to reach the disk (synchronous_commit off). */
export async function createBenchDatabase(adminUrl: string, prefix: string, options: { commitsWaitForDisk?: boolean } = {}): Promise<BenchDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name}`);
    if (options.commitsWaitForDisk === false) await admin.unsafe(`alter database ${name} set synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: databaseUrlWithName(adminUrl, name),
    async drop() {
      const dropper = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        await dropper.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
