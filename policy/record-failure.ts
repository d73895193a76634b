import { FailureClass, isFailureClass } from './classes.js';
import type { Action } from './classes.js';
import { classify } from './classify.js';
import type { Failure } from './failure.js';

/** The failure part of an attempt record (`AttemptRecord.failure`). */
export interface RecordedFailure {
  class: FailureClass;
  /** What the call did about it; absent when nothing could be done (a stream interrupted, a cancelled call). */
  action?: Action;
  status?: number;
  code?: string;
  retryAfterMs?: number;
  message: string;
}

/** What is known of a failed attempt, by the workflow (its activity failure) or a history reader (the event). */
export interface FailedAttemptFacts {
  /** The class the attempt raised (its `ApplicationFailure.type`), or that its timeout means. */
  class: FailureClass;
  status?: number;
  code?: string;
  retryAfterMs?: number;
  shouldRetry?: 'retry-same' | 'drop';
  message: string;
  /** A streamed attempt: how many of its deltas reached the stream before it failed. */
  deltasDelivered?: number;
  /**
   * The call continues a cut stream (`stream.onCut: 'continue'`): an attempt that delivered deltas keeps its own
   * class, and the plan decides as for any other failure (the next attempt continues the delivered text).
   */
  continueOnCut?: boolean;
  /** Nothing was sent: the tenant's envelope has no room for the attempt (see `Failure.overEnvelope`). */
  overEnvelope?: boolean;
}

/**
 * A failed attempt as the policy sees it (`failure`, for `decide`) and as its record says it (`record`), built
 * once for the workflow and the history reader. The stream-interrupted rule is here: an attempt any of whose
 * deltas reached the stream is `StreamInterrupted` whatever it raised (the first row of `classify`'s table), its
 * record names the original class in the message, and no retry-after is kept (nothing follows it). A call that
 * continues cut streams has no such rule: the cut is classified by what cut it.
 */
export function failedAttempt(facts: FailedAttemptFacts): { failure: Failure; record: RecordedFailure } {
  const deltas = facts.deltasDelivered ?? 0;
  if (
    facts.continueOnCut !== true &&
    classify({ deltasDelivered: deltas }) === FailureClass.StreamInterrupted
  ) {
    return {
      failure: { class: FailureClass.StreamInterrupted },
      record: {
        class: FailureClass.StreamInterrupted,
        ...defined({ status: facts.status, code: facts.code }),
        message: `${facts.class} after ${deltas} streamed deltas: ${facts.message}`,
      },
    };
  }
  const failure: Failure = { class: facts.class };
  if (facts.retryAfterMs !== undefined) failure.retryAfterMs = facts.retryAfterMs;
  if (facts.shouldRetry !== undefined) failure.shouldRetry = facts.shouldRetry;
  if (facts.overEnvelope === true) failure.overEnvelope = facts.message;
  return {
    failure,
    record: {
      class: facts.class,
      ...defined({ status: facts.status, code: facts.code, retryAfterMs: facts.retryAfterMs }),
      message: facts.message,
    },
  };
}

/**
 * The facts of an attempt that raised the `ApplicationFailure` `type` with `details` (its class facts): the
 * workflow reads them from the failure it caught, the history reader from the `ActivityTaskFailed` event, through
 * this one function. A type that is no failure class is `Unknown`.
 */
export function raisedFacts(
  type: string | null | undefined,
  details: {
    status?: number;
    code?: string;
    retryAfterMs?: number;
    shouldRetry?: 'retry-same' | 'drop';
    message?: string;
    overEnvelope?: boolean;
  },
  fallbackMessage: string,
): FailedAttemptFacts {
  return {
    class: isFailureClass(type) ? type : FailureClass.Unknown,
    ...defined({
      status: details.status,
      code: details.code,
      retryAfterMs: details.retryAfterMs,
      shouldRetry: details.shouldRetry,
      overEnvelope: details.overEnvelope === true ? true : undefined,
    }),
    message: details.message ?? fallbackMessage,
  };
}

function defined<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
