import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { isRefusal, messageOf } from './session.js';

/** The start options that make one workflow id one call or turn, ever. */
export interface OnceOptions {
  taskQueue: string;
  workflowId: string;
  workflowIdReusePolicy: 'REJECT_DUPLICATE';
  workflowIdConflictPolicy: 'FAIL';
}

/**
 * Starts a workflow under `workflowId` at most once, ever (a re-run attaches or reports, so a retrying host never
 * pays twice): `start` gets the options to start it with. With the id already in use, returns what `attach`
 * gives; when Temporal refused the start, exit code 1 (nothing started); when the answer was lost, exit code 3
 * with the command to run again.
 */
export async function startOnce<A>(
  where: { workflowId: string; taskQueue: string; what: 'call' | 'turn' },
  start: (options: OnceOptions) => Promise<WorkflowHandle>,
  attach: () => Promise<A>,
  say: (line: string) => void,
): Promise<{ handle: WorkflowHandle; taskQueue: string } | A | number> {
  const { workflowId, taskQueue, what } = where;
  try {
    const handle = await start({
      taskQueue,
      workflowId,
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
    });
    return { handle, taskQueue };
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return attach();
    if (isRefusal(error)) {
      say(`Temporal refused to start the ${what} (${messageOf(error)}); nothing was started.`);
      return 1;
    }
    say(
      `cannot tell whether ${what} ${workflowId} started (${messageOf(error)}). Run the same command with ` +
        `\`--workflow-id ${workflowId}\`: it attaches to the ${what} if it exists and starts it only if not.`,
    );
    return 3;
  }
}
