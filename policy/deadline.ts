import type { ResolvedPlan } from './plan.js';

/** Grace added to an attempt's own timeout T for Temporal's `startToCloseTimeout`, in ms. */
export const START_TO_CLOSE_GRACE_MS = 5000;

/**
 * The deadline rule, checked before every attempt and before every wait: go on only if
 * `now + wait + minAttemptMs + reserveMs ≤ deadline`. Always true without a deadline.
 */
export function fitsDeadline(plan: ResolvedPlan, nowMs: number, waitMs: number): boolean {
  if (plan.deadlineMs === undefined) return true;
  return nowMs + waitMs + plan.minAttemptMs + plan.reserveMs <= plan.deadlineMs;
}

/** The last moment the call may spend (deadline less reserve), or `undefined` without a deadline. */
export function spendUntilMs(plan: ResolvedPlan): number | undefined {
  return plan.deadlineMs === undefined ? undefined : plan.deadlineMs - plan.reserveMs;
}

/**
 * The activity's own request timeout T for an attempt starting at `startMs`:
 * `min(attemptTimeoutMs, deadline − reserve − start)`, never below 0.
 */
export function attemptTimeoutMs(plan: ResolvedPlan, startMs: number): number {
  const until = spendUntilMs(plan);
  if (until === undefined) return plan.attemptTimeoutMs;
  return Math.max(0, Math.min(plan.attemptTimeoutMs, until - startMs));
}

/** Temporal's `startToCloseTimeout` for an attempt starting at `startMs`: T plus a grace. */
export function startToCloseMs(
  plan: ResolvedPlan,
  startMs: number,
  graceMs = START_TO_CLOSE_GRACE_MS,
): number {
  return attemptTimeoutMs(plan, startMs) + graceMs;
}

/**
 * Temporal's `scheduleToCloseTimeout` for an attempt scheduled at `nowMs`: `deadline − reserve − now`
 * (never below 0); `undefined` without a deadline (no schedule-to-close timeout). Temporal reads 0 as "no
 * timeout", but the deadline rule never schedules an attempt with less than `minAttemptMs` left.
 */
export function scheduleToCloseMs(plan: ResolvedPlan, nowMs: number): number | undefined {
  const until = spendUntilMs(plan);
  return until === undefined ? undefined : Math.max(0, until - nowMs);
}
