/**
 * A failed attempt as Temporal sees it: a fresh, non-retryable `ApplicationFailure` whose `type` is the
 * failure class and whose `details[0]` is the {@link AttemptFailureDetails}. Fresh means no `cause`: the raw
 * error (its message, stack, request body) never reaches the event history.
 */
import { ApplicationFailure } from '@temporalio/activity';
import { ApplicationFailureCategory } from '@temporalio/common';
import { failureOf } from '../../policy/index.js';
import type { Observation } from '../../policy/index.js';
import type { AttemptFailureDetails } from '../../common/attempt.js';
import { boundedCode, boundedMessage } from '../scrub.js';

/** When the attempt started and ended (ISO). */
export interface AttemptTimes {
  startedAt: string;
  endedAt: string;
}

/** The code a record shows: the provider's code, else its error type, else the socket code; scrubbed, bounded. */
function codeOf(o: Observation, secrets: readonly string[]): string | undefined {
  const code = o.providerCode ?? o.providerType ?? o.socketCode;
  return code === undefined ? undefined : boundedCode(code, secrets);
}

/**
 * The details of a failed attempt: its class (by the policy's `classify`), the facts behind it, and a
 * scrubbed, bounded message. `nowMs` anchors an HTTP-date `retry-after`.
 */
export function failureDetails(
  observation: Observation,
  rawMessage: string,
  secrets: readonly string[],
  times: AttemptTimes,
  nowMs: number,
): AttemptFailureDetails {
  const failure = failureOf(observation, nowMs);
  const code = codeOf(observation, secrets);
  const message = boundedMessage(rawMessage, secrets) || failure.class;
  return {
    class: failure.class,
    ...(observation.status === undefined ? {} : { status: observation.status }),
    ...(code === undefined ? {} : { code }),
    ...(failure.retryAfterMs === undefined ? {} : { retryAfterMs: failure.retryAfterMs }),
    ...(failure.shouldRetry === undefined ? {} : { shouldRetry: failure.shouldRetry }),
    message,
    startedAt: times.startedAt,
    endedAt: times.endedAt,
  };
}

/**
 * The `ApplicationFailure` an attempt throws for these details: non-retryable, `type` = class, no cause.
 * Category BENIGN: a classified provider failure is an expected outcome that the workflow's plan handles and the
 * attempt records show, so the worker does not log it as a warning or count it as an activity error.
 */
export function attemptFailure(details: AttemptFailureDetails): ApplicationFailure {
  return ApplicationFailure.create({
    type: details.class,
    message: details.message,
    nonRetryable: true,
    details: [details],
    category: ApplicationFailureCategory.BENIGN,
  });
}
