// Exact percentiles from sorted samples (nearest rank), and the figures every phase reports.

export interface LatencySummary {
  count: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
}

/** Nearest-rank percentile of ascending samples: the smallest sample with at least q of them at or below it. */
export function percentile(sortedAscending: readonly number[], q: number): number {
  if (sortedAscending.length === 0) return Number.NaN;
  const rank = Math.ceil(q * sortedAscending.length);
  return sortedAscending[Math.min(sortedAscending.length, Math.max(1, rank)) - 1];
}

/** The middle sample (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function summarize(samplesMs: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(samplesMs).sort();
  const list = Array.from(sorted);
  const total = list.reduce((sum, value) => sum + value, 0);
  return {
    count: list.length,
    p50Ms: percentile(list, 0.5),
    p90Ms: percentile(list, 0.9),
    p99Ms: percentile(list, 0.99),
    maxMs: list.length > 0 ? list[list.length - 1] : Number.NaN,
    meanMs: list.length > 0 ? total / list.length : Number.NaN,
  };
}

export function formatMs(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

export function formatRate(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return Math.round(value).toLocaleString('en-US');
}

export function formatRatio(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value.toFixed(2);
}
