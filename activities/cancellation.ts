/**
 * Telling the host's cancellation from a worker shutdown, with `@temporalio/activity` 1.23.
 *
 * Both reach the activity the same way: `Context.cancellationSignal` aborts with a `CancelledFailure`.
 * They differ in what comes with it:
 * - the workflow cancelled the attempt (its scope, or the whole workflow): `cancellationDetails.cancelRequested`
 *   and the reason `CANCELLED`;
 * - the worker is shutting down: either Core's cancel with reason `WORKER_SHUTDOWN` and
 *   `cancellationDetails.workerShutdown`, or the SDK's own cancel at shutdown, which sets the reason
 *   `WORKER_SHUTDOWN` with every detail flag false. So both the flag and the reason are read.
 * Other reasons (`TIMED_OUT`, `NOT_FOUND`, `PAUSED`, `RESET`) are Temporal's own business: the
 * `CancelledFailure` is rethrown and the SDK reports it as it should (a pause or reset becomes its own failure).
 */
import { CancelledFailure } from '@temporalio/activity';
import type { Context } from '@temporalio/activity';
import type { ActivityCancellationDetails } from '@temporalio/common';

/** The SDK's cancel reason for a worker shutdown (the `message` of its `CancelledFailure`). */
export const WORKER_SHUTDOWN_REASON = 'WORKER_SHUTDOWN';

/** Whether the activity's cancellation is the worker shutting down (never the host's cancellation). */
export function isWorkerShutdown(details: ActivityCancellationDetails | undefined, reason: unknown): boolean {
  return (
    details?.workerShutdown === true ||
    (reason instanceof CancelledFailure && reason.message === WORKER_SHUTDOWN_REASON)
  );
}

/** What the cancelled activity has to say: a shutdown, or the `CancelledFailure` to rethrow. */
export type CancellationOutcome =
  { kind: 'worker-shutdown' } | { kind: 'cancelled'; failure: CancelledFailure };

/** How the current activity was cancelled (call only once `ctx.cancellationSignal.aborted`). */
export function cancellationOutcome(ctx: Context): CancellationOutcome {
  const reason: unknown = ctx.cancellationSignal.reason;
  if (isWorkerShutdown(ctx.cancellationDetails, reason)) return { kind: 'worker-shutdown' };
  return {
    kind: 'cancelled',
    failure: reason instanceof CancelledFailure ? reason : new CancelledFailure('CANCELLED'),
  };
}
