/**
 * The cells of the concurrency benchmark's tables: medians and ranges of a mode's loads, and ours-over-floor
 * ratios taken round by round, marked against the goals of CPU per call.
 */
import { fmtNum, fmtRatio, median, ratio, spread, sum } from '../lib/stats.js';
import type { Spread } from '../lib/stats.js';
import type { LoadFigures } from './load-run.js';

export type Runs = Map<string, LoadFigures[]>;

/** The medians a table shows of one mode's loads (and the spread of its throughputs). */
export interface Medians {
  runs: number;
  callsPerSecond: Spread;
  callsPerSecondTo90: Spread;
  workerCpuMs: number;
  serverCpuMs: number;
  p50: number;
  p99: number;
  events: number;
  providerRequests: number;
  serverRequests: number;
  eager: number;
  problems: string;
}

export function med(runs: readonly LoadFigures[], pick: (f: LoadFigures) => number | undefined): number {
  return median(runs.map(pick).filter((v): v is number => v !== undefined && Number.isFinite(v)));
}

export function perCallMs(seconds: number | undefined, calls: number): number | undefined {
  return seconds === undefined ? undefined : (seconds * 1000) / calls;
}

/** The server's requests per call of one load, every operation summed (NaN when they could not be read). */
export function serverRequests(f: LoadFigures): number {
  return f.serverRequestsPerCall ? sum(Object.values(f.serverRequestsPerCall)) : Number.NaN;
}

export function medians(runs: readonly LoadFigures[]): Medians {
  return {
    runs: runs.length,
    callsPerSecond: spread(runs.map((f) => f.callsPerSecond)),
    callsPerSecondTo90: spread(runs.map((f) => f.callsPerSecondTo90)),
    workerCpuMs: med(runs, (f) => perCallMs(f.cpuSeconds.worker, f.calls)),
    serverCpuMs: med(runs, (f) => perCallMs(f.cpuSeconds.devServer, f.calls)),
    p50: med(runs, (f) => f.latencyMs.p50),
    p99: med(runs, (f) => f.latencyMs.p99),
    events: med(runs, (f) => f.eventsPerCall),
    providerRequests: med(runs, (f) => f.providerRequestsPerCall),
    serverRequests: med(runs, serverRequests),
    eager: med(runs, (f) => f.eagerlyStarted / f.calls),
    problems: runs
      .map((f) => `${f.calls - f.succeeded}/${f.timeouts.workflowTasks}/${f.timeouts.attempts}`)
      .join(' '),
  };
}

/** `27.8 (19.4–43.0)`: the median and the range of several runs; the median alone for one run. */
export function fmtSpread(s: Spread, fmt: (n: number) => string = (n) => fmtNum(n)): string {
  if (s.n <= 1) return fmt(s.median);
  return `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;
}

/**
 * Ours over the floor (or one setting over another) round by round: the loads of one round ran in the same
 * minutes, so each round gives one ratio, and the cell is their median and range. Rounds where either side has
 * no figure are left out.
 */
export function pairedRatios(
  ours: readonly LoadFigures[],
  base: readonly LoadFigures[],
  pick: (f: LoadFigures) => number | undefined,
): Spread {
  const n = Math.min(ours.length, base.length);
  return spread(
    Array.from({ length: n }, (_, i) => {
      const a = pick(ours[i] as LoadFigures);
      const b = pick(base[i] as LoadFigures);
      return a === undefined || b === undefined ? Number.NaN : ratio(a, b);
    }),
  );
}

/** A ratio's median beside its goal, with the rounds' range: `1.04× ✓ (0.98–1.10×)`. */
export function against(r: Spread, goal: number, atLeast = false): string {
  if (!Number.isFinite(r.median)) return 'n/a';
  const met = (atLeast ? r.median >= goal : r.median <= goal) ? '✓' : '✗';
  return r.n <= 1 ? `${fmtRatio(r.median)} ${met}` : `${fmtRatio(r.median)} ${met} (${rangeOf(r)})`;
}

export function rangeOf(r: Spread): string {
  return `${fmtRatio(r.min).replace('×', '')}–${fmtRatio(r.max)}`;
}

export function fmtRatioSpread(r: Spread): string {
  if (!Number.isFinite(r.median)) return 'n/a';
  return r.n <= 1 ? fmtRatio(r.median) : `${fmtRatio(r.median)} (${rangeOf(r)})`;
}

export function pct(rate: number): string {
  return `${Math.round(rate * 100)} %`;
}

export const PICK = {
  to90: (f: LoadFigures) => f.callsPerSecondTo90,
  toLast: (f: LoadFigures) => f.callsPerSecond,
  workerCpu: (f: LoadFigures) => perCallMs(f.cpuSeconds.worker, f.calls),
  serverCpu: (f: LoadFigures) => perCallMs(f.cpuSeconds.devServer, f.calls),
  p50: (f: LoadFigures) => f.latencyMs.p50,
  p99: (f: LoadFigures) => f.latencyMs.p99,
  serverRequests,
};
