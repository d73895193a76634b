import { STOP_REASON_PRECEDENCE, firstStopReason } from './classes.js';
import type { StopReason } from './classes.js';

/**
 * What is known after an attempt, one fact per question the contract asks before the call goes on. A fact left
 * out is a "no".
 */
export interface AfterAttemptFacts {
  /** The workflow's cancellation was requested before the call ended (whatever the attempt did meanwhile). */
  cancelRequested?: boolean;
  /** The attempt answered. */
  answered?: boolean;
  /** The attempt is `StreamInterrupted` (part of it reached the stream), whatever its original class. */
  streamInterrupted?: boolean;
  /** Its action is `abort`, or `drop` of the last backend left. */
  nonRetryable?: boolean;
  /** The next attempt's worst case would pass the budget. */
  overBudget?: boolean;
  /** `maxAttempts` are made, or the plan has no wait left and no backend is left to try at once. */
  attemptsUsed?: boolean;
  /** The next attempt would pass the plan's `historyLimit`, or its input Temporal's payload limit. */
  overHistoryLimit?: boolean;
  /** The retry-after to wait for is over `retryAfter.maxMs` or beyond the deadline, and no other backend is left. */
  overRetryAfterCeiling?: boolean;
  /** The deadline rule fails for the next attempt (or its wait). */
  pastDeadline?: boolean;
}

/** The fact each stop reason after an attempt asks about (`max-steps` is an agent turn's, between steps). */
const FACT_OF: Readonly<Partial<Record<StopReason, keyof AfterAttemptFacts>>> = Object.freeze({
  cancelled: 'cancelRequested',
  succeeded: 'answered',
  'stream-interrupted': 'streamInterrupted',
  'non-retryable': 'nonRetryable',
  budget: 'overBudget',
  'attempts-exhausted': 'attemptsUsed',
  'history-limit': 'overHistoryLimit',
  'retry-after-exceeded': 'overRetryAfterCeiling',
  deadline: 'pastDeadline',
});

/**
 * The questions asked after every attempt, in the order they are asked: the order of
 * {@link STOP_REASON_PRECEDENCE} (the one place it is written), so that the first question answered "yes" is
 * also the reason that wins when two apply.
 */
export const AFTER_ATTEMPT_QUESTIONS: readonly { reason: StopReason; fact: keyof AfterAttemptFacts }[] =
  Object.freeze(
    STOP_REASON_PRECEDENCE.flatMap((reason) => {
      const fact = FACT_OF[reason];
      return fact === undefined ? [] : [{ reason, fact }];
    }),
  );

/**
 * Why the call stops after an attempt, from what is known: the reason of the first question answered "yes",
 * or `undefined` when the call goes on. `decide` asks the same questions in the same order.
 */
export function stopAfterAttempt(facts: AfterAttemptFacts): StopReason | undefined {
  for (const { reason, fact } of AFTER_ATTEMPT_QUESTIONS) if (facts[fact] === true) return reason;
  return undefined;
}

/**
 * What is known before an agent turn's next step, one fact per stop reason the turn asks about between steps.
 * A fact left out is a "no".
 */
export interface BeforeStepFacts {
  /** The deadline rule fails for the next step's model call. */
  pastDeadline?: boolean;
  /** `maxSteps` model calls were made. */
  stepsUsed?: boolean;
}

/** The fact each stop reason between an agent turn's steps asks about. */
const STEP_FACT_OF: Readonly<Partial<Record<StopReason, keyof BeforeStepFacts>>> = Object.freeze({
  deadline: 'pastDeadline',
  'max-steps': 'stepsUsed',
});

/**
 * The questions an agent turn asks before each step, in the order of {@link STOP_REASON_PRECEDENCE}: a turn at
 * `maxSteps` whose deadline has also passed stops `deadline`, as the contract's order says.
 */
export const BEFORE_STEP_QUESTIONS: readonly { reason: StopReason; fact: keyof BeforeStepFacts }[] =
  Object.freeze(
    STOP_REASON_PRECEDENCE.flatMap((reason) => {
      const fact = STEP_FACT_OF[reason];
      return fact === undefined ? [] : [{ reason, fact }];
    }),
  );

/** Why an agent turn stops before its next step, or `undefined` when it goes on. */
export function stopBeforeStep(facts: BeforeStepFacts): StopReason | undefined {
  for (const { reason, fact } of BEFORE_STEP_QUESTIONS) if (facts[fact] === true) return reason;
  return undefined;
}

/** Whether stop reason `a` is asked before (and wins over) `b`. */
export function asksBefore(a: StopReason, b: StopReason): boolean {
  return a !== b && firstStopReason(a, b) === a;
}
