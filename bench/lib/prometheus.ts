// Reads the engine's /metrics histograms (sum and count per label set), so a phase can report the
// mean time inside the command path and waiting for locks: the difference of two scrapes.

export interface HistogramTotals {
  sum: number;
  count: number;
}

/** name{labels} -> {sum, count} for every histogram series in a Prometheus text exposition. */
export function parseHistograms(text: string, name: string): Map<string, HistogramTotals> {
  const series = new Map<string, HistogramTotals>();
  const pattern = new RegExp(`^${name}_(sum|count)(\\{[^}]*\\})? ([0-9.eE+-]+|NaN)$`);
  for (const line of text.split('\n')) {
    const match = pattern.exec(line);
    if (!match) continue;
    const labels = match[2] ?? '{}';
    const entry = series.get(labels) ?? { sum: 0, count: 0 };
    if (match[1] === 'sum') entry.sum = Number(match[3]);
    else entry.count = Number(match[3]);
    series.set(labels, entry);
  }
  return series;
}

/** Totals of the series whose labels contain every `key="value"` given. */
export function totalFor(series: Map<string, HistogramTotals>, labels: Record<string, string>): HistogramTotals {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const total = { sum: 0, count: 0 };
  for (const [key, value] of series) {
    if (!wanted.every((part) => key.includes(part))) continue;
    total.sum += value.sum;
    total.count += value.count;
  }
  return total;
}

/** Mean milliseconds between two scrapes of one histogram, for the labels given. */
export function meanMsBetween(before: string, after: string, name: string, labels: Record<string, string>): { meanMs: number; count: number } {
  const start = totalFor(parseHistograms(before, name), labels);
  const end = totalFor(parseHistograms(after, name), labels);
  const count = end.count - start.count;
  return { meanMs: count > 0 ? ((end.sum - start.sum) / count) * 1000 : Number.NaN, count };
}
