import { registerModelCallQueries, runAttempts } from './call-log.js';
import { recordStop, stopReasonOf, trackClassesMet } from './call-stop.js';
import type { ModelCallInput, ModelCallResult } from '../../common/call.js';
import { callModel } from './model-call.js';
import { closeStream, workflowStream } from '../stream.js';

/**
 * A workflow that is one durable model call, answering the `attempts` and `status` queries, with a stream
 * subscribers can read from the start (deltas when `input.stream`, call events always). When the call stops
 * (answered, failed or cancelled) it sets the run's search attributes once (see `recordStop`); while it runs, it
 * keeps `ModelRetryClasses` current as it meets new failure classes (see `noteClassesMet`).
 */
export async function modelCallWorkflow(input: ModelCallInput): Promise<ModelCallResult> {
  registerModelCallQueries();
  trackClassesMet();
  workflowStream();
  let result: ModelCallResult;
  try {
    result = await callModel(input);
  } catch (error) {
    const reason = stopReasonOf(error);
    const recorded = reason ? recordStop(reason, runAttempts()) : undefined;
    if (recorded) await recorded;
    const closed = closeStream();
    if (closed) await closed;
    throw error;
  }
  // Both are usually done at once (`undefined`): awaited only when not, since every await is a promise the
  // sandbox takes a stack trace of. The commands are the same either way (part of the 6.4 % a replayed call
  // counted more with plain awaits: see `CallRun.wait`).
  const recorded = recordStop('succeeded', result.attempts);
  if (recorded) await recorded;
  const closed = closeStream();
  if (closed) await closed;
  return result;
}
