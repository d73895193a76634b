import type { LoadMode } from './load-run.js';

/**
 * The modes of every round, ours first; the order rotates from round to round. `contractFloor` is the floor plus
 * the events the contract itself asks of a call (its marker and search attributes): ours is held to `floor`, and
 * set beside `contractFloor` to say how much of the rest is the contract's.
 */
export const MODES: readonly LoadMode[] = ['modelCallWorkflow', 'callModel', 'contractFloor', 'floor'];

/** An eager setting measured beside "off": the worker's request for eager activities, the client's for eager start. */
export interface EagerSetting {
  name: string;
  eagerActivities: boolean;
  eagerStart: boolean;
}

/** The eager settings measured beside "off": eager activities alone, and with eager workflow start. */
export const EAGER_SETTINGS: readonly EagerSetting[] = [
  { name: 'eager activities', eagerActivities: true, eagerStart: false },
  { name: 'eager activities + eager start', eagerActivities: true, eagerStart: true },
];

export interface ConcurrencyPlan {
  calls: number;
  latencyMs: number;
  waitMs: number;
  failureRates: number[];
  /** The eager settings measured beside "off", and the failure rate they are measured at. */
  eager: readonly EagerSetting[];
  eagerRate: number;
  /**
   * Time for the whole benchmark: a round runs every load once (the main grid and the eager settings, the modes
   * side by side), and one more round starts only if it fits (at the rounds' mean time so far), from `minRounds`
   * up to `maxRounds`.
   */
  budgetMs: number;
  minRounds: number;
  maxRounds: number;
}

export const FULL: ConcurrencyPlan = {
  calls: 150,
  latencyMs: 0,
  waitMs: 200,
  failureRates: [0, 0.2, 0.5],
  eager: EAGER_SETTINGS,
  eagerRate: 0,
  budgetMs: 6 * 60_000,
  minRounds: 2,
  maxRounds: 3,
};

/** Seconds on an idle machine: six loads (every mode at 20 %, off and with both eager requests), six calls each. */
export const QUICK: ConcurrencyPlan = {
  ...FULL,
  calls: 6,
  failureRates: [0.2],
  eager: EAGER_SETTINGS.slice(1),
  eagerRate: 0.2,
  budgetMs: 0,
  minRounds: 1,
  maxRounds: 1,
};

/** One load's key: mode, failure rate and eager setting. */
export function loadKey(mode: LoadMode, rate: number, eager: string): string {
  return `${eager} / ${Math.round(rate * 100)} % / ${mode}`;
}
