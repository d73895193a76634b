import type { BackoffPlan, ResolvedPlan } from './plan.js';

/** A source of random numbers in [0, 1): the workflow's deterministic `Math.random`, or a seeded one in tests. */
export type RandomSource = () => number;

/** A draw from `random`, held inside [0, 1) even if the source misbehaves. */
function unitDraw(random: RandomSource): number {
  const r = random();
  if (!(r >= 0)) return 0;
  return r < 1 ? r : 1 - Number.EPSILON;
}

/**
 * The n-th wait (n = 1, 2, ...) of an exponential backoff, in whole ms:
 * `floor(min(initialMs × factor^(n−1), maxMs))` plus a whole-ms jitter in `[0, jitterMs)` drawn from `random`.
 * The jitter is added after the cap. `random` is called once, and only when `jitterMs > 0`.
 */
export function backoffWait(backoff: Required<BackoffPlan>, n: number, random: RandomSource): number {
  const growth = backoff.factor ** Math.max(0, n - 1);
  const base = backoff.initialMs === 0 ? 0 : Math.min(backoff.initialMs * growth, backoff.maxMs);
  // Whole ms on both sides, so float rounding can never push the jitter up to jitterMs itself.
  const jitter =
    backoff.jitterMs > 0
      ? Math.min(Math.floor(unitDraw(random) * backoff.jitterMs), Math.ceil(backoff.jitterMs) - 1)
      : 0;
  return Math.floor(base) + jitter;
}

/**
 * The plan's next wait after `waitsTaken` waits, in ms; `undefined` when the plan has no more waits
 * (no retry, or the `waits` list is used up and there is no deadline under which its last wait repeats).
 */
export function plannedWait(
  plan: ResolvedPlan,
  waitsTaken: number,
  random: RandomSource,
): number | undefined {
  if (!plan.retry) return undefined;
  if (plan.waits !== undefined) {
    const listed = plan.waits[waitsTaken];
    if (listed !== undefined) return listed;
    return plan.deadlineMs === undefined ? undefined : plan.waits[plan.waits.length - 1];
  }
  if (plan.backoff !== undefined) return backoffWait(plan.backoff, waitsTaken + 1, random);
  return undefined;
}

/**
 * Whether the plan still has a wait for a call that took `waitsTaken` planned waits and `coolingWaits` waits for
 * cooling backends. Without a deadline a `waits` list bounds the call: every wait counts toward its length, a
 * cooling wait too (it takes no entry's value, but it is a wait). With a deadline the last wait repeats, and a
 * backoff has no end: there `maxAttempts` and the deadline are the bounds.
 */
export function hasWaitLeft(plan: ResolvedPlan, waitsTaken: number, coolingWaits: number): boolean {
  if (!plan.retry) return false;
  if (plan.waits === undefined || plan.deadlineMs !== undefined) return true;
  return waitsTaken + coolingWaits < plan.waits.length;
}
