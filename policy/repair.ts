import type { Action } from './classes.js';
import { fitsDeadline } from './deadline.js';
import type { Decision } from './decision.js';
import { advance, retrySameBlocker, stopWith } from './moves.js';
import type { ResolvedPlan } from './plan.js';
import type { CallState } from './state.js';
import { notBeforeOf } from './state.js';
import type { RandomSource } from './waits.js';

/** How many repairs a backend gets in a row when the call's `output` does not say (`output.repairs`). */
export const DEFAULT_REPAIRS = 2;

/** The most repairs in a row a call may allow per backend (`output.repairs`). */
export const MAX_REPAIRS = 10;

/** Repairs in a row on the current backend (a state saved before repairs existed has none). */
export function repairsOf(state: CallState): number {
  return state.repairs ?? 0;
}

/**
 * The action a `repair` really is: `repair` while the backend has repairs left (`repairs`, the call's
 * `output.repairs`), else `drop`: a backend that failed the schema that often cannot produce it in this call.
 * Any other action is returned as it is.
 */
export function repairOrDrop(
  state: CallState,
  action: Action,
  repairs: number,
  why: string,
): { action: Action; why: string } {
  if (action !== 'repair' || repairsOf(state) < repairs) return { action, why };
  const used = `output.repairs (${repairs}) used on backend ${state.backend}, so drop`;
  return { action: 'drop', why: `${why}; ${used}` };
}

/**
 * `repair`: the same backend again at once (no wait: the backend answered, only the answer was unusable), with
 * the correction appended by the workflow. Counts a repair, not a same-backend retry, and uses no planned wait.
 * A backend that asked for a retry-after is still not tried before it ends: the repair waits for it, or advances
 * when that wait is over `retryAfter.maxMs` or beyond the deadline (as a `retry-same` would). An attempt that no
 * longer fits the deadline rule stops `deadline`.
 */
export function repair(
  plan: ResolvedPlan,
  next: CallState,
  repairs: number,
  why: string,
  nowMs: number,
  random: RandomSource,
): Decision {
  const b = next.backend;
  const blocker = retrySameBlocker({ ...plan, retriesPerBackend: Infinity }, next, nowMs);
  if (blocker !== undefined)
    return advance(plan, next, 'advance', `${why}; ${blocker}, so advance`, nowMs, random);
  const waitMs = Math.max(0, notBeforeOf(next, b) - nowMs);
  if (!fitsDeadline(plan, nowMs, waitMs)) {
    return stopWith(next, 'deadline', `${why}; no room for another attempt before the deadline`, 'repair');
  }
  next.attempts += 1;
  next.repairs = repairsOf(next) + 1;
  const when = waitMs === 0 ? 'at once' : `after ${waitMs} ms (retry-after)`;
  return {
    kind: 'attempt',
    backend: b,
    waitMs,
    action: 'repair',
    why: `${why}; backend ${b} again ${when} with the validator's errors, repair ${next.repairs} of ${repairs}`,
    state: next,
  };
}
