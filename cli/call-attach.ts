import { WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { ModelCallInput } from '../common/call.js';
import { firstPayload } from '../client/history-events.js';
import { fetchDecodedHistory } from '../client/decode-history.js';
import { readCallHistory } from '../client/history-reader.js';
import { outcomeOf } from './call-outcome.js';
import type { CallOutcome } from './call-outcome.js';
import { messageOf } from './session.js';
import type { Session } from './session.js';

/** A call to follow, the outcome of one that has ended, or an exit code (the reason already printed). */
export type Started = { handle: WorkflowHandle; taskQueue: string } | { outcome: CallOutcome } | number;

const say = (line: string) => process.stderr.write(`model-retry: ${line}\n`);

/**
 * The call with this workflow id: a running one to follow, or the recorded outcome of one that has ended (read
 * from its history; nothing new starts). Exit 2 when there is no such model call, 3 when it cannot be read.
 * With `input`, warns when the existing call was started with other input (the existing call is what counts).
 */
export async function attachToCall(
  session: Session,
  workflowId: string,
  input?: ModelCallInput,
): Promise<Started> {
  const handle = session.client.workflow.getHandle(workflowId);
  try {
    const description = await handle.describe();
    if (description.type !== 'modelCallWorkflow') {
      say(
        `workflow id ${workflowId} belongs to a "${description.type}" workflow, not a model call: ` +
          'choose another `--workflow-id`.',
      );
      return 2;
    }
    const history = await fetchDecodedHistory(handle);
    if (input !== undefined && !sameJson(startInput(history), input)) {
      say(
        `call ${workflowId} was started with other input (model, prompt or plan) than these flags; ` +
          'this is that call, as it was started. For a new call, use a new `--workflow-id` (or none).',
      );
    }
    const outcome = outcomeOf(workflowId, readCallHistory(history));
    if (outcome) return { outcome };
    say(
      `call ${workflowId} is already running (since ${description.startTime.toISOString()}); attaching to it`,
    );
    return { handle, taskQueue: description.taskQueue };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) {
      say(
        `there is no call with workflow id ${workflowId} in namespace ${session.namespace} (at ${session.address}): ` +
          'check the id and TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE, or give `--model` and `--prompt` to start it.',
      );
      return 2;
    }
    say(
      `cannot read call ${workflowId} (${messageOf(error)}); it may be running. ` +
        `Run \`model-retry call --workflow-id ${workflowId}\` again to attach.`,
    );
    return 3;
  }
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
