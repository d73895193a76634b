import { WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowExecutionDescription, WorkflowHandle } from '@temporalio/client';
import { messageOf, say } from './session.js';
import type { Session } from './session.js';

/** A run to follow, the outcome of one that has ended, or an exit code (the reason already printed). */
export type Started<O> = { handle: WorkflowHandle; taskQueue: string } | { outcome: O } | number;

/** What attaching to a call or a turn needs to know of it: its workflow type, its outcome, its messages. */
export interface AttachKind<O> {
  /** The workflow type the id must belong to (`modelCallWorkflow`, `agentTurnWorkflow`). */
  workflowType: string;
  /** How a refusal names it: `a model call`, `an agent turn`. */
  noun: string;
  /** The recorded outcome of the run, or `undefined` while it runs (may warn about it first). */
  outcome(handle: WorkflowHandle): Promise<O | undefined>;
  /** The line that says the run is already running and the CLI attaches to it. */
  running(description: WorkflowExecutionDescription): string;
  /** The line that says there is no run with this id (exit 2). */
  notFound(session: Session): string;
  /** The line that says the run cannot be read (exit 3), with the error's message. */
  unreadable(message: string): string;
}

/**
 * The run with this workflow id: a running one to follow, or the recorded outcome of one that has ended (read
 * from its history; nothing new starts). Exit 2 when there is no such run of this kind, 3 when it cannot be read.
 */
export async function attachTo<O>(
  session: Session,
  workflowId: string,
  kind: AttachKind<O>,
): Promise<Started<O>> {
  const handle = session.client.workflow.getHandle(workflowId);
  try {
    const description = await handle.describe();
    if (description.type !== kind.workflowType) {
      say(
        `workflow id ${workflowId} belongs to a "${description.type}" workflow, not ${kind.noun}: ` +
          'choose another `--workflow-id`.',
      );
      return 2;
    }
    const outcome = await kind.outcome(handle);
    if (outcome) return { outcome };
    say(kind.running(description));
    return { handle, taskQueue: description.taskQueue };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) {
      say(kind.notFound(session));
      return 2;
    }
    say(kind.unreadable(messageOf(error)));
    return 3;
  }
}
