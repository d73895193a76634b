import { DEFAULT_ACTIONS } from './classes.js';
import type { Action, OverridableClass, StopReason } from './classes.js';
import type { Failure } from './failure.js';
import type { ResolvedPlan } from './plan.js';
import type { CallState } from './state.js';

/** Start an attempt on `backend` after `waitMs` (a durable timer; 0 for at once). */
export interface AttemptDecision {
  kind: 'attempt';
  /** The backend index to try. */
  backend: number;
  /** How long to wait first, in ms: the attempt record's `retryInMs` (0 for an advance). */
  waitMs: number;
  /** The action that led here (after `retriesPerBackend` and retry-after adjustments); absent for the first attempt. */
  action?: Action;
  /** A human-readable account of the decision, for logs and records. */
  why: string;
  /** The call's state with this attempt counted. */
  state: CallState;
}

/** Stop the call. */
export interface StopDecision {
  kind: 'stop';
  reason: StopReason;
  /** The action the failure asked for, when one was chosen (none for `StreamInterrupted` or before the first attempt). */
  action?: Action;
  why: string;
  /** The call's final state. */
  state: CallState;
}

/** What happens next. */
export type Decision = AttemptDecision | StopDecision;

/** Who chose a failure's action: the plan's `actions`, the `x-should-retry` header, or the default table. */
export type ActionSource = 'plan' | 'x-should-retry' | 'default';

/** A failure's action by precedence: the plan's override, then `x-should-retry`, then the default table. */
export function resolveAction(
  plan: ResolvedPlan,
  failure: Failure,
): { action: Action; source: ActionSource } | undefined {
  if (failure.class === 'StreamInterrupted') return undefined;
  const cls: OverridableClass = failure.class;
  const override = plan.actions[cls];
  if (override !== undefined) return { action: override, source: 'plan' };
  if (failure.shouldRetry !== undefined) return { action: failure.shouldRetry, source: 'x-should-retry' };
  return { action: DEFAULT_ACTIONS[cls], source: 'default' };
}
