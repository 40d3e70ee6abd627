// The growth phase (issue 36): does Cashloop slow down or swell as it runs? On a fresh database
// with its own API process: rows written and statements run per send (bench/phases/round-trips.ts);
// a merchant receives plan.growthPayments payments of 0.01 and then sends its whole balance, timed
// beside a wallet that received one payment; then a long run of plan.growthSends uniform sends,
// whose last tenth's latency is compared with its first, with the database bytes per transfer and
// the outbox rows left after it (bounded by the outbox's retention); the ledger audit at the end.
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import postgres from 'postgres';
import { outboxDeliveredRetentionMs, outboxPruneIntervalMs } from '../../engine/limits.ts';
import type { BenchEnvironment, BenchPlan } from '../config.ts';
import { targets } from '../config.ts';
import { noteStoppedEarly, startApiProcess, type ApiProcess } from '../lib/api-process.ts';
import { createBenchDatabase } from '../lib/databases.ts';
import { HttpClient } from '../lib/http-client.ts';
import { countedLoop, type PhaseResult } from '../lib/load.ts';
import { formatMs, formatRatio, median } from '../lib/stats.ts';
import { formatRate, latencyText, renderMarkdown, verdict, type Row } from '../report.ts';
import { CashloopSetup, sendRequest, type Wallet } from '../scenarios/cashloop.ts';
import { httpOperator, type AuditAnswer } from '../scenarios/operator.ts';
import { sendAmount, uniformSource } from '../scenarios/sends.ts';
import { describeProfile, profileOneSend, type SendProfile } from './round-trips.ts';

export interface WholeBalanceSend {
  payments: number;
  balance: string;
  ms: number;
  ok: boolean;
  answer: string;
}

export interface GrowthResult {
  profile: SendProfile | null;
  payments: PhaseResult | null;
  /** The merchant's whole-balance send after plan.growthPayments payments, and a fresh wallet's after one. */
  grown: WholeBalanceSend | null;
  fresh: WholeBalanceSend | null;
  long: PhaseResult | null;
  /** Median latency of the long run's first and last tenth (completion order). */
  earlyMedianMs: number | null;
  lateMedianMs: number | null;
  transfers: number | null;
  databaseBytesGrown: number | null;
  outbox: { rows: number; pending: number; pastRetention: number } | null;
  audit: AuditAnswer | null;
  notes: string[];
}

const walletFunding = '100000.00';
/** A delivered outbox row older than the retention survives at most one pruning interval, and this to spare. */
const pruneSlackMs = 5_000;

/** The wallet's open loop balance in USD (one minor unit per cent), from `ok` payments of sendAmount. */
function centsText(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

async function timedSend(client: HttpClient, from: Wallet, to: Wallet, amount: string, payments: number): Promise<WholeBalanceSend> {
  const startedAt = performance.now();
  const answer = await client.send(sendRequest(from, to, amount));
  const ms = performance.now() - startedAt;
  return { payments, balance: amount, ms, ok: answer.status >= 200 && answer.status < 300, answer: answer.status >= 300 ? `${answer.status} ${answer.text.slice(0, 200)}` : '' };
}

async function databaseFigures(databaseUrl: string): Promise<{ bytes: number; transfers: number }> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ bytes: string; transfers: string }[]>`
      select pg_database_size(current_database())::text as bytes, (select count(*) from transfers)::text as transfers`;
    return { bytes: Number(row.bytes), transfers: Number(row.transfers) };
  } finally {
    await sql.end();
  }
}

async function outboxFigures(databaseUrl: string): Promise<{ rows: number; pending: number; pastRetention: number }> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const pastAt = new Date(Date.now() - outboxDeliveredRetentionMs - outboxPruneIntervalMs - pruneSlackMs);
    const [row] = await sql<{ rows: string; pending: string; past: string }[]>`
      select count(*)::text as rows,
        count(*) filter (where delivered_at is null and failed_at is null)::text as pending,
        count(*) filter (where delivered_at < ${pastAt} and kind <> 'webhook.deliver')::text as past
      from outbox`;
    return { rows: Number(row.rows), pending: Number(row.pending), pastRetention: Number(row.past) };
  } finally {
    await sql.end();
  }
}

/**
 * What `--growth` reads from its arguments: `--api-checkout=DIR` runs the API of another checkout (the
 * figures before a change), `--keep-database` leaves the grown database for a migration to be tried on.
 */
export function growthOptions(argv: readonly string[]): { apiCheckout: string | undefined; keepDatabase: boolean } {
  const checkout = argv.find((argument) => argument.startsWith('--api-checkout='));
  return { apiCheckout: checkout?.slice('--api-checkout='.length), keepDatabase: argv.includes('--keep-database') };
}

export async function runGrowth(plan: BenchPlan, environment: BenchEnvironment, log: (message: string) => void, options: { apiCheckout?: string; keepDatabase?: boolean } = {}): Promise<GrowthResult> {
  const database = await createBenchDatabase(environment.postgresUrl, 'cashloop_bench');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cashloop-bench-growth-'));
  let api: ApiProcess | null = null;
  let client: HttpClient | null = null;
  const result: GrowthResult = { profile: null, payments: null, grown: null, fresh: null, long: null, earlyMedianMs: null, lateMedianMs: null, transfers: null, databaseBytesGrown: null, outbox: null, audit: null, notes: [] };
  try {
    api = await startApiProcess({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir, cwd: options.apiCheckout });
    log(`growth: API process ${api.pid}${options.apiCheckout ? ` of ${options.apiCheckout}` : ''}, database ${database.name}`);
    client = new HttpClient(api.baseUrl, plan.growthConcurrency + 4);
    const setup = new CashloopSetup(client, api.operatorKey);
    setup.operator = httpOperator(client, api.operatorKey);
    const app = await setup.createApp();
    await setup.designateIssuer(app);
    const payers = await setup.wallets(app, plan.growthWallets);
    const [merchant, fresh, payee] = await setup.wallets(app, 3, plan.growthWallets);
    await setup.fund(payers, walletFunding);
    log(`growth: ${payers.length + 3} wallets, payers funded`);

    result.profile = await profileOneSend({ databaseUrl: database.url, redisUrl: environment.redisUrl, dataDir, from: payers[0], to: payers[1], sends: plan.quick ? 50 : 200, cwd: options.apiCheckout });
    log(`growth: ${result.profile.rowsPerSend} rows and ${result.profile.statementsPerSend.toFixed(1)} statements per send`);

    const payments = await countedLoop('payments to one merchant', client, { callers: plan.growthConcurrency, count: plan.growthPayments, source: (index) => sendRequest(payers[index % payers.length], merchant, sendAmount) });
    result.payments = payments;
    log(`growth: ${payments.ok} payments to the merchant at ${payments.ratePerSecond.toFixed(0)}/s`);
    const freshPayment = await client.send(sendRequest(payers[0], fresh, sendAmount));
    if (freshPayment.status >= 300) throw new Error(`the fresh wallet's payment failed: ${freshPayment.status} ${freshPayment.text.slice(0, 200)}`);
    result.grown = await timedSend(client, merchant, payee, centsText(payments.ok), payments.ok);
    result.fresh = await timedSend(client, fresh, payee, sendAmount, 1);
    log(`growth: whole balance after ${payments.ok} payments ${result.grown.ms.toFixed(1)} ms, after one ${result.fresh.ms.toFixed(1)} ms`);

    const before = await databaseFigures(database.url);
    const long = await countedLoop('long run of uniform sends', client, { callers: plan.growthConcurrency, count: plan.growthSends, source: uniformSource(payers) });
    result.long = long;
    const after = await databaseFigures(database.url);
    const tenth = Math.max(1, Math.floor(long.samplesMs.length / 10));
    result.earlyMedianMs = median(long.samplesMs.slice(0, tenth));
    result.lateMedianMs = median(long.samplesMs.slice(-tenth));
    result.transfers = after.transfers - before.transfers;
    result.databaseBytesGrown = after.bytes - before.bytes;
    result.outbox = await outboxFigures(database.url);
    log(`growth: ${long.ok} sends at ${long.ratePerSecond.toFixed(0)}/s, first tenth ${result.earlyMedianMs.toFixed(2)} ms, last ${result.lateMedianMs.toFixed(2)} ms; outbox ${result.outbox.rows} rows`);
    result.audit = await setup.audit();
    log(`growth: audit ${result.audit.ok ? 'balanced' : `PROBLEMS ${result.audit.problems.join('; ')}`}`);
    await setup.operator.close();
    return result;
  } catch (error) {
    noteStoppedEarly(result, api, log, 'growth phase', error);
    return result;
  } finally {
    client?.close();
    await api?.stop();
    if (options.keepDatabase) log(`growth: database kept: ${database.url}`);
    else await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const na = (measure: string, target: string): Row => ({ measure, value: 'did not run', baseline: '—', ratio: '—', target, verdict: 'n/a' });

/** The growth phase's rows of the table (they join the full run's, or stand alone with --growth). */
export function growthRows(result: GrowthResult | null): Row[] {
  const rows: Row[] = [];
  const profile = result?.profile ?? null;
  if (profile) {
    rows.push({ measure: 'Rows written per open loop P2P send (inserted + updated + deleted, its effects\' delivery included)', value: `${profile.rowsPerSend.toFixed(2)}: ${profile.rowsPerSendByTable.map(([table, count]) => `${table} ${count}`).join(', ')}`, baseline: '—', ratio: '—', target: `≤ ${targets.rowsPerSendMax}`, verdict: verdict(profile.rowsPerSend <= targets.rowsPerSendMax) });
    rows.push({ measure: 'Statements per open loop P2P send (BEGIN and COMMIT included)', value: `${profile.statementsPerSend.toFixed(1)} in ${profile.postgresRoundTripsPerSend.toFixed(1)} round trips`, baseline: '—', ratio: '—', target: `≤ ${targets.statementsPerSendMax}`, verdict: verdict(profile.statementsPerSend <= targets.statementsPerSendMax) });
  } else {
    rows.push(na('Rows written per open loop P2P send', `≤ ${targets.rowsPerSendMax}`), na('Statements per open loop P2P send', `≤ ${targets.statementsPerSendMax}`));
  }
  const { grown, fresh } = result ?? { grown: null, fresh: null };
  if (grown && fresh) {
    rows.push({
      measure: `Whole-balance send from a wallet that received ${grown.payments.toLocaleString('en-US')} payments (${grown.balance})`,
      value: `${formatMs(grown.ms)} ms${grown.ok ? '' : ` FAILED ${grown.answer}`}`,
      baseline: `after one payment ${formatMs(fresh.ms)} ms${fresh.ok ? '' : ` FAILED ${fresh.answer}`}`,
      ratio: formatRatio(grown.ms / fresh.ms),
      target: `< ${targets.wholeBalanceSendMsMax} ms`,
      verdict: verdict(grown.ok && fresh.ok && grown.ms < targets.wholeBalanceSendMsMax),
    });
  } else rows.push(na('Whole-balance send from a wallet that received many payments', `< ${targets.wholeBalanceSendMsMax} ms`));
  const long = result?.long ?? null;
  if (long && result?.transfers && result.databaseBytesGrown !== null && result.earlyMedianMs !== null && result.lateMedianMs !== null && result.outbox) {
    const bytesPerTransfer = result.databaseBytesGrown / result.transfers;
    rows.push({ measure: `Database bytes per transfer over ${result.transfers.toLocaleString('en-US')} sends (pg_database_size)`, value: `${Math.round(bytesPerTransfer).toLocaleString('en-US')} B`, baseline: '—', ratio: '—', target: `≤ ${targets.bytesPerTransferMax} B`, verdict: verdict(bytesPerTransfer <= targets.bytesPerTransferMax) });
    const drift = result.lateMedianMs / result.earlyMedianMs;
    rows.push({ measure: `Send latency (median), last tenth over first tenth of ${long.ok.toLocaleString('en-US')} sends`, value: `${formatMs(result.lateMedianMs)} ms`, baseline: `first tenth ${formatMs(result.earlyMedianMs)} ms`, ratio: formatRatio(drift), target: `≤ ${targets.lateToEarlyLatencyRatioMax}×`, verdict: verdict(drift <= targets.lateToEarlyLatencyRatioMax && long.failed === 0) });
    rows.push({ measure: `Outbox rows after ${long.ok.toLocaleString('en-US')} sends (delivered rows kept ${outboxDeliveredRetentionMs / 1000} s, pruned every ${outboxPruneIntervalMs / 1000} s)`, value: `${result.outbox.rows.toLocaleString('en-US')} rows, ${result.outbox.pending} pending, ${result.outbox.pastRetention} delivered past the retention`, baseline: `${(long.ok + (result.payments?.ok ?? 0)).toLocaleString('en-US')} sends`, ratio: '—', target: 'none past the retention', verdict: verdict(result.outbox.pastRetention === 0) });
  } else {
    rows.push(na('Database bytes per transfer', `≤ ${targets.bytesPerTransferMax} B`), na('Send latency, last tenth over first tenth', `≤ ${targets.lateToEarlyLatencyRatioMax}×`), na('Outbox rows after the long run', 'none past the retention'));
  }
  if (result?.audit) rows.push({ measure: 'Ledger audit of the growth database', value: result.audit.ok ? 'balanced' : result.audit.problems.slice(0, 3).join('; '), baseline: '—', ratio: '—', target: 'balances', verdict: verdict(result.audit.ok) });
  return rows;
}

export function growthLines(result: GrowthResult): string[] {
  const lines: string[] = [];
  if (result.payments) lines.push(`- ${result.payments.name}: ${result.payments.ok} ok at ${formatRate(result.payments.ratePerSecond)}/s (${latencyText(result.payments.latency)})${result.payments.failed ? `, ${result.payments.failed} failed: ${result.payments.failureSamples.slice(0, 2).join(' / ')}` : ''}.`);
  if (result.long) lines.push(`- ${result.long.name}: ${result.long.ok} ok in ${result.long.seconds.toFixed(1)} s at ${formatRate(result.long.ratePerSecond)}/s (${latencyText(result.long.latency)})${result.long.failed ? `, ${result.long.failed} failed: ${result.long.failureSamples.slice(0, 2).join(' / ')}` : ''}.`);
  if (result.transfers && result.databaseBytesGrown !== null) lines.push(`- The database grew ${(result.databaseBytesGrown / 2 ** 20).toFixed(1)} MiB for ${result.transfers.toLocaleString('en-US')} transfers (pg_database_size: tables, indexes, free space autovacuum has not reused yet).`);
  lines.push(...result.notes.map((note) => `- ${note.replace(/\n/g, ' ')}`));
  return lines;
}

/** `npm run bench -- --growth`: the growth phase alone. */
export function renderGrowth(result: GrowthResult): { markdown: string; ok: boolean } {
  const rows = growthRows(result);
  const markdown = renderMarkdown({
    title: 'Growth: does Cashloop slow down or swell as it runs? (bench --growth)',
    context: [`${new Date().toISOString()}, load average ${os.loadavg()[0].toFixed(2)} at the end; ${result.long?.ok ?? 0} sends in the long run (the issue's 100,000 take 4-6 minutes on this shared machine; bench/config.ts)`],
    rows,
    sections: [{ heading: 'Runs', lines: growthLines(result) }, ...(result.profile ? [{ heading: 'Where one send goes', lines: describeProfile(result.profile) }] : [])],
  });
  return { markdown, ok: rows.every((row) => row.verdict === 'PASS') };
}
