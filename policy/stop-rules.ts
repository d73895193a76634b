import { FailureClass } from './classes.js';
import { fitsDeadline, spendUntilMs } from './deadline.js';
import { decide } from './decide.js';
import type { RunOutlook } from './decide.js';
import { asksBefore } from './stop-order.js';
import type { AttemptDecision, Decision, StopDecision } from './decision.js';
import { resolveAction } from './decision.js';
import type { Failure } from './failure.js';
import type { ResolvedPlan } from './plan.js';
import type { CallState } from './state.js';
import type { RandomSource } from './waits.js';

/** How an attempt ended, as far as the next decision is concerned. */
export type AttemptEnd =
  | { kind: 'answered' }
  /** The attempt itself reported its cancellation. */
  | { kind: 'cancelled' }
  | {
      kind: 'failed';
      failure: Failure;
      /** Temporal's schedule-to-close timeout ended it: the deadline (less the reserve) was reached. */
      deadlineReached: boolean;
    };

/** What the workflow knows when it decides, besides the plan, the state and the attempt's end. */
export interface DecisionContext {
  /** The caller's cancellation scope (the host's cancel of the workflow, or a user's own scope) is cancelled. */
  cancelRequested: boolean;
  nowMs: number;
  random: RandomSource;
  /** What the run knows of its history, for `history-limit` (see `decide`). */
  run?: RunOutlook;
}

/**
 * The decision after an attempt, in the contract's order of the stop reasons: `cancelled` (cancellation was
 * requested before the call ended, whatever the attempt did meanwhile: its record keeps what it was and nothing
 * follows), `succeeded`, then, for a failure, `stream-interrupted` and the rest of `decide`'s order, except that a
 * failure ended by the deadline's own timeout stops `deadline` (with the action the failure asked for), unless the
 * deadline has moved later since the attempt was scheduled.
 */
export function afterAttempt(
  plan: ResolvedPlan,
  state: CallState,
  end: AttemptEnd,
  at: DecisionContext,
): Decision {
  if (at.cancelRequested || end.kind === 'cancelled') return cancelledStop(state);
  if (end.kind === 'answered')
    return { kind: 'stop', reason: 'succeeded', why: 'the attempt answered', state };
  const decided = decide(plan, state, end.failure, at.nowMs, at.random, at.run);
  if (!end.deadlineReached || end.failure.class === FailureClass.StreamInterrupted) return decided;
  // The timeout was set from the deadline as it was when the attempt was scheduled. When that deadline has moved
  // later since (an agent turn's `extendDeadline`), it is not reached: the attempt merely timed out, and the plan
  // decides what follows under the deadline as it is now (its deadline rule included).
  if (!deadlineReached(plan, at.nowMs)) return decided;
  // The deadline's own timeout ended the attempt: the call stops, `deadline` unless a reason the contract asks
  // first applies (the last allowed attempt is `attempts-exhausted`, an abort `non-retryable`, ...).
  if (decided.kind === 'stop' && asksBefore(decided.reason, 'deadline')) return decided;
  return deadlineStop(plan, end.failure, state);
}

/**
 * Whether the plan's deadline, less its reserve, is reached at `nowMs`. Without a deadline an attempt has no
 * schedule-to-close timeout, so there is nothing to judge: such a timeout is taken as the deadline, as it says.
 */
function deadlineReached(plan: ResolvedPlan, nowMs: number): boolean {
  const until = spendUntilMs(plan);
  return until === undefined || nowMs >= until;
}

/**
 * What stands between a decided attempt and its start: a cancellation requested meanwhile (no attempt starts
 * after it), or, after a wait (`waited`), a timer that fired so late that the deadline rule no longer holds.
 */
export function beforeAttempt(
  plan: ResolvedPlan,
  decision: AttemptDecision,
  at: { cancelRequested: boolean; nowMs: number; waited: boolean },
): Decision {
  if (at.cancelRequested) return cancelledStop(decision.state);
  if (at.waited && !fitsDeadline(plan, at.nowMs, 0)) {
    return {
      kind: 'stop',
      reason: 'deadline',
      ...(decision.action !== undefined ? { action: decision.action } : {}),
      why: 'the wait ended too late for another attempt before the deadline',
      state: decision.state,
    };
  }
  return decision;
}

/** The call stops `cancelled`: cancellation bypasses the actions. */
export function cancelledStop(state: CallState): StopDecision {
  return { kind: 'stop', reason: 'cancelled', why: 'the call was cancelled', state };
}

/** The call stops `deadline` because Temporal's schedule-to-close timeout (the deadline less the reserve) fired. */
export function deadlineStop(plan: ResolvedPlan, failure: Failure, state: CallState): StopDecision {
  const action = resolveAction(plan, failure)?.action;
  return {
    kind: 'stop',
    reason: 'deadline',
    ...(action !== undefined ? { action } : {}),
    why: 'the deadline (less the reserve) was reached during the attempt',
    state,
  };
}
