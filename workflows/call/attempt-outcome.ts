import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  CancelledFailure,
  TimeoutFailure,
} from '@temporalio/workflow';
import { classify, isCancellation, isDeadlineTimeout, isFailureClass } from '../../policy/index.js';
import type { Failure, FailureClass, Observation } from '../../policy/index.js';
import type { AttemptFailureDetails, AttemptHeartbeat, Usage } from '../../common/attempt.js';

/** How a failed attempt ended, as the workflow sees it. */
export type AttemptOutcome =
  | { kind: 'cancelled'; startedAt?: string; endedAt?: string }
  | {
      kind: 'failed';
      failure: Failure;
      status?: number;
      code?: string;
      message: string;
      startedAt?: string;
      endedAt?: string;
      usage?: Usage;
      /** Temporal's schedule-to-close timeout fired: the deadline (less the reserve) was reached. */
      deadlineReached: boolean;
      /** What the attempt's worker knew of the search attributes (see `ModelRequestResult`). */
      searchAttributesReady?: boolean;
    };

const TIMEOUT_MESSAGES: Record<string, string> = {
  HEARTBEAT: 'no heartbeat from the worker running the attempt: it was lost',
  START_TO_CLOSE: 'the attempt did not finish within its start-to-close timeout',
  SCHEDULE_TO_CLOSE: 'the deadline (less the reserve) was reached during the attempt',
  SCHEDULE_TO_START: 'no worker picked up the attempt in time',
};

/**
 * What an attempt's activity failure means: a cancellation of this workflow's own scope (the host cancelled),
 * or a failure with its class. The class comes from the activity's `ApplicationFailure` type and details, or
 * from the Temporal timeout type. Message text is never read for this.
 */
export function outcomeOf(error: unknown): AttemptOutcome {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  const ownScopeCancelled = CancellationScope.current().consideredCancelled;
  if (cause instanceof CancelledFailure) {
    const details = cause.details[0] as Partial<AttemptFailureDetails> | undefined;
    const times = { startedAt: details?.startedAt, endedAt: details?.endedAt };
    if (isCancellation({ ownScopeCancelled })) return { kind: 'cancelled', ...definedOnly(times) };
    return failed('Unknown', {}, 'the attempt was cancelled although the call was not', times);
  }
  if (cause instanceof TimeoutFailure) {
    const observation: Observation = cause.timeoutType ? { timeoutType: cause.timeoutType } : {};
    const heartbeat = cause.lastHeartbeatDetails as Partial<AttemptHeartbeat> | undefined;
    const outcome = failed(
      classify(observation),
      {},
      TIMEOUT_MESSAGES[cause.timeoutType ?? ''] ?? 'timed out',
      {
        startedAt: heartbeat?.startedAt,
      },
    );
    outcome.deadlineReached = isDeadlineTimeout(observation);
    return outcome;
  }
  if (cause instanceof ApplicationFailure) {
    const details = (cause.details?.[0] ?? {}) as Partial<AttemptFailureDetails>;
    const cls: FailureClass = isFailureClass(cause.type) ? cause.type : 'Unknown';
    const outcome = failed(cls, details, details.message ?? cause.message, details);
    if (details.usage) outcome.usage = details.usage;
    if (typeof details.searchAttributesReady === 'boolean')
      outcome.searchAttributesReady = details.searchAttributesReady;
    return outcome;
  }
  return failed('Unknown', {}, 'the attempt failed in an unexpected way', {});
}

function failed(
  cls: FailureClass,
  facts: Partial<AttemptFailureDetails>,
  message: string,
  times: { startedAt?: string | undefined; endedAt?: string | undefined },
): Extract<AttemptOutcome, { kind: 'failed' }> {
  const failure: Failure = { class: cls };
  if (facts.retryAfterMs !== undefined) failure.retryAfterMs = facts.retryAfterMs;
  if (facts.shouldRetry !== undefined) failure.shouldRetry = facts.shouldRetry;
  return {
    kind: 'failed',
    failure,
    ...definedOnly({ status: facts.status, code: facts.code }),
    message,
    ...definedOnly(times),
    deadlineReached: false,
  };
}

function definedOnly<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
