import type { Action, StopReason } from './classes.js';
import { coolingWait, everyBackendCooling } from './cooling.js';
import { fitsDeadline } from './deadline.js';
import type { Decision } from './decision.js';
import type { ResolvedPlan } from './plan.js';
import type { CallState } from './state.js';
import { coolingWaitsOf, notBeforeOf, remainingBackends, untriedInRound } from './state.js';
import type { RandomSource } from './waits.js';
import { hasWaitLeft, plannedWait } from './waits.js';

/**
 * The plan's next wait for this call, or `undefined` when it has none left: without a deadline, the waits for
 * cooling backends count toward the `waits` list too (see {@link hasWaitLeft}).
 */
export function nextPlannedWait(
  plan: ResolvedPlan,
  next: CallState,
  random: RandomSource,
): number | undefined {
  if (!hasWaitLeft(plan, next.waitsTaken, coolingWaitsOf(next))) return undefined;
  return plannedWait(plan, next.waitsTaken, random);
}

/** A stop decision (with the action that was chosen, when there was one). */
export function stopWith(state: CallState, reason: StopReason, why: string, action?: Action): Decision {
  return action === undefined
    ? { kind: 'stop', reason, why, state }
    : { kind: 'stop', reason, action, why, state };
}

/**
 * Why backend `next.backend` cannot be retried now although the failure asked for `retry-same`, or
 * `undefined` when it can: its same-backend retries are used up, or its retry-after is over the ceiling or
 * beyond the deadline.
 */
export function retrySameBlocker(plan: ResolvedPlan, next: CallState, nowMs: number): string | undefined {
  const b = next.backend;
  if (next.sameBackendRetries >= plan.retriesPerBackend) {
    return `retriesPerBackend (${plan.retriesPerBackend}) used on backend ${b}`;
  }
  const blockedMs = notBeforeOf(next, b) - nowMs;
  if (blockedMs > plan.retryAfter.maxMs)
    return `retry-after ${blockedMs} ms on backend ${b} is over retryAfter.maxMs`;
  if (blockedMs > 0 && !fitsDeadline(plan, nowMs, blockedMs)) {
    return `retry-after ${blockedMs} ms on backend ${b} is beyond the deadline`;
  }
  return undefined;
}

/**
 * `retry-same`: the same backend after the next wait, at least until its retry-after ends. When the plan has
 * no wait left, or the wait does not fit the deadline rule, the call advances at once to a backend of this
 * round instead (see {@link advanceInsteadOfWait}).
 */
export function retrySame(
  plan: ResolvedPlan,
  next: CallState,
  why: string,
  nowMs: number,
  random: RandomSource,
): Decision {
  const b = next.backend;
  const planned = nextPlannedWait(plan, next, random);
  if (planned === undefined) {
    return advanceInsteadOfWait(plan, next, why, 'every planned wait is used', 'attempts-exhausted', nowMs);
  }
  const waitMs = Math.max(planned, notBeforeOf(next, b) - nowMs);
  if (!fitsDeadline(plan, nowMs, waitMs)) {
    const because = `a wait of ${waitMs} ms leaves no room for an attempt before the deadline`;
    return advanceInsteadOfWait(plan, next, why, because, 'deadline', nowMs);
  }
  next.attempts += 1;
  next.waitsTaken += 1;
  next.sameBackendRetries += 1;
  const source = waitMs > planned ? 'retry-after' : 'planned';
  const retry = `same-backend retry ${next.sameBackendRetries} of ${plan.retriesPerBackend}`;
  return {
    kind: 'attempt',
    backend: b,
    waitMs,
    action: 'retry-same',
    why: `${why}; backend ${b} again after ${waitMs} ms (${source}), ${retry}`,
    state: next,
  };
}

/**
 * The next backend of this round that may be tried now: not yet tried in it (after the current one in chain
 * order, wrapping around to those before the one the round started at: see {@link untriedInRound}), not
 * dropped, and not inside a retry-after. `undefined` when there is none.
 */
export function nextInRound(next: CallState, nowMs: number): number | undefined {
  return untriedInRound(next).find((i) => notBeforeOf(next, i) <= nowMs);
}

/** An attempt on backend `to` at once: an immediate advance is not a wait and uses none of the plan's. */
function atOnce(next: CallState, to: number, action: Action, why: string): Decision {
  // The untried ones before `to` were kept out by a retry-after: the round has not tried them.
  const untried = untriedInRound(next);
  const passed = untried.slice(0, Math.max(0, untried.indexOf(to)));
  const kept = (next.passed ?? []).filter((i) => i !== to);
  const all = [...kept, ...passed.filter((i) => !kept.includes(i))];
  if (all.length > 0) next.passed = all;
  else delete next.passed;
  next.attempts += 1;
  next.backend = to;
  next.sameBackendRetries = 0;
  next.repairs = 0;
  return {
    kind: 'attempt',
    backend: to,
    waitMs: 0,
    action,
    why: `${why}; backend ${to} at once`,
    state: next,
  };
}

/**
 * A `retry-same` that cannot wait (`because`: the plan has no wait left, or the wait does not fit the
 * deadline rule) advances at once to a backend of this round not yet tried, if an attempt with no wait still
 * fits the deadline rule. Otherwise it stops: with `reason` when no such backend is left, with `deadline`
 * when one is left but no attempt fits.
 */
function advanceInsteadOfWait(
  plan: ResolvedPlan,
  next: CallState,
  why: string,
  because: string,
  reason: 'attempts-exhausted' | 'deadline',
  nowMs: number,
): Decision {
  const to = nextInRound(next, nowMs);
  if (to === undefined) {
    return stopWith(next, reason, `${why}; ${because}, and no backend is left in this round`, 'retry-same');
  }
  if (!fitsDeadline(plan, nowMs, 0)) {
    const room = 'no room for another attempt before the deadline';
    return stopWith(next, 'deadline', `${why}; ${because}, and ${room}`, 'retry-same');
  }
  return atOnce(next, to, 'advance', `${why}; ${because}, so advance`);
}

/** `advance` and `drop`: the next backend in this round at once, else a new round after the next wait. */
export function advance(
  plan: ResolvedPlan,
  next: CallState,
  action: Action,
  why: string,
  nowMs: number,
  random: RandomSource,
): Decision {
  const remaining = remainingBackends(next);
  const inRound = nextInRound(next, nowMs);
  if (inRound !== undefined) {
    // An immediate advance is a wait of 0 for the deadline rule.
    if (!fitsDeadline(plan, nowMs, 0)) {
      return stopWith(next, 'deadline', `${why}; no room for another attempt before the deadline`, action);
    }
    return atOnce(next, inRound, action, why);
  }
  if (everyBackendCooling(next, nowMs)) return coolingWait(plan, next, action, why, nowMs, random);

  const planned = nextPlannedWait(plan, next, random);
  if (planned === undefined)
    return stopWith(next, 'attempts-exhausted', `${why}; every planned wait is used`, action);
  let target = remaining.find((i) => notBeforeOf(next, i) <= nowMs + planned);
  let waitMs = planned;
  if (target === undefined) {
    // Every remaining backend is inside its retry-after: one wait, until the earliest ends.
    for (const i of remaining) {
      if (target === undefined || notBeforeOf(next, i) < notBeforeOf(next, target)) target = i;
    }
    if (target === undefined)
      return stopWith(next, 'non-retryable', `${why}; every backend is dropped`, action);
    waitMs = notBeforeOf(next, target) - nowMs;
    const least = `every backend left asks to wait, the least ${waitMs} ms`;
    if (waitMs > plan.retryAfter.maxMs) {
      const over = `${least} is over retryAfter.maxMs (${plan.retryAfter.maxMs})`;
      return stopWith(next, 'retry-after-exceeded', `${why}; ${over}`, action);
    }
    if (!fitsDeadline(plan, nowMs, waitMs)) {
      return stopWith(next, 'retry-after-exceeded', `${why}; ${least} is beyond the deadline`, action);
    }
  } else if (!fitsDeadline(plan, nowMs, waitMs)) {
    const because = `a wait of ${waitMs} ms leaves no room for an attempt before the deadline`;
    return stopWith(next, 'deadline', `${why}; ${because}`, action);
  }
  next.attempts += 1;
  next.waitsTaken += 1;
  next.round += 1;
  next.roundStart = target;
  delete next.passed;
  next.backend = target;
  next.sameBackendRetries = 0;
  next.repairs = 0;
  const source = waitMs > planned ? 'retry-after' : 'planned';
  const round = `round ${next.round} starts at backend ${target} after ${waitMs} ms (${source})`;
  return { kind: 'attempt', backend: target, waitMs, action, why: `${why}; ${round}`, state: next };
}
