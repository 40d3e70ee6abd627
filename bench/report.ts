// The report: one table of figures, ratios and PASS/MISS against each target, then the details
// of every phase, as Markdown (printed, and written to bench/results/latest.md).
import { formatMs, formatRate, formatRatio, type LatencySummary } from './lib/stats.ts';

export type Verdict = 'PASS' | 'MISS' | 'n/a' | 'report';

export interface Row {
  measure: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
  verdict: Verdict;
}

export interface Report {
  title: string;
  context: string[];
  rows: Row[];
  sections: { heading: string; lines: string[] }[];
}

export function verdict(pass: boolean | null): Verdict {
  if (pass === null) return 'n/a';
  return pass ? 'PASS' : 'MISS';
}

export function latencyText(latency: LatencySummary): string {
  return `p50 ${formatMs(latency.p50Ms)} ms, p99 ${formatMs(latency.p99Ms)} ms`;
}

export function rateText(perSecond: number, unit = '/s'): string {
  return `${formatRate(perSecond)}${unit}`;
}

export { formatMs, formatRate, formatRatio };

function table(rows: readonly Row[]): string[] {
  const header = ['Measure', 'Value', 'Baseline', 'Ratio', 'Target', 'Result'];
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) lines.push(`| ${[row.measure, row.value, row.baseline, row.ratio, row.target, `**${row.verdict}**`].join(' | ')} |`);
  return lines;
}

export function renderMarkdown(report: Report): string {
  const lines = [`# ${report.title}`, '', ...report.context.map((line) => `- ${line}`), '', ...table(report.rows), ''];
  for (const section of report.sections) {
    lines.push(`## ${section.heading}`, '', ...section.lines, '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
