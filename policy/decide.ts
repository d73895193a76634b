import { fitsDeadline } from './deadline.js';
import type { Decision } from './decision.js';
import { resolveAction } from './decision.js';
import type { Failure } from './failure.js';
import { advance, retrySame, retrySameBlocker, stopWith } from './moves.js';
import type { ResolvedPlan } from './plan.js';
import type { CallState } from './state.js';
import { copyState, notBeforeOf, remainingBackends } from './state.js';
import type { RandomSource } from './waits.js';

/**
 * The first attempt of a call: the first backend at once, unless the deadline rule already fails (the
 * call was queued too long), which stops with `deadline` and no attempt.
 */
export function startDecision(plan: ResolvedPlan, state: CallState, nowMs: number): Decision {
  if (state.attempts !== 0) throw new RangeError('startDecision is for a call that has made no attempt yet.');
  const next = copyState(state);
  const first = remainingBackends(next)[0];
  if (first === undefined) return stopWith(next, 'non-retryable', 'every backend is dropped');
  if (!fitsDeadline(plan, nowMs, 0)) {
    return stopWith(
      next,
      'deadline',
      'the deadline leaves less than minAttemptMs + reserveMs before the first attempt',
    );
  }
  next.attempts = 1;
  next.backend = first;
  return {
    kind: 'attempt',
    backend: first,
    waitMs: 0,
    why: `first attempt on backend ${first}`,
    state: next,
  };
}

/**
 * What happens after a failed attempt: the next attempt (backend, wait, action, why) or a stop (reason).
 *
 * In order: a `StreamInterrupted` stops; the action is the plan's override, else `x-should-retry`, else
 * the default table; `abort` stops, and `drop` stops once every backend is dropped (`non-retryable`);
 * `maxAttempts` stops (`attempts-exhausted`); `retry-same` becomes `advance` when the backend's
 * same-backend retries are used up or its retry-after is over the ceiling or beyond the deadline; then the
 * move, whose wait must pass the deadline rule (`deadline`, or `retry-after-exceeded` when the retry-after
 * is what does not fit). A retry-after (when honoured) keeps its backend out until it ends.
 *
 * Pure and deterministic: the same arguments (and the same draws of `random`) give the same decision, and
 * `state` is never mutated. `random` is drawn at most once, for a backoff's jitter.
 */
export function decide(
  plan: ResolvedPlan,
  state: CallState,
  failure: Failure,
  nowMs: number,
  random: RandomSource,
): Decision {
  const next = copyState(state);
  const b = state.backend;
  const ra = failure.retryAfterMs;
  if (plan.retryAfter.honor && ra !== undefined && Number.isFinite(ra) && ra >= 0) {
    next.notBefore[b] = Math.max(notBeforeOf(next, b), nowMs + ra);
  }

  const resolved = resolveAction(plan, failure);
  if (resolved === undefined) {
    return stopWith(next, 'stream-interrupted', 'StreamInterrupted: the stream already reached its caller');
  }
  const { action, source } = resolved;
  const why = `${failure.class}: ${action} (${source === 'default' ? 'default table' : source})`;

  if (action === 'abort') return stopWith(next, 'non-retryable', why, action);
  if (action === 'drop') {
    if (!next.dropped.includes(b)) next.dropped.push(b);
    if (remainingBackends(next).length === 0) {
      return stopWith(next, 'non-retryable', `${why}; every backend is dropped`, action);
    }
  }
  if (state.attempts >= plan.maxAttempts) {
    const made = `${state.attempts} of maxAttempts ${plan.maxAttempts} made`;
    return stopWith(next, 'attempts-exhausted', `${why}; ${made}`, action);
  }
  if (action === 'retry-same') {
    const blocker = retrySameBlocker(plan, next, nowMs);
    if (blocker === undefined) return retrySame(plan, next, why, nowMs, random);
    return advance(plan, next, 'advance', `${why}; ${blocker}, so advance`, nowMs, random);
  }
  return advance(plan, next, action, why, nowMs, random);
}
