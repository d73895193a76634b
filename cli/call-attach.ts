import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { ModelCallInput } from '../common/call.js';
import { firstPayload } from '../client/history-events.js';
import { fetchDecodedHistory } from '../client/decode-history.js';
import { readCallHistory } from '../client/history-reader.js';
import { attachTo } from './attach.js';
import type { Started } from './attach.js';
import { outcomeOf } from './call-outcome.js';
import type { CallOutcome } from './call-outcome.js';
import { say } from './session.js';
import type { Session } from './session.js';

/**
 * The call with this workflow id (`attachTo`): a running one to follow, or the recorded outcome of one that has
 * ended. With `input`, warns when the existing call was started with other input (the existing call is what
 * counts).
 */
export function attachToCall(
  session: Session,
  workflowId: string,
  input?: ModelCallInput,
): Promise<Started<CallOutcome>> {
  return attachTo(session, workflowId, {
    workflowType: 'modelCallWorkflow',
    noun: 'a model call',
    async outcome(handle: WorkflowHandle) {
      const history = await fetchDecodedHistory(handle);
      if (input !== undefined && !sameJson(startInput(history), input)) {
        say(
          `call ${workflowId} was started with other input (model, prompt or plan) than these flags; ` +
            'this is that call, as it was started. For a new call, use a new `--workflow-id` (or none).',
        );
      }
      return outcomeOf(workflowId, readCallHistory(history));
    },
    running: (description) =>
      `call ${workflowId} is already running (since ${description.startTime.toISOString()}); attaching to it`,
    notFound: ({ namespace, address }) =>
      `there is no call with workflow id ${workflowId} in namespace ${namespace} (at ${address}): ` +
      'check the id and TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE, or give `--model` and `--prompt` to start it.',
    unreadable: (message) =>
      `cannot read call ${workflowId} (${message}); it may be running. ` +
      `Run \`model-retry call --workflow-id ${workflowId}\` again to attach.`,
  });
}

function startInput(history: temporal.api.history.v1.IHistory): unknown {
  return firstPayload(history.events?.[0]?.workflowExecutionStartedEventAttributes?.input);
}

/** Equal as JSON, whatever the order of keys. */
function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, sorted(v)]),
  );
}
