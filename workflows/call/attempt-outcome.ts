import { ActivityFailure, ApplicationFailure, CancelledFailure, TimeoutFailure } from '@temporalio/workflow';
import { isCancellation, raisedFacts, timeoutFacts } from '../../policy/index.js';
import type { FailedAttemptFacts } from '../../policy/index.js';
import type {
  AttemptFailureDetails,
  AttemptHeartbeat,
  ContinuationFacts,
  SchemaMismatchFacts,
  Usage,
} from '../../common/attempt.js';
import { isSearchAttributesReady } from '../../common/search-attributes.js';
import type { SearchAttributesReady } from '../../common/search-attributes.js';

/** When the attempt itself says it started and ended (absent: the workflow's own times are used). */
interface Times {
  startedAt?: string;
  endedAt?: string;
}

/** How a failed attempt ended, as the workflow sees it. */
export type AttemptOutcome =
  | ({ kind: 'cancelled' } & Times)
  | ({
      kind: 'failed';
      /** The facts its record and the policy are built from (`failedAttempt`), before the stream rule. */
      facts: FailedAttemptFacts;
      usage?: Usage;
      /** Temporal's schedule-to-close timeout fired: the deadline (less the reserve) was reached. */
      deadlineReached: boolean;
      /** What the attempt's worker knew of the search attributes (see `ModelRequestResult`). */
      searchAttributesReady?: SearchAttributesReady;
      /** A `SchemaMismatch`: the answer and the validator's errors, for the repair. */
      mismatch?: SchemaMismatchFacts;
      /** An attempt that answered and still failed: its answer's finish reason. */
      finishReason?: string;
      /** An attempt that continued a cut stream: how it asked. */
      continuation?: ContinuationFacts;
    } & Times);

/**
 * What an attempt's activity failure means: a cancellation of the calling scope (`ownScopeCancelled`: the host
 * cancelled), or a failure with its facts. The class comes from the activity's `ApplicationFailure` type and
 * details, or from the Temporal timeout type (`timeoutFacts`, the table the history reader uses too). Message
 * text is never read for this.
 */
export function outcomeOf(error: unknown, ownScopeCancelled: boolean): AttemptOutcome {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof CancelledFailure) {
    const details = cause.details[0] as Partial<AttemptFailureDetails> | undefined;
    const times = definedOnly({ startedAt: details?.startedAt, endedAt: details?.endedAt });
    if (isCancellation({ ownScopeCancelled })) return { kind: 'cancelled', ...times };
    return failed(
      { class: 'Unknown', message: 'the attempt was cancelled although the call was not' },
      times,
    );
  }
  if (cause instanceof TimeoutFailure) {
    const timeout = timeoutFacts(cause.timeoutType);
    const heartbeat = cause.lastHeartbeatDetails as Partial<AttemptHeartbeat> | undefined;
    const outcome = failed(
      { class: timeout.class, message: timeout.message },
      definedOnly({ startedAt: heartbeat?.startedAt }),
    );
    outcome.deadlineReached = timeout.deadlineReached;
    return outcome;
  }
  if (cause instanceof ApplicationFailure) {
    const details = (cause.details?.[0] ?? {}) as Partial<AttemptFailureDetails>;
    const outcome = failed(
      raisedFacts(cause.type, details, cause.message),
      definedOnly({ startedAt: details.startedAt, endedAt: details.endedAt }),
    );
    if (details.usage) outcome.usage = details.usage;
    if (details.mismatch) outcome.mismatch = details.mismatch;
    if (typeof details.finishReason === 'string') outcome.finishReason = details.finishReason;
    if (details.continuation) outcome.continuation = details.continuation;
    if (isSearchAttributesReady(details.searchAttributesReady))
      outcome.searchAttributesReady = details.searchAttributesReady;
    return outcome;
  }
  return failed({ class: 'Unknown', message: 'the attempt failed in an unexpected way' }, {});
}

function failed(facts: FailedAttemptFacts, times: Times): Extract<AttemptOutcome, { kind: 'failed' }> {
  return { kind: 'failed', facts, ...times, deadlineReached: false };
}

function definedOnly<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
