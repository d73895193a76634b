import { budgetStopAll, budgetStopAt } from './budget.js';
import type { BudgetOutlook } from './budget.js';
import { fitsDeadline } from './deadline.js';
import type { Decision } from './decision.js';
import { resolveAction } from './decision.js';
import type { Failure } from './failure.js';
import { historyLimitStop } from './history-limit.js';
import type { HistoryOutlook } from './history-limit.js';
import { advance, retrySame, retrySameBlocker, stopWith } from './moves.js';
import type { Action } from './classes.js';
import type { ResolvedPlan } from './plan.js';
import type { CallState } from './state.js';
import { copyState, markCooling, notBeforeOf, remainingBackends } from './state.js';
import { DEFAULT_REPAIRS, repair, repairOrDrop } from './repair.js';
import { asksBefore } from './stop-order.js';
import type { RandomSource } from './waits.js';

/**
 * What the workflow knows about its run beside the call's own state, for the stops that depend on it. Plain
 * JSON. A part left out is not asked about.
 */
export interface RunOutlook {
  /** The run's history and the next attempt's input, for `history-limit`. */
  history?: HistoryOutlook;
  /**
   * The call's `output.repairs`: how many `repair`s a backend gets in a row before a `SchemaMismatch` drops it.
   * @default 2 (DEFAULT_REPAIRS)
   */
  repairs?: number;
  /** The call's budget, what it spent and what its next attempt may cost, for `budget`. */
  budget?: BudgetOutlook;
}

/**
 * The first attempt of a call: the first backend at once. Asked in the contract's order: every backend
 * dropped stops `non-retryable`; an attempt whose worst case would pass the budget (with what an agent turn's
 * earlier calls spent) stops `budget`; an attempt that would pass the history limit (or an input over Temporal's
 * payload limit) stops `history-limit`; a deadline rule that already fails (the call was queued too long)
 * stops `deadline`. Each stop makes no attempt.
 */
export function startDecision(
  plan: ResolvedPlan,
  state: CallState,
  nowMs: number,
  run: RunOutlook = {},
): Decision {
  if (state.attempts !== 0) throw new RangeError('startDecision is for a call that has made no attempt yet.');
  const next = copyState(state);
  const first = remainingBackends(next)[0];
  if (first === undefined) return stopWith(next, 'non-retryable', 'every backend is dropped');
  const budget = budgetStopAt(run.budget, first);
  if (budget !== undefined) return stopWith(next, 'budget', `before the first attempt, ${budget}`);
  const history = historyLimitStop(plan, run.history);
  if (history !== undefined) return stopWith(next, 'history-limit', `before the first attempt, ${history}`);
  if (!fitsDeadline(plan, nowMs, 0)) {
    return stopWith(
      next,
      'deadline',
      'the deadline leaves less than minAttemptMs + reserveMs before the first attempt',
    );
  }
  next.attempts = 1;
  next.backend = first;
  next.roundStart = first;
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
 * The action is the plan's override, else `x-should-retry`, else the default table. Then the contract's
 * questions, in the order of `STOP_REASON_PRECEDENCE` (`cancelled` and `succeeded` are the workflow's: an
 * answer or a cancellation never reaches `decide`): `StreamInterrupted` stops `stream-interrupted`; `abort`,
 * or `drop` of the last backend, stops `non-retryable`; the next attempt's worst case passing the budget
 * (`run.budget`, on the backend the move picks) stops `budget`; `maxAttempts` made stops
 * `attempts-exhausted`; then the move: `retry-same` becomes `advance` when the backend's same-backend retries
 * are used up or its retry-after is over the ceiling or beyond the deadline, and advances at once within the
 * round when it has no wait left or its wait does not fit the deadline; `repair` tries the same backend at once
 * while it has repairs left (`run.repairs`), and becomes `drop` (asked before the drop rule) when it has none. A move can stop `attempts-exhausted`
 * (no wait left, no backend at once), `retry-after-exceeded` or `deadline`; the history limit
 * (`run.history`) is asked between the first and the other two. A retry-after (when honoured) keeps its
 * backend out until it ends.
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
  run: RunOutlook = {},
): Decision {
  const next = copyState(state);
  const b = state.backend;
  const ra = failure.retryAfterMs;
  const usable = ra !== undefined && Number.isFinite(ra) && ra >= 0;
  // A CoolingDown's retryAfterMs is fleet health's own `until`, kept whatever the plan says of retry-after.
  if (failure.class === 'CoolingDown' && usable) markCooling(next, b, nowMs + ra);
  else if (plan.retryAfter.honor && usable) {
    next.notBefore[b] = Math.max(notBeforeOf(next, b), nowMs + ra);
  }

  const resolved = resolveAction(plan, failure);
  if (resolved === undefined) {
    return stopWith(next, 'stream-interrupted', 'StreamInterrupted: the stream already reached its caller');
  }
  // Nothing was sent and nothing will fit before the tenant's envelope renews: no action applies.
  if (failure.overEnvelope !== undefined) return stopWith(next, 'budget', failure.overEnvelope);
  const repairs = run.repairs ?? DEFAULT_REPAIRS;
  const asked = `${failure.class}: ${resolved.action} (${resolved.source === 'default' ? 'default table' : resolved.source})`;
  // A backend out of repairs is dropped: decided before the drop rule, which then applies to it.
  const { action, why } = repairOrDrop(state, resolved.action, repairs, asked);

  if (action === 'abort') return stopWith(next, 'non-retryable', why, action);
  if (action === 'drop') {
    if (!next.dropped.includes(b)) next.dropped.push(b);
    if (remainingBackends(next).length === 0) {
      return stopWith(next, 'non-retryable', `${why}; every backend is dropped`, action);
    }
  }
  if (state.attempts >= plan.maxAttempts) {
    const budget = budgetStopAll(run.budget, remainingBackends(next));
    if (budget !== undefined) return stopWith(next, 'budget', `${why}; ${budget}`, action);
    const made = `${state.attempts} of maxAttempts ${plan.maxAttempts} made`;
    return stopWith(next, 'attempts-exhausted', `${why}; ${made}`, action);
  }
  const before = copyState(next);
  const moved = withBudget(
    before,
    action === 'repair'
      ? repair(plan, next, repairs, why, nowMs, random)
      : move(plan, next, action, why, nowMs, random),
    why,
    action,
    run,
  );
  return withHistoryLimit(plan, before, moved, why, action, run);
}

/**
 * The budget in its place: a move that stops for an earlier reason stands; an attempt whose worst case would
 * pass the budget, or a stop for a later reason when no remaining backend's next attempt would fit, becomes a
 * stop `budget`, from the state before the move.
 */
function withBudget(
  before: CallState,
  moved: Decision,
  why: string,
  action: Action,
  run: RunOutlook,
): Decision {
  if (run.budget === undefined) return moved;
  if (moved.kind === 'stop' && asksBefore(moved.reason, 'budget')) return moved;
  const over =
    moved.kind === 'attempt'
      ? budgetStopAt(run.budget, moved.backend)
      : budgetStopAll(run.budget, remainingBackends(before));
  return over === undefined ? moved : stopWith(before, 'budget', `${why}; ${over}`, action);
}

/** The move the action asks for: an attempt, or a stop for want of waits, of time or of a backend. */
function move(
  plan: ResolvedPlan,
  next: CallState,
  action: Action,
  why: string,
  nowMs: number,
  random: RandomSource,
): Decision {
  if (action === 'retry-same') {
    const blocker = retrySameBlocker(plan, next, nowMs);
    if (blocker === undefined) return retrySame(plan, next, why, nowMs, random);
    return advance(plan, next, 'advance', `${why}; ${blocker}, so advance`, nowMs, random);
  }
  return advance(plan, next, action, why, nowMs, random);
}

/**
 * The history limit in its place: a move that stops for an earlier reason stands; otherwise an attempt that
 * would pass the limit (or a stop for a later reason) becomes a stop `history-limit`, from the state before
 * the move.
 */
function withHistoryLimit(
  plan: ResolvedPlan,
  before: CallState,
  moved: Decision,
  why: string,
  action: Action,
  run: RunOutlook,
): Decision {
  if (moved.kind === 'stop' && asksBefore(moved.reason, 'history-limit')) return moved;
  const history = historyLimitStop(plan, run.history);
  if (history === undefined) return moved;
  return stopWith(before, 'history-limit', `${why}; ${history}`, action);
}
