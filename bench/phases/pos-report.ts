// The received-and-receivable report at 100,000 rows: seeds redemption rows for one merchant with
// SQL (transfers and receivables, engine/storage/migrations/0800_point_of_sale.sql), then times
// POST /wallet/report/receivable as CSV and as JSON against the API child process while sampling
// its resident memory (/proc/<pid>/status), beside the same query run bare through postgres.js.
// Targets (issues 11 and 24): CSV and JSON each under 200 MB peak memory and within 2x the bare query's time.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { reportQuery } from '../../engine/pos/store.ts';
import type { BenchEnvironment } from '../config.ts';
import { startApiProcess, type ApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase } from '../lib/databases.ts';
import { HttpClient } from '../lib/http-client.ts';
import { CashloopSetup } from '../scenarios/cashloop.ts';

export const posReportTargets = Object.freeze({ rows: 100_000, peakMbMax: 200, toBareRatioMax: 2 });
const memorySampleMs = 10;
const runsPerVariant = 3;

export interface PosReportVariant {
  name: string;
  seconds: number;
  bytes: number;
  rows: number;
  /** The API process's resident memory before the request and its peak during it. */
  rssBeforeMb: number | null;
  rssPeakMb: number | null;
}

export interface PosReportResult {
  rows: number;
  seedSeconds: number;
  bare: PosReportVariant;
  csv: PosReportVariant;
  json: PosReportVariant;
  csvToBareRatio: number;
  jsonToBareRatio: number;
  csvMemoryOk: boolean;
  csvTimeOk: boolean;
  jsonMemoryOk: boolean;
  jsonTimeOk: boolean;
}

function rssMb(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Runs body while sampling the process's resident memory; returns the peak seen. */
async function sampled<T>(pid: number, body: () => Promise<T>): Promise<{ value: T; before: number | null; peak: number | null }> {
  const before = rssMb(pid);
  let peak = before;
  const timer = setInterval(() => {
    const now = rssMb(pid);
    if (now !== null && (peak === null || now > peak)) peak = now;
  }, memorySampleMs);
  try {
    const value = await body();
    const last = rssMb(pid);
    if (last !== null && (peak === null || last > peak)) peak = last;
    return { value, before, peak };
  } finally {
    clearInterval(timer);
  }
}

async function seed(databaseUrl: string, merchantId: string, managerId: string, rows: number): Promise<number> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const startedAt = performance.now();
  try {
    await sql.begin(async (tx) => {
      // Seeded ids start with 09: engine transfer ids are 16-digit numbers from 10^15, so no clash.
      await tx`
        insert into transfers (id, workflow_type, sender_id, sender_uid, recipient_id, recipient_uid, currency, amount, start_at, updated_at, end_at,
          next_activity, completed, canceled, run_state, activity_count, private, appdata, details)
        select '09' || lpad(i::text, 14, '0'), 'pull_redeem', ${managerId}, 'service:' || ${managerId}, ${merchantId}, 'service:' || ${merchantId}, 'USD', 1000 + i % 5000,
          now() - i * interval '1 second', now() - i * interval '1 second', now() - i * interval '1 second', 'completed', true, false, 'done', 1, true, '{}'::jsonb, '{}'::jsonb
        from generate_series(1, ${rows}::integer) as i`;
      await tx`
        insert into receivables (profile_id, at, transfer_id, pos_device_holder_id, pos_device_id, dist_tid, settlement_type, received_currency, settle_currency, loop_id,
          is_fundable, tender_type, received_amount, settle_funded, settle_reclaimed, settle_pending, settle_settled)
        select ${merchantId}, now() - i * interval '1 second', '09' || lpad(i::text, 14, '0'),
          case when i % 3 = 0 then null else ${managerId} end, case when i % 3 = 0 then null else 'till-' || (i % 3) end, null,
          case when i % 10 = 0 then 'non_service' else 'redeem' end, 'USD', 'USD', case when i % 10 = 0 then '0' else '1234567890' end,
          i % 10 <> 0, case when i % 10 = 0 then 'non_service' else 'service' end, 1000 + i % 5000,
          case when i % 10 = 0 or i % 4 = 0 then 0 else 1000 + i % 5000 end, 0, case when i % 4 = 0 and i % 10 <> 0 then 1000 + i % 5000 else 0 end, 0
        from generate_series(1, ${rows}::integer) as i`;
    });
    await sql`analyze receivables`;
  } finally {
    await sql.end();
  }
  return (performance.now() - startedAt) / 1000;
}

async function timedBare(databaseUrl: string, merchantId: string): Promise<PosReportVariant> {
  // The engine's own connection settings (bigint columns as bigint), so the rows are the API's rows.
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {}, types: { bigint: postgres.BigInt } });
  try {
    let best: PosReportVariant | null = null;
    for (let run = 0; run < runsPerVariant; run++) {
      const startedAt = performance.now();
      const rows = await reportQuery(sql, { profileId: merchantId, startAt: null, endBefore: null, posDevice: 'any_or_none', settlementTypes: null });
      const seconds = (performance.now() - startedAt) / 1000;
      if (!best || seconds < best.seconds) best = { name: 'bare SQL (postgres.js, all rows)', seconds, bytes: 0, rows: rows.length, rssBeforeMb: null, rssPeakMb: null };
    }
    return best!;
  } finally {
    await sql.end();
  }
}

async function timedReport(api: ApiProcess, token: string, csv: boolean): Promise<PosReportVariant> {
  let best: PosReportVariant | null = null;
  let peak: number | null = null;
  let before: number | null = null;
  for (let run = 0; run < runsPerVariant; run++) {
    const measured = await sampled(api.pid, async () => {
      const startedAt = performance.now();
      const response = await fetch(`${api.baseUrl}/wallet/report/receivable`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ csv }),
      });
      if (response.status !== 200) throw new Error(`report answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
      let bytes = 0;
      let rows = 0;
      let seconds: number;
      if (csv) {
        // Count bytes and lines as they stream; the bench keeps none of them.
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          bytes += chunk.length;
          for (const byte of chunk) if (byte === 10) rows += 1;
        }
        rows -= 1;
        seconds = (performance.now() - startedAt) / 1000;
      } else {
        const text = await response.text();
        // The clock stops when the answer has arrived; parsing it is the client's work.
        seconds = (performance.now() - startedAt) / 1000;
        bytes = text.length;
        rows = (JSON.parse(text).report as unknown[]).length;
      }
      return { seconds, bytes, rows };
    });
    before ??= measured.before;
    if (measured.peak !== null && (peak === null || measured.peak > peak)) peak = measured.peak;
    if (!best || measured.value.seconds < best.seconds) best = { name: csv ? 'API, csv: true (streamed)' : 'API, JSON', ...measured.value, rssBeforeMb: before, rssPeakMb: peak };
  }
  return { ...best!, rssBeforeMb: before, rssPeakMb: peak };
}

/** `nodeArguments`: added to the API process's command line (an A/B of V8 flags against the usual start). */
export async function runPosReport(environment: BenchEnvironment, log: (message: string) => void, rows = posReportTargets.rows, nodeArguments: string[] = []): Promise<PosReportResult> {
  const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_bench');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-bench-pos-'));
  let api: ApiProcess | null = null;
  try {
    api = await startApiProcess({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir, nodeArguments });
    const setup = new CashloopSetup(new HttpClient(api.baseUrl, 4), api.operatorKey);
    const app = await setup.createApp();
    const managerId = await setup.addIndividual(app, 0);
    const address = { line1: '1 Main St', city: 'Springfield', country: 'US', state: 'IL', zip: '62701' };
    const merchant = await setup.client.json('POST', '/p/add-business', { business_name: 'Bench Cafe', manager_uid: `service:${managerId}`, business: address, mail: address },
      { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` });
    const token = await setup.token(app, merchant.id, managerId);
    log(`seeding ${rows} report rows...`);
    const seedSeconds = await seed(database.url, merchant.id, managerId, rows);
    const bare = await timedBare(database.url, merchant.id);
    const csv = await timedReport(api, token, true);
    const json = await timedReport(api, token, false);
    setup.client.close();
    if (csv.rows !== rows || json.rows !== rows || bare.rows !== rows) throw new Error(`row counts differ: bare ${bare.rows}, csv ${csv.rows}, json ${json.rows}, seeded ${rows}`);
    const csvToBareRatio = csv.seconds / bare.seconds;
    const jsonToBareRatio = json.seconds / bare.seconds;
    const memoryOk = (variant: PosReportVariant) => variant.rssPeakMb !== null && variant.rssPeakMb < posReportTargets.peakMbMax;
    return {
      rows, seedSeconds, bare, csv, json, csvToBareRatio, jsonToBareRatio,
      csvMemoryOk: memoryOk(csv), csvTimeOk: csvToBareRatio <= posReportTargets.toBareRatioMax,
      jsonMemoryOk: memoryOk(json), jsonTimeOk: jsonToBareRatio <= posReportTargets.toBareRatioMax,
    };
  } finally {
    await api?.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function renderPosReport(result: PosReportResult): string {
  const mb = (value: number | null) => (value === null ? 'n/a' : value.toFixed(0));
  const line = (variant: PosReportVariant) =>
    `| ${variant.name} | ${variant.rows} | ${variant.seconds.toFixed(3)} | ${(variant.bytes / 1e6).toFixed(1)} | ${mb(variant.rssBeforeMb)} | ${mb(variant.rssPeakMb)} |`;
  return [
    `## Received-and-receivable report, ${result.rows.toLocaleString('en-US')} rows`,
    '',
    `Seeded in ${result.seedSeconds.toFixed(1)} s. Best of ${runsPerVariant} runs each; memory is the API process's resident set (before the first request, peak over the runs).`,
    '',
    '| variant | rows | seconds | MB sent | RSS before (MB) | RSS peak (MB) |',
    '|---|---|---|---|---|---|',
    line(result.bare),
    line(result.csv),
    line(result.json),
    '',
    (['csv', 'json'] as const).map((name) => {
      const [variant, ratio] = name === 'csv' ? [result.csv, result.csvToBareRatio] : [result.json, result.jsonToBareRatio];
      const [memoryOk, timeOk] = name === 'csv' ? [result.csvMemoryOk, result.csvTimeOk] : [result.jsonMemoryOk, result.jsonTimeOk];
      return `${name.toUpperCase()}: peak memory ${mb(variant.rssPeakMb)} MB (target under ${posReportTargets.peakMbMax} MB) ${memoryOk ? 'PASS' : 'MISS'}; ` +
        `time ${ratio.toFixed(2)}x the bare query (target within ${posReportTargets.toBareRatioMax}x) ${timeOk ? 'PASS' : 'MISS'}.`;
    }).join('\n\n'),
    '',
  ].join('\n');
}
