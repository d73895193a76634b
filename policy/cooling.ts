import type { Action } from './classes.js';
import { fitsDeadline } from './deadline.js';
import type { Decision } from './decision.js';
import type { ResolvedPlan } from './plan.js';
import type { CallState } from './state.js';
import { coolingUntilOf, coolingWaitsOf, notBeforeOf, remainingBackends } from './state.js';
import type { RandomSource } from './waits.js';
import { hasWaitLeft } from './waits.js';

/** The jitter added to a wait for a cooling backend: whole ms in [0, COOLING_JITTER_MS). */
export const COOLING_JITTER_MS = 1000;

/** Whether every backend left in the call is cooling (fleet health has it open) at `nowMs`. */
export function everyBackendCooling(next: CallState, nowMs: number): boolean {
  const remaining = remainingBackends(next);
  return remaining.length > 0 && remaining.every((i) => coolingUntilOf(next, i) > nowMs);
}

/**
 * The wait when every backend left is cooling: one wait until the earliest of them may be tried, plus a jitter
 * in [0, 1 s) from `random` (so the calls waiting for the same backend do not all come back in the same
 * millisecond). It takes no entry's value from the plan's `waits` (fleet health set it, not the plan) and starts a
 * new round. It is still a wait: without a deadline the `waits` list bounds the call, so once the list's length is
 * used by planned and cooling waits together the call stops `attempts-exhausted` (asked first, as the contract's
 * order puts it before `retry-after-exceeded`); else a backend that stays cooling would be waited for until
 * `maxAttempts`, a cool-down each time. Like a retry-after (the contract's `retryAfter` rule), a cool-down over
 * `retryAfter.maxMs`, or a wait that does not fit the deadline rule, stops `retry-after-exceeded` (no backend is
 * left to advance to: all are cooling). `random` is drawn once.
 */
export function coolingWait(
  plan: ResolvedPlan,
  next: CallState,
  action: Action,
  why: string,
  nowMs: number,
  random: RandomSource,
): Decision {
  let target = -1;
  for (const i of remainingBackends(next)) {
    if (target < 0 || notBeforeOf(next, i) < notBeforeOf(next, target)) target = i;
  }
  const r = random();
  const jitter = r >= 0 && r < 1 ? Math.floor(r * COOLING_JITTER_MS) : 0;
  const coolMs = Math.max(0, notBeforeOf(next, target) - nowMs);
  const waitMs = coolMs + jitter;
  // The cool-down is waited like a retry-after: beyond `retryAfter.maxMs` or the deadline, nothing is waited.
  const least = `every backend left is cooling down, the earliest for ${coolMs} ms`;
  if (!hasWaitLeft(plan, next.waitsTaken, coolingWaitsOf(next))) {
    const used =
      'every planned wait is used (waits for cooling backends count toward the list without a deadline)';
    return {
      kind: 'stop',
      reason: 'attempts-exhausted',
      action,
      why: `${why}; ${least}, and ${used}`,
      state: next,
    };
  }
  const over =
    coolMs > plan.retryAfter.maxMs
      ? `${least}: over retryAfter.maxMs (${plan.retryAfter.maxMs})`
      : !fitsDeadline(plan, nowMs, waitMs)
        ? `${least}: beyond the deadline`
        : undefined;
  if (over !== undefined) {
    return { kind: 'stop', reason: 'retry-after-exceeded', action, why: `${why}; ${over}`, state: next };
  }
  next.attempts += 1;
  next.coolingWaits = coolingWaitsOf(next) + 1;
  next.round += 1;
  next.roundStart = target;
  delete next.passed;
  next.backend = target;
  next.sameBackendRetries = 0;
  // A new round on another backend: it gets the original request, not the corrections of a repair.
  next.repairs = 0;
  const round = `every backend left is cooling down: round ${next.round} starts at backend ${target} after ${waitMs} ms (cooling)`;
  return { kind: 'attempt', backend: target, waitMs, action, why: `${why}; ${round}`, state: next };
}
