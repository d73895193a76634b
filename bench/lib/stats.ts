/** Small statistics for benchmark figures: medians, percentiles and ratios, never a single sample. */

/** The p-th percentile (0..100) by linear interpolation between the closest ranks; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (Math.min(Math.max(p, 0), 100) / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (rank - lo);
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

export function sum(samples: readonly number[]): number {
  return samples.reduce((a, b) => a + b, 0);
}

/** Median, p99, min, max and the number of samples: what a table shows of a distribution. */
export interface Summary {
  n: number;
  p50: number;
  p99: number;
  min: number;
  max: number;
}

export function summarize(samples: readonly number[]): Summary {
  return {
    n: samples.length,
    p50: median(samples),
    p99: percentile(samples, 99),
    min: samples.length ? Math.min(...samples) : Number.NaN,
    max: samples.length ? Math.max(...samples) : Number.NaN,
  };
}

/** a / b, or NaN when b is 0 or either is not a number. */
export function ratio(a: number, b: number): number {
  return Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : Number.NaN;
}

/** `1.9×`, `310×`, `0.52×`; `n/a` when not a number. */
export function fmtRatio(r: number): string {
  if (!Number.isFinite(r)) return 'n/a';
  return `${r >= 100 ? Math.round(r) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`;
}

/** Milliseconds with a precision that suits their size: `0.42 ms`, `12.3 ms`, `1.02 s`. */
export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  const abs = Math.abs(ms);
  if (abs >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (abs >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (abs >= 100) return `${Math.round(ms)} ms`;
  if (abs >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

/** Bytes as B, KB, MB (powers of 1024). */
export function fmtBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'n/a';
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(2)} MB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${Math.round(bytes)} B`;
}

/** A number with at most `digits` decimals and no trailing zeros. */
export function fmtNum(n: number, digits = 1): string {
  if (!Number.isFinite(n)) return 'n/a';
  return String(Number(n.toFixed(digits)));
}

/** A deterministic random source (mulberry32), so scripted fault patterns repeat from run to run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A share as a whole percentage: `62 %`. */
export function fmtPct(share: number): string {
  return Number.isFinite(share) ? `${Math.round(share * 100)} %` : 'n/a';
}

/**
 * Calls per second up to the result that completes `share` of `calls` (0..1), from the first start request:
 * `endsMs` are the calls' end times from that start. A throughput that leaves out the last calls' tail (in a
 * load of calls started at once, the last few results are set by which task waited longest in the server's
 * queues, and swing from run to run; see BENCHMARKS.md, 3). NaN when too few calls ended.
 */
export function callsPerSecondTo(endsMs: readonly number[], calls: number, share: number): number {
  const k = Math.max(1, Math.ceil(share * calls));
  const at = [...endsMs].sort((a, b) => a - b)[k - 1];
  return at === undefined || at <= 0 ? Number.NaN : (k * 1000) / at;
}

/** The median of `samples` with their lowest and highest: what a cell of several runs shows. */
export interface Spread {
  n: number;
  median: number;
  min: number;
  max: number;
}

export function spread(samples: readonly number[]): Spread {
  const finite = samples.filter((v) => Number.isFinite(v));
  return {
    n: finite.length,
    median: median(finite),
    min: finite.length ? Math.min(...finite) : Number.NaN,
    max: finite.length ? Math.max(...finite) : Number.NaN,
  };
}
