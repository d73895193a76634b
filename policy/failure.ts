import type { FailureClass } from './classes.js';
import { classify, shouldRetryHeader } from './classify.js';
import type { Observation } from './observation.js';
import { parseRetryAfter } from './retry-after.js';

/** What `decide` needs to know about a failed attempt. Plain JSON (it is an `ApplicationFailure`'s details). */
export interface Failure {
  /** The failure class. */
  class: FailureClass;
  /** The provider's retry-after in ms, when it sent one. */
  retryAfterMs?: number;
  /** The action named by an `x-should-retry` header, when it sent one. */
  shouldRetry?: 'retry-same' | 'drop';
  /**
   * Nothing was sent: the call's tenant has no room left in its envelope (what it says, naming the envelope and
   * when it renews). The call stops `budget`, whatever the class's action.
   */
  overEnvelope?: string;
}

/** A retry-after stated in the error body: whole, non-negative milliseconds, else none. */
function bodyRetryAfter(ms: number | undefined): number | undefined {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return undefined;
  return Math.min(Math.ceil(ms), Number.MAX_SAFE_INTEGER);
}

/** The failure facts of an observation: its class, its retry-after relative to `nowMs` (a header's, else the one its body stated), its `x-should-retry`. */
export function failureOf(o: Observation, nowMs: number): Failure {
  const failure: Failure = { class: classify(o) };
  const retryAfterMs = parseRetryAfter(o.headers, nowMs) ?? bodyRetryAfter(o.retryAfterMs);
  if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
  const shouldRetry = shouldRetryHeader(o.headers);
  if (shouldRetry !== undefined) failure.shouldRetry = shouldRetry;
  return failure;
}
