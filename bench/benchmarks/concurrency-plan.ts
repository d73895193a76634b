import type { LoadMode } from './load-run.js';

/** The modes of every round, ours first; the order rotates from round to round. */
export const MODES: readonly LoadMode[] = ['modelCallWorkflow', 'callModel', 'floor'];

/** The eager settings measured beside "off": eager activities alone, and with eager workflow start. */
export const EAGER_SETTINGS = [
  { name: 'eager activities', eagerActivities: true, eagerStart: false },
  { name: 'eager activities + eager start', eagerActivities: true, eagerStart: true },
] as const;

export interface ConcurrencyPlan {
  calls: number;
  latencyMs: number;
  waitMs: number;
  failureRates: number[];
  /** The failure rate the eager settings are measured at. */
  eagerRate: number;
  /** Time for the whole benchmark; rounds of the main grid are repeated while it lasts. */
  budgetMs: number;
  maxRounds: number;
}

export const FULL: ConcurrencyPlan = {
  calls: 150,
  latencyMs: 0,
  waitMs: 200,
  failureRates: [0, 0.2, 0.5],
  eagerRate: 0,
  budgetMs: 6 * 60_000,
  maxRounds: 3,
};

export const QUICK: ConcurrencyPlan = { ...FULL, calls: 6, budgetMs: 0, maxRounds: 1 };

/** One load's key: mode, failure rate and eager setting. */
export function loadKey(mode: LoadMode, rate: number, eager: string): string {
  return `${eager} / ${Math.round(rate * 100)} % / ${mode}`;
}
