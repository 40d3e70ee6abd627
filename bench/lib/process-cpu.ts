// CPU time by process over a measured window, from /proc: the server under test (its pid), the
// Postgres processes that serve its database (its backends, found in pg_stat_activity, plus the
// background processes and the postmaster, which every database shares), Redis (`INFO cpu`) and
// the load generator (this process). Other databases' backends on the same server are left out,
// so a test run against another database does not count; everything else on the machine does.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import postgres from 'postgres';

const clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString());

export type CpuPart = 'api' | 'postgres' | 'redis' | 'generator';
export const cpuParts: readonly CpuPart[] = ['api', 'postgres', 'redis', 'generator'];

/** CPU seconds spent by each part over a window. */
export type CpuSeconds = Record<CpuPart, number>;

/** The fields of /proc/<pid>/stat after the command name (state first), or null once the process is gone. */
function statFields(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return null;
  }
}

/** User + system CPU seconds of a process so far (0 once it is gone). */
export function processCpuSeconds(pid: number): number {
  const fields = statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond : 0;
}

function parentPid(pid: number): number | null {
  const fields = statFields(pid);
  return fields ? Number(fields[1]) : null;
}

interface Reading {
  servers: number;
  postgresByPid: Map<number, number>;
  redis: number;
  generator: number;
}

export interface CpuMeter {
  /** Starts a window; `stop()` answers the CPU seconds each part spent in it. */
  start(): Promise<{ stop(): Promise<CpuSeconds> }>;
  close(): Promise<void>;
}

/**
 * A meter for servers (one or more API processes, summed as 'api') using databaseUrl on Postgres
 * and Redis at redisUrl (null: no Redis part).
 */
export function cpuMeter(options: { serverPids: readonly number[]; databaseUrl: string; redisUrl: string | null }): CpuMeter {
  const sql = postgres(options.databaseUrl, { max: 1, onnotice: () => {} });
  const redis = options.redisUrl ? new Redis(options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 }) : null;

  async function postgresPids(): Promise<number[]> {
    const rows = await sql<{ pid: number }[]>`
      select pid from pg_stat_activity where datname = current_database() or datname is null`;
    const pids = rows.map((row) => row.pid);
    const postmaster = pids.length > 0 ? parentPid(pids[0]) : null;
    return postmaster ? [...pids, postmaster] : pids;
  }

  async function redisCpuSeconds(): Promise<number> {
    if (!redis) return 0;
    const info = await redis.info('cpu');
    const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1] ?? 0);
    return field('used_cpu_sys') + field('used_cpu_user');
  }

  async function read(pids: readonly number[]): Promise<Reading> {
    const self = process.cpuUsage();
    const redisSeconds = await redisCpuSeconds();
    return {
      servers: options.serverPids.reduce((total, pid) => total + processCpuSeconds(pid), 0),
      postgresByPid: new Map(pids.map((pid) => [pid, processCpuSeconds(pid)])),
      redis: redisSeconds,
      generator: (self.user + self.system) / 1e6,
    };
  }

  return {
    async start() {
      const startPids = await postgresPids();
      const before = await read(startPids);
      return {
        async stop() {
          // A backend that appeared during the window counts from zero; one that left is lost (pools keep theirs).
          const endPids = [...new Set([...startPids, ...(await postgresPids())])];
          const after = await read(endPids);
          let postgresSeconds = 0;
          for (const pid of endPids) postgresSeconds += (after.postgresByPid.get(pid) ?? 0) - (before.postgresByPid.get(pid) ?? 0);
          return { api: after.servers - before.servers, postgres: postgresSeconds, redis: after.redis - before.redis, generator: after.generator - before.generator };
        },
      };
    },
    async close() {
      await sql.end();
      redis?.disconnect();
    },
  };
}

export function totalCpuSeconds(spent: CpuSeconds): number {
  return cpuParts.reduce((total, part) => total + spent[part], 0);
}

/** Milliseconds of CPU per operation, by part and in total. */
export function cpuPerOperationMs(spent: CpuSeconds, operations: number): CpuSeconds & { total: number } {
  const per = (seconds: number) => (operations > 0 ? (seconds / operations) * 1000 : Number.NaN);
  return { api: per(spent.api), postgres: per(spent.postgres), redis: per(spent.redis), generator: per(spent.generator), total: per(totalCpuSeconds(spent)) };
}

/** "1.23 ms (API 0.80, Postgres 0.35, Redis 0.03, generator 0.05)". */
export function cpuPerOperationText(perOperation: CpuSeconds & { total: number }): string {
  const ms = (value: number) => value.toFixed(2);
  return `${ms(perOperation.total)} ms (API ${ms(perOperation.api)}, Postgres ${ms(perOperation.postgres)}, Redis ${ms(perOperation.redis)}, generator ${ms(perOperation.generator)})`;
}
