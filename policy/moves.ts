import type { Action, StopReason } from './classes.js';
import { fitsDeadline } from './deadline.js';
import type { Decision } from './decision.js';
import type { ResolvedPlan } from './plan.js';
import type { CallState } from './state.js';
import { notBeforeOf, remainingBackends } from './state.js';
import type { RandomSource } from './waits.js';
import { plannedWait } from './waits.js';

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

/** `retry-same`: the same backend after the next wait, at least until its retry-after ends. */
export function retrySame(
  plan: ResolvedPlan,
  next: CallState,
  why: string,
  nowMs: number,
  random: RandomSource,
): Decision {
  const b = next.backend;
  const planned = plannedWait(plan, next.waitsTaken, random);
  if (planned === undefined)
    return stopWith(next, 'attempts-exhausted', `${why}; every planned wait is used`, 'retry-same');
  const waitMs = Math.max(planned, notBeforeOf(next, b) - nowMs);
  if (!fitsDeadline(plan, nowMs, waitMs)) {
    const because = `a wait of ${waitMs} ms leaves no room for an attempt before the deadline`;
    return stopWith(next, 'deadline', `${why}; ${because}`, 'retry-same');
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
  const inRound = remaining.find((i) => i > next.backend && notBeforeOf(next, i) <= nowMs);
  if (inRound !== undefined) {
    // An immediate advance is a wait of 0 for the deadline rule.
    if (!fitsDeadline(plan, nowMs, 0)) {
      return stopWith(next, 'deadline', `${why}; no room for another attempt before the deadline`, action);
    }
    next.attempts += 1;
    next.backend = inRound;
    next.sameBackendRetries = 0;
    return {
      kind: 'attempt',
      backend: inRound,
      waitMs: 0,
      action,
      why: `${why}; backend ${inRound} at once`,
      state: next,
    };
  }

  const planned = plannedWait(plan, next.waitsTaken, random);
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
  next.backend = target;
  next.sameBackendRetries = 0;
  const source = waitMs > planned ? 'retry-after' : 'planned';
  const round = `round ${next.round} starts at backend ${target} after ${waitMs} ms (${source})`;
  return { kind: 'attempt', backend: target, waitMs, action, why: `${why}; ${round}`, state: next };
}
