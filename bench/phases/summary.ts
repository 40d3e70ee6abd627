// Turns a run's figures into the report: the table of targets, then the details of each phase.
import os from 'node:os';
import { targets } from '../config.ts';
import type { HttpCeilingResult } from '../baselines/http-ceiling.ts';
import type { PgbenchResult } from '../baselines/pgbench.ts';
import type { PhaseResult } from '../lib/load.ts';
import { formatMs, formatRate, formatRatio, latencyText, rateText, verdict, type Report, type Row } from '../report.ts';
import type { RunState } from '../run.ts';
import { describeProfile } from './round-trips.ts';

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
function ceilingRow(ceiling: HttpCeilingResult | null, pgbench: PgbenchResult | null, na: (measure: string, target: string, why: string) => Row): Row {
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

export function buildReport(state: RunState): Report {
  const { plan, pgbench, httpCeiling, pglite, server, embedded } = state;
  const rows: Row[] = [];
  const sections: Report['sections'] = [];
  const na = (measure: string, target: string, why: string): Row => ({ measure, value: why, baseline: '—', ratio: '—', target, verdict: 'n/a' });

  rows.push(pgbench
    ? { measure: `pgbench tpcb-like (scale ${pgbench.scale}, ${pgbench.clients} clients, ${pgbench.threads} threads, ${pgbench.seconds} s)`, value: `${formatRate(pgbench.tps)} tps (avg ${formatMs(pgbench.latencyAverageMs)} ms)`, baseline: '—', ratio: '—', target: 'baseline', verdict: 'report' }
    : na('pgbench tpcb-like', 'baseline', 'did not run'));
  rows.push(ceilingRow(httpCeiling, pgbench, na));
  rows.push(pglite
    ? { measure: `PGlite single-row UPDATE transactions (${pglite.workers} workers = engine pool)`, value: `${rateText(pglite.updatesPerSecond)} (${latencyText(pglite.latency)})${pglite.errors > 0 ? `, ${pglite.errors} errors` : ''}`, baseline: '—', ratio: '—', target: 'baseline', verdict: 'report' }
    : na('PGlite single-row UPDATE', 'baseline', 'did not run'));

  const uniform = server?.uniform ?? null;
  if (uniform && pgbench) {
    const ratio = uniform.ratePerSecond / pgbench.tps;
    rows.push({ measure: `P2P sends over HTTP, ${server!.wallets} wallets, ${plan.uniformConcurrency} callers (closed loop)`, value: `${rateText(uniform.ratePerSecond)} (${latencyText(uniform.latency)})${failedSuffix(uniform)}`, baseline: `pgbench ${formatRate(pgbench.tps)} tps`, ratio: formatRatio(ratio), target: `≥ ${targets.uniformToPgbenchRatioMin}`, verdict: verdict(ratio >= targets.uniformToPgbenchRatioMin && uniform.failed === 0) });
  } else rows.push(na('P2P sends over HTTP, uniform', `≥ ${targets.uniformToPgbenchRatioMin} × pgbench`, server?.ledgerRoutes === false ? 'ledger routes missing' : 'did not run'));

  const open = server?.openLoop ?? null;
  if (open && uniform) {
    const halfPgbench = pgbench ? targets.openLoopLoadFraction * targets.uniformToPgbenchRatioMin * pgbench.tps : Number.NaN;
    rows.push({ measure: `P2P sends, open loop at 0.8 × the measured max send rate = ${formatRate(open.scheduledRatePerSecond)}/s (0.8 × 0.5 × pgbench = ${formatRate(halfPgbench)}/s)`, value: `p99 ${formatMs(open.latency.p99Ms)} ms (p50 ${formatMs(open.latency.p50Ms)} ms), ${rateText(open.ratePerSecond)} done${failedSuffix(open)}`, baseline: '—', ratio: '—', target: `p99 < ${targets.openLoopP99MsMax} ms`, verdict: verdict(open.latency.p99Ms < targets.openLoopP99MsMax && open.failed === 0) });
  } else rows.push(na('P2P sends, open loop at 0.8 × max', `p99 < ${targets.openLoopP99MsMax} ms`, 'did not run'));

  const hot = server?.hot ?? null;
  if (hot && uniform) {
    const ratio = hot.ratePerSecond / uniform.ratePerSecond;
    rows.push({ measure: `P2P sends, all from one hot wallet, ${plan.hotConcurrency} callers`, value: `${rateText(hot.ratePerSecond)} (${latencyText(hot.latency)})${failedSuffix(hot)}`, baseline: `uniform ${rateText(uniform.ratePerSecond)}`, ratio: formatRatio(ratio), target: `≥ ${targets.hotToUniformRatioMin}`, verdict: verdict(ratio >= targets.hotToUniformRatioMin && hot.failed === 0) });
  } else rows.push(na('P2P sends, one hot wallet', `≥ ${targets.hotToUniformRatioMin} × uniform`, 'did not run'));

  const history = server?.history ?? null;
  if (history) {
    for (const comparison of history.comparisons) {
      const ratio = comparison.large.latency.p50Ms / comparison.small.latency.p50Ms;
      const ratio99 = comparison.large.latency.p99Ms / comparison.small.latency.p99Ms;
      rows.push({
        measure: `${comparison.call}: ${history.large.toLocaleString('en-US')} vs ${history.small.toLocaleString('en-US')} transfers`,
        value: latencyText(comparison.large.latency),
        baseline: latencyText(comparison.small.latency),
        ratio: `${formatRatio(ratio)} (p99 ${formatRatio(ratio99)})`,
        target: comparison.informational ? 'information' : `≤ ${targets.historyLargeToSmallRatioMax}× (p50)`,
        verdict: comparison.informational ? 'report' : verdict(ratio <= targets.historyLargeToSmallRatioMax && comparison.small.failed === 0 && comparison.large.failed === 0),
      });
    }
  } else rows.push(na('History and history_sync at 1,000 and 1,000,000 transfers', `≤ ${targets.historyLargeToSmallRatioMax}×`, 'did not run'));

  const embeddedSends = embedded?.sends ?? null;
  if (embeddedSends && pglite) {
    rows.push({ measure: `P2P sends over HTTP on embedded PGlite, ${plan.pgliteWallets} wallets, ${plan.pgliteConcurrency} callers`, value: `${rateText(embeddedSends.ratePerSecond)} (${latencyText(embeddedSends.latency)})${failedSuffix(embeddedSends)}`, baseline: `PGlite ${rateText(pglite.updatesPerSecond)} updates`, ratio: formatRatio(embeddedSends.ratePerSecond / pglite.updatesPerSecond), target: 'ratio reported', verdict: embeddedSends.failed === 0 ? 'report' : 'MISS' });
  } else rows.push(na('P2P sends on embedded PGlite', 'ratio to PGlite updates', embedded?.ledgerRoutes === false ? 'ledger routes missing' : 'did not run'));

  rows.push(server?.audit
    ? { measure: 'Ledger audit of the Postgres bench database', value: server.audit.ok ? 'balanced' : server.audit.problems.slice(0, 3).join('; '), baseline: '—', ratio: '—', target: 'balances', verdict: verdict(server.audit.ok) }
    : na('Ledger audit (Postgres)', 'balances', 'did not run'));
  rows.push(embedded?.audit
    ? { measure: 'Ledger audit of the PGlite bench database', value: embedded.audit.ok ? 'balanced' : embedded.audit.problems.slice(0, 3).join('; '), baseline: '—', ratio: '—', target: 'balances', verdict: verdict(embedded.audit.ok) }
    : na('Ledger audit (PGlite)', 'balances', 'did not run'));

  const phases: string[] = [];
  for (const result of [httpCeiling?.run, server?.uniform, server?.openLoop, server?.hot, embedded?.sends]) if (result) phases.push(phaseLine(result));
  for (const result of [server?.uniform, server?.hot]) {
    if (result && 'times' in result) {
      phases.push(`- ${result.name}, engine metrics per send: HTTP ${formatMs(result.times.httpMeanMs)} ms, command path ${formatMs(result.times.commandMeanMs)} ms, of which lock wait ${formatMs(result.times.lockWaitMeanMs)} ms.`);
    }
  }
  if (open) phases.push(`- Open loop: ${formatRate(open.scheduledRatePerSecond)}/s scheduled; the generator started at most ${formatMs(open.lateStartsMax)} ms late.`);
  if (history) {
    phases.push(`- History seed: ${history.small.toLocaleString('en-US')} + ${history.large.toLocaleString('en-US')} transfers (with views and movements) in ${history.seedSeconds.toFixed(1)} s.`);
    for (const comparison of history.comparisons) {
      phases.push(`- ${comparison.call}: 1k ${comparison.small.ok} requests ${latencyText(comparison.small.latency)}; large ${comparison.large.ok} requests ${latencyText(comparison.large.latency)}${failuresText(comparison.large)}${failuresText(comparison.small)}`);
    }
  }
  if (pgbench) phases.push(`- pgbench command: \`${pgbench.command}\` (own database, scale ${pgbench.scale}, ${pgbench.transactions} transactions).`);
  if (pglite?.errors) phases.push(`- PGlite baseline errors: ${pglite.errors} (${pglite.errorSample}).`);
  if (phases.length > 0) sections.push({ heading: 'Phases', lines: phases });
  if (server?.profile) sections.push({ heading: 'Where one send goes', lines: describeProfile(server.profile) });

  const notes = [...(httpCeiling?.notes ?? []), ...(server?.notes ?? []), ...(embedded?.notes ?? []), ...state.problems, ...state.unhandled.map((text) => `unhandled rejection in the bench process: ${text}`)];
  if (server && server.missing.length > 0) notes.unshift(`Missing ledger routes: ${server.missing.join(', ')}.`);
  if (notes.length > 0) sections.push({ heading: 'Problems and notes', lines: notes.map((note) => `- ${note.replace(/\n/g, ' ')}`) });

  return {
    title: `Cashloop benchmark (${plan.quick ? 'quick' : 'full'} run)`,
    context: [
      `${state.startedAt.toISOString()}, ${Math.round(state.seconds)} s, Node ${process.version}, ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
      'API: one child process (`node --import tsx api/main.ts`, LOG_LEVEL=error); the load generator, Postgres and Redis share the same cores.',
      `Load average (1 min) at start ${state.loadAverageStart.toFixed(2)}, at end ${os.loadavg()[0].toFixed(2)}: other work on this machine skews every figure, baselines included.`,
      server?.operator ? `Cash issued and audited through: ${server.operator}.` : 'Cash: not issued.',
      'Latency percentiles are exact (nearest rank over every sample); open-loop latency counts from each request\'s scheduled start.',
    ],
    rows,
    sections,
  };
}
