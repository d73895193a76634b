/**
 * An attempt's time before it sends. Its request timeout counts from when the activity starts (it may have waited
 * in its backend's rate-limit queue), within the call's deadline; the wait for a `maxInFlight` slot counts toward
 * it. A request goes out only with at least the plan's `minAttemptMs` left: with less, the attempt sends nothing
 * and fails `CoolingDown` (not billed, not a transient failure, not reported to fleet health), as the workflow's
 * deadline rule would have refused to schedule it with that little time.
 */
import type { ModelRequestInput } from '../../common/attempt.js';
import type { ObservedError } from './classify-error.js';
import { NoSlotError } from './in-flight.js';
import type { InFlightLimits, Release } from './in-flight.js';

/** The request timeout of an attempt starting at `startMs`: T, within the call's deadline (`spendUntil`). */
export function requestTimeoutMs(input: ModelRequestInput, startMs: number): number {
  return Math.max(1, timeLeftMs(input, startMs));
}

/** T, within `spendUntil`, from `startMs`: may be 0 or less when the deadline has passed. */
function timeLeftMs(input: ModelRequestInput, startMs: number): number {
  if (input.spendUntil === undefined) return input.timeoutMs;
  return Math.min(input.timeoutMs, input.spendUntil - startMs);
}

/**
 * The least time a request is sent with: the plan's `minAttemptMs`, and never under 1 ms (an attempt scheduled
 * without the field, by a workflow of an older version, still never sends with no time at all).
 */
export function leastRequestMs(input: ModelRequestInput): number {
  return Math.max(1, input.minAttemptMs ?? 0);
}

/** An attempt that may send: its `maxInFlight` slots (give them back when it ends) and its request's time. */
export interface ClearToSend {
  release: Release;
  /** The request timeout as the attempt started (for its `ResponseTimeout` message). */
  timeoutMs: number;
  /** What is left of it now: the request's own timeout. At least {@link leastRequestMs}. */
  leftMs: number;
}

/**
 * Waits for the backend's `maxInFlight` slots (at once when it has none) for as long as a slot could still leave
 * {@link leastRequestMs}, then checks the time left. The observation of why nothing may be sent when there is
 * not enough time, before or after the wait, or no slot came.
 * @throws NoSlotError (`aborted`) when the activity was cancelled during the wait.
 */
export async function clearToSend(
  inFlight: InFlightLimits | undefined,
  input: ModelRequestInput,
  signal: AbortSignal,
  now: () => number,
): Promise<ClearToSend | ObservedError> {
  const from = now();
  const atStart = timeLeftMs(input, from);
  const least = leastRequestMs(input);
  if (atStart < least) return tooLate(atStart, least);
  let release: Release = () => undefined;
  if (inFlight !== undefined) {
    try {
      release = await inFlight.acquire(input.model, signal, atStart - least, input.tenant);
    } catch (error) {
      if (error instanceof NoSlotError && error.reason === 'aborted') throw error;
      return noSlot(error);
    }
  }
  const leftMs = atStart - (now() - from);
  if (leftMs < least) {
    release();
    return tooLate(leftMs, least);
  }
  return { release, timeoutMs: Math.max(1, atStart), leftMs };
}

/**
 * Less than `minAttemptMs` left once the attempt could send (it waited in its limit queues): nothing is sent.
 * `CoolingDown`, like a slot that never came: see
 * docs/decisions/fleet-health-limits/012-nothing-sent-is-cooling-down.md.
 */
function tooLate(leftMs: number, leastMs: number): ObservedError {
  return {
    observation: { coolingDown: true },
    message:
      `only ${Math.max(0, leftMs)} ms of the attempt's time were left when it could send (its timeout, within ` +
      `the call's deadline less reserveMs), less than minAttemptMs (${leastMs} ms): nothing was sent`,
  };
}

/**
 * No slot came while one could still leave `minAttemptMs`: nothing was sent, because this worker process already
 * has `maxInFlight` requests at the backend. Like an open backend, that says nothing of the provider and costs
 * nothing, so it is `CoolingDown` (advance; not billed; no trip), without a `retryAfterMs` (no one knows when a
 * slot frees): see
 * docs/decisions/fleet-health-limits/012-nothing-sent-is-cooling-down.md.
 */
function noSlot(error: unknown): ObservedError {
  if (error instanceof NoSlotError) {
    return {
      observation: { coolingDown: true },
      message: `${error.message} within the attempt's timeout: nothing was sent`,
    };
  }
  // Anything else is no news of the backend: not CoolingDown (which says the backend is open or has no slot),
  // but an error of its own (no observation: `Unknown`). Nothing was sent.
  const message = error instanceof Error ? error.message : String(error);
  return {
    observation: {},
    message: `the wait for a maxInFlight slot failed (nothing was sent): ${message}`,
  };
}
