// Turns a run's figures into the report: the table of targets, then the details of each phase.
import os from 'node:os';
import { targets } from '../config.ts';
import type { HttpCeilingResult } from '../baselines/http-ceiling.ts';
import type { PgbenchResult } from '../baselines/pgbench.ts';
import type { PhaseResult } from '../lib/load.ts';
import { formatMs, formatRate, formatRatio, latencyText, rateText, renderMarkdown, verdict, type Report, type Row } from '../report.ts';
import type { RunState } from '../run.ts';
import { cpuPerOperationMs, cpuPerOperationText } from '../lib/process-cpu.ts';
import { posReportTargets } from './pos-report.ts';
import { describeProfile } from './round-trips.ts';
import { growthLines, growthRows } from './growth.ts';
import type { HistoryOnlyResult, HistoryResult } from './server.ts';

function failuresText(result: PhaseResult): string {
  if (result.failed === 0) return '';
  const statuses = Object.entries(result.failureStatuses).map(([status, count]) => `${status}×${count}`).join(', ');
  return ` — ${result.failed} failed (${statuses}): ${result.failureSamples.slice(0, 2).join(' / ')}`;
}

/** ", N failed" when requests failed: a failed request counts against its target. */
function failedSuffix(result: PhaseResult): string {
  return result.failed > 0 ? `, ${result.failed} failed` : '';
}

function phaseLine(result: PhaseResult): string {
  return `- ${result.name}: ${result.ok} ok in ${result.seconds.toFixed(1)} s = ${rateText(result.ratePerSecond)}; p50 ${formatMs(result.latency.p50Ms)} ms, p90 ${formatMs(result.latency.p90Ms)} ms, p99 ${formatMs(result.latency.p99Ms)} ms, max ${formatMs(result.latency.maxMs)} ms${failuresText(result)}`;
}

const ceilingMeasure = 'Reference: express 5 + postgres.js, one pgbench tpcb-like transaction per HTTP request (the stack\'s ceiling for one request = one transaction)';

/** The HTTP ceiling is reported beside pgbench, never judged: it bounds what one send = one transaction can reach. */
function ceilingRow(ceiling: HttpCeilingResult | null, pgbench: PgbenchResult | null, na: NotAvailable): Row {
  if (!ceiling) return na(ceilingMeasure, 'reference', 'did not run');
  const { run } = ceiling;
  return {
    measure: `${ceilingMeasure}, ${ceiling.callers} callers (closed loop)`,
    value: `${rateText(run.ratePerSecond)} (${latencyText(run.latency)})${failedSuffix(run)}`,
    baseline: pgbench ? `pgbench ${formatRate(pgbench.tps)} tps` : '—',
    ratio: pgbench ? formatRatio(run.ratePerSecond / pgbench.tps) : '—',
    target: 'reference',
    verdict: 'report',
  };
}

type NotAvailable = (measure: string, target: string, why: string) => Row;
const na: NotAvailable = (measure, target, why) => ({ measure, value: why, baseline: '—', ratio: '—', target, verdict: 'n/a' });

function baselineRows(state: RunState): Row[] {
  const { pgbench, httpCeiling, pglite } = state;
  const rows: Row[] = [];
  rows.push(pgbench
    ? { measure: `pgbench tpcb-like (scale ${pgbench.scale}, ${pgbench.clients} clients, ${pgbench.threads} threads, ${pgbench.seconds} s)`, value: `${formatRate(pgbench.tps)} tps (avg ${formatMs(pgbench.latencyAverageMs)} ms)`, baseline: '—', ratio: '—', target: 'baseline', verdict: 'report' }
    : na('pgbench tpcb-like', 'baseline', 'did not run'));
  rows.push(ceilingRow(httpCeiling, pgbench, na));
  if (httpCeiling) {
    const perRequest = cpuPerOperationMs(httpCeiling.cpu, httpCeiling.run.ok + httpCeiling.run.failed);
    rows.push({ measure: 'Reference: CPU per request summed over every process (from /proc; Postgres = its processes serving the database)', value: cpuPerOperationText(perRequest), baseline: '—', ratio: '—', target: 'reference', verdict: 'report' });
  }
  rows.push(pglite
    ? { measure: `PGlite single-row UPDATE transactions (${pglite.workers} workers = engine pool)`, value: `${rateText(pglite.updatesPerSecond)} (${latencyText(pglite.latency)})${pglite.errors > 0 ? `, ${pglite.errors} errors` : ''}`, baseline: '—', ratio: '—', target: 'baseline', verdict: 'report' }
    : na('PGlite single-row UPDATE', 'baseline', 'did not run'));
  return rows;
}

function uniformRows(state: RunState): Row[] {
  const { plan, pgbench, httpCeiling, server } = state;
  const uniform = server?.uniform ?? null;
  const target = `≥ ${targets.uniformToReferenceRatioMin} × reference`;
  if (!uniform || !httpCeiling) return [na('P2P sends over HTTP, uniform', target, server?.ledgerRoutes === false ? 'ledger routes missing' : 'did not run')];
  const reference = httpCeiling.run.ratePerSecond;
  const ratio = uniform.ratePerSecond / reference;
  const ofPgbench = pgbench ? ` (${formatRatio(uniform.ratePerSecond / pgbench.tps)} of pgbench)` : '';
  return [{
    measure: `P2P sends over HTTP, ${server!.wallets} wallets, ${plan.uniformConcurrency} callers (closed loop)`,
    value: `${rateText(uniform.ratePerSecond)} (${latencyText(uniform.latency)})${failedSuffix(uniform)}`,
    baseline: `reference ${rateText(reference)}`,
    ratio: `${formatRatio(ratio)}${ofPgbench}`,
    target,
    verdict: verdict(ratio >= targets.uniformToReferenceRatioMin && uniform.failed === 0),
  }];
}

/** CPU per send over the uniform closed loop, every process summed, beside the reference's per request and the statements per send. */
function cpuRow(state: RunState): Row {
  const { httpCeiling, server } = state;
  const target = `≤ ${targets.cpuPerSendMsMax} ms`;
  const measure = 'CPU per send summed over every process (API, Postgres, Redis, load generator), uniform closed loop; Postgres statements per send beside it';
  if (!server?.uniform || !server.uniformCpu) return na(measure, target, 'did not run');
  const perSend = cpuPerOperationMs(server.uniformCpu, server.uniform.ok + server.uniform.failed);
  const statements = server.profile ? `; ${server.profile.statementsPerSend.toFixed(1)} Postgres statements in ${server.profile.postgresRoundTripsPerSend.toFixed(1)} round trips per send` : '; statements per send not measured';
  const reference = httpCeiling ? cpuPerOperationMs(httpCeiling.cpu, httpCeiling.run.ok + httpCeiling.run.failed) : null;
  return {
    measure,
    value: `${cpuPerOperationText(perSend)}${statements}`,
    baseline: reference ? `reference ${reference.total.toFixed(2)} ms per request` : '—',
    ratio: reference ? formatRatio(perSend.total / reference.total) : '—',
    target,
    verdict: verdict(perSend.total <= targets.cpuPerSendMsMax),
  };
}

function contentionRows(state: RunState): Row[] {
  const { plan, server } = state;
  const rows: Row[] = [];
  const uniform = server?.uniform ?? null;
  const open = server?.openLoop ?? null;
  if (open && uniform) {
    rows.push({ measure: `P2P sends, open loop at ${targets.openLoopLoadFraction} × the measured max send rate = ${formatRate(open.scheduledRatePerSecond)}/s`, value: `p99 ${formatMs(open.latency.p99Ms)} ms (p50 ${formatMs(open.latency.p50Ms)} ms), ${rateText(open.ratePerSecond)} done${failedSuffix(open)}`, baseline: '—', ratio: '—', target: `p99 < ${targets.openLoopP99MsMax} ms`, verdict: verdict(open.latency.p99Ms < targets.openLoopP99MsMax && open.failed === 0) });
  } else rows.push(na('P2P sends, open loop at 0.8 × max', `p99 < ${targets.openLoopP99MsMax} ms`, 'did not run'));
  const shared = server?.sharedWallets ?? null;
  if (shared && uniform) {
    const ratio = shared.ratePerSecond / uniform.ratePerSecond;
    rows.push({ measure: `P2P sends between ${plan.sharedWallets} wallets chosen at random, ${plan.sharedConcurrency} callers`, value: `${rateText(shared.ratePerSecond)} (${latencyText(shared.latency)})${failedSuffix(shared)}`, baseline: `uniform ${rateText(uniform.ratePerSecond)}`, ratio: formatRatio(ratio), target: `≥ ${targets.sharedWalletsToUniformRatioMin}`, verdict: verdict(ratio >= targets.sharedWalletsToUniformRatioMin && shared.failed === 0) });
  } else rows.push(na(`P2P sends between ${plan.sharedWallets} wallets at random`, `≥ ${targets.sharedWalletsToUniformRatioMin} × uniform`, 'did not run'));
  const hot = server?.hot ?? null;
  if (hot && uniform) {
    const ratio = hot.ratePerSecond / uniform.ratePerSecond;
    rows.push({ measure: `P2P sends, all from one hot wallet, ${plan.hotConcurrency} callers`, value: `${rateText(hot.ratePerSecond)} (${latencyText(hot.latency)})${failedSuffix(hot)}`, baseline: `uniform ${rateText(uniform.ratePerSecond)}`, ratio: formatRatio(ratio), target: `≥ ${targets.hotToUniformRatioMin}`, verdict: verdict(ratio >= targets.hotToUniformRatioMin && hot.failed === 0) });
  } else rows.push(na('P2P sends, one hot wallet', `≥ ${targets.hotToUniformRatioMin} × uniform`, 'did not run'));
  return rows;
}

function historyRows(state: RunState): Row[] {
  return historyComparisonRows(state.server?.history ?? null);
}

function historyComparisonRows(history: HistoryResult | null): Row[] {
  if (!history) return [na('History and history_sync at 1,000 and 1,000,000 transfers', `≤ ${targets.historyLargeToSmallRatioMax}×`, 'did not run')];
  return history.comparisons.map((comparison) => {
    const ratio = comparison.large.latency.p50Ms / comparison.small.latency.p50Ms;
    const ratio99 = comparison.large.latency.p99Ms / comparison.small.latency.p99Ms;
    const ratioMax = comparison.countRemain ? targets.countRemainLargeToSmallRatioMax : targets.historyLargeToSmallRatioMax;
    return {
      measure: `${comparison.call}: ${history.large.toLocaleString('en-US')} vs ${history.small.toLocaleString('en-US')} transfers`,
      value: latencyText(comparison.large.latency),
      baseline: latencyText(comparison.small.latency),
      ratio: `${formatRatio(ratio)} (p99 ${formatRatio(ratio99)})`,
      target: `≤ ${ratioMax}× (p50)`,
      verdict: verdict(ratio <= ratioMax && comparison.small.failed === 0 && comparison.large.failed === 0),
    };
  });
}

function embeddedRow(state: RunState): Row {
  const { plan, pglite, embedded } = state;
  const sends = embedded?.sends ?? null;
  const target = `≥ ${targets.pgliteSendsToUpdatesRatioMin}`;
  if (!sends || !pglite) return na('P2P sends on embedded PGlite', `${target} × PGlite updates`, embedded?.ledgerRoutes === false ? 'ledger routes missing' : 'did not run');
  const ratio = sends.ratePerSecond / pglite.updatesPerSecond;
  return { measure: `P2P sends over HTTP on embedded PGlite, ${plan.pgliteWallets} wallets, ${plan.pgliteConcurrency} callers`, value: `${rateText(sends.ratePerSecond)} (${latencyText(sends.latency)})${failedSuffix(sends)}`, baseline: `PGlite ${rateText(pglite.updatesPerSecond)} updates`, ratio: formatRatio(ratio), target, verdict: verdict(ratio >= targets.pgliteSendsToUpdatesRatioMin && sends.failed === 0) };
}

/** The receivable report's verdicts (bench/phases/pos-report.ts), JSON first: issue 24 names it. */
function posReportRows(state: RunState): Row[] {
  const result = state.posReport;
  const memoryTarget = `peak < ${posReportTargets.peakMbMax} MB`;
  const timeTarget = `≤ ${posReportTargets.toBareRatioMax}× bare query`;
  if (!result) return [na(`Receivable report, ${posReportTargets.rows.toLocaleString('en-US')} rows`, `${memoryTarget}, ${timeTarget}`, 'did not run')];
  const rows: Row[] = [];
  for (const [name, variant, ratio, memoryOk, timeOk] of [['JSON', result.json, result.jsonToBareRatio, result.jsonMemoryOk, result.jsonTimeOk], ['CSV', result.csv, result.csvToBareRatio, result.csvMemoryOk, result.csvTimeOk]] as const) {
    const measure = `Receivable report in ${name}, ${result.rows.toLocaleString('en-US')} rows`;
    rows.push({ measure: `${measure}: API resident memory`, value: `peak ${variant.rssPeakMb?.toFixed(0) ?? 'n/a'} MB`, baseline: `before ${variant.rssBeforeMb?.toFixed(0) ?? 'n/a'} MB`, ratio: '—', target: memoryTarget, verdict: verdict(memoryOk) });
    rows.push({ measure: `${measure}: time`, value: `${variant.seconds.toFixed(3)} s`, baseline: `bare query ${result.bare.seconds.toFixed(3)} s`, ratio: formatRatio(ratio), target: timeTarget, verdict: verdict(timeOk) });
  }
  return rows;
}

function auditRows(state: RunState): Row[] {
  const { server, embedded } = state;
  return [
    server?.audit
      ? { measure: 'Ledger audit of the Postgres bench database', value: server.audit.ok ? 'balanced' : server.audit.problems.slice(0, 3).join('; '), baseline: '—', ratio: '—', target: 'balances', verdict: verdict(server.audit.ok) }
      : na('Ledger audit (Postgres)', 'balances', 'did not run'),
    embedded?.audit
      ? { measure: 'Ledger audit of the PGlite bench database', value: embedded.audit.ok ? 'balanced' : embedded.audit.problems.slice(0, 3).join('; '), baseline: '—', ratio: '—', target: 'balances', verdict: verdict(embedded.audit.ok) }
      : na('Ledger audit (PGlite)', 'balances', 'did not run'),
  ];
}

export function buildReport(state: RunState): Report {
  const { plan, httpCeiling, server, embedded } = state;
  const rows: Row[] = [
    ...baselineRows(state), ...uniformRows(state), cpuRow(state), ...contentionRows(state), ...historyRows(state), embeddedRow(state), ...posReportRows(state), ...auditRows(state), ...growthRows(state.growth),
  ];
  const sections: Report['sections'] = [];
  const open = server?.openLoop ?? null;
  const history = server?.history ?? null;

  const phases: string[] = [];
  for (const result of [httpCeiling?.run, server?.uniform, server?.openLoop, server?.sharedWallets, server?.hot, embedded?.sends]) if (result) phases.push(phaseLine(result));
  for (const result of [server?.uniform, server?.hot]) {
    if (result && 'times' in result) {
      phases.push(`- ${result.name}, engine metrics per send: HTTP ${formatMs(result.times.httpMeanMs)} ms, command path ${formatMs(result.times.commandMeanMs)} ms, of which lock wait ${formatMs(result.times.lockWaitMeanMs)} ms.`);
    }
  }
  if (open) phases.push(`- Open loop: ${formatRate(open.scheduledRatePerSecond)}/s scheduled; the generator started at most ${formatMs(open.lateStartsMax)} ms late.`);
  if (history) {
    phases.push(`- History seed: ${history.small.toLocaleString('en-US')} + ${history.large.toLocaleString('en-US')} transfers (their parties' views as its columns, and movements) in ${history.seedSeconds.toFixed(1)} s.`);
    for (const comparison of history.comparisons) {
      phases.push(`- ${comparison.call}: 1k ${comparison.small.ok} requests ${latencyText(comparison.small.latency)}; large ${comparison.large.ok} requests ${latencyText(comparison.large.latency)}${failuresText(comparison.large)}${failuresText(comparison.small)}`);
    }
  }
  if (state.pgbench) phases.push(`- pgbench command: \`${state.pgbench.command}\` (own database, scale ${state.pgbench.scale}, ${state.pgbench.transactions} transactions).`);
  if (state.pglite?.errors) phases.push(`- PGlite baseline errors: ${state.pglite.errors} (${state.pglite.errorSample}).`);
  if (phases.length > 0) sections.push({ heading: 'Phases', lines: phases });
  if (server?.profile) sections.push({ heading: 'Where one send goes', lines: describeProfile(server.profile) });
  if (state.growth) sections.push({ heading: 'Growth', lines: [...growthLines(state.growth), ...(state.growth.profile ? describeProfile(state.growth.profile) : [])] });

  const notes = [...(httpCeiling?.notes ?? []), ...(server?.notes ?? []), ...(embedded?.notes ?? []), ...state.problems, ...state.unhandled.map((text) => `unhandled rejection in the bench process: ${text}`)];
  if (server && server.missing.length > 0) notes.unshift(`Missing ledger routes: ${server.missing.join(', ')}.`);
  if (notes.length > 0) sections.push({ heading: 'Problems and notes', lines: notes.map((note) => `- ${note.replace(/\n/g, ' ')}`) });

  return {
    title: `Cashloop benchmark (${plan.quick ? 'quick' : 'full'} run)`,
    context: [
      `${state.startedAt.toISOString()}, ${Math.round(state.seconds)} s, Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
      'API: one child process started as `npm start` starts it (`node --max-semi-space-size=8 --import tsx api/main.ts`, package.json), LOG_LEVEL=error; the load generator, Postgres and Redis share the same cores.',
      `Load average (1 min) at start ${state.loadAverageStart.toFixed(2)}, at end ${os.loadavg()[0].toFixed(2)}: other work on this machine skews every figure, baselines included.`,
      server?.operator ? `Cash issued and audited through: ${server.operator}.` : 'Cash: not issued.',
      'Latency percentiles are exact (nearest rank over every sample); open-loop latency counts from each request\'s scheduled start.',
    ],
    rows,
    sections,
  };
}

/** The history phase run alone (`npm run bench -- --history`): its rows of the table, each call's latencies, the audit. */
export function renderHistoryOnly(result: HistoryOnlyResult): { markdown: string; ok: boolean } {
  const rows = historyComparisonRows(result.history);
  if (result.audit) rows.push({ measure: 'Ledger audit of the bench database', value: result.audit.ok ? 'balanced' : result.audit.problems.slice(0, 3).join('; '), baseline: '—', ratio: '—', target: 'balances', verdict: verdict(result.audit.ok) });
  const lines = result.history ? [
    `- History seed: ${result.history.small.toLocaleString('en-US')} + ${result.history.large.toLocaleString('en-US')} transfers (their parties' views as its columns, and movements) in ${result.history.seedSeconds.toFixed(1)} s.`,
    ...result.history.comparisons.map((comparison) => `- ${comparison.call}: small ${comparison.small.ok} requests ${latencyText(comparison.small.latency)}; large ${comparison.large.ok} requests ${latencyText(comparison.large.latency)}${failuresText(comparison.large)}${failuresText(comparison.small)}`),
  ] : [];
  const markdown = renderMarkdown({
    title: 'History at two sizes (bench --history)',
    context: [`${new Date().toISOString()}, load average ${os.loadavg()[0].toFixed(2)} at the end`],
    rows,
    sections: [{ heading: 'Calls', lines: [...lines, ...result.notes.map((note) => `- ${note}`)] }],
  });
  return { markdown, ok: rows.every((row) => row.verdict === 'PASS') };
}
