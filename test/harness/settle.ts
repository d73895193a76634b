import { WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';

/**
 * Waits for a workflow's end: its result, or the `ApplicationFailure` it failed with (`ModelCallFailed` and the
 * like). Anything else (a cancellation, a timeout) is rethrown for the test to see.
 */
export async function settle<R>(
  handle: Pick<WorkflowHandle, 'result'> & { result(): Promise<R> },
): Promise<{ result?: R; failure?: ApplicationFailure }> {
  try {
    return { result: await handle.result() };
  } catch (error) {
    if (!(error instanceof WorkflowFailedError) || !(error.cause instanceof ApplicationFailure)) throw error;
    return { failure: error.cause };
  }
}
