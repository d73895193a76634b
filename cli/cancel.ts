import { WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { UsageError, parseCommandArgs } from './args.js';
import { closedOutcome, summaryLine } from './call-outcome.js';
import type { CallOutcome } from './call-outcome.js';
import { CANCEL_HELP } from './help.js';
import { messageOf, openSession, pause, say } from './session.js';

/** How long `cancel` waits for the workflow to close after asking, unless `--timeout` says otherwise. */
export const DEFAULT_CANCEL_TIMEOUT_MS = 30_000;

/**
 * `model-retry cancel WORKFLOW_ID [--timeout MS] [--json]`: asks Temporal to cancel the call (the wait ends or the
 * request in flight is aborted), waits until the workflow has closed and prints the outcome. Exit 0 when it
 * closed cancelled or had already closed; 1 when it closed otherwise after the request (it ended first);
 * 2 for an unknown id; 3 when it has not closed within the timeout (the cancellation stays requested).
 */
export async function runCancelCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('cancel', args, {
    timeout: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    process.stdout.write(CANCEL_HELP);
    return 0;
  }
  const [workflowId, ...extra] = positionals;
  if (workflowId === undefined || workflowId.trim() === '' || extra.length > 0) {
    throw new UsageError('give exactly one workflow id: `model-retry cancel WORKFLOW_ID`.');
  }
  const timeoutMs = values.timeout === undefined ? DEFAULT_CANCEL_TIMEOUT_MS : Number(values.timeout);
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
    throw new UsageError(
      `\`--timeout\` must be a number of milliseconds, not ${JSON.stringify(values.timeout)}.`,
    );
  }
  const json = values.json === true;
  const session = await openSession();
  let requested = false;
  try {
    const handle = session.client.workflow.getHandle(workflowId);
    let description;
    try {
      description = await handle.describe();
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      say(
        `there is no workflow with id ${workflowId} in namespace ${session.namespace} (at ${session.address}): ` +
          'check the id and TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE. Nothing was cancelled.',
      );
      return 2;
    }
    if (description.status.name !== 'RUNNING') {
      const outcome = await closedOutcome(handle);
      say(`${workflowId} had already closed (${description.status.name}); nothing to cancel`);
      print(outcome, json);
      return 0;
    }
    await handle.cancel();
    requested = true;
    if (!json) say(`cancellation of ${workflowId} requested; waiting up to ${timeoutMs} ms for it to close`);
    const outcome = await closeWithin(handle, timeoutMs);
    if (outcome === undefined) {
      say(
        `${workflowId} has not closed within ${timeoutMs} ms. The cancellation is recorded and takes effect when a ` +
          `worker polls task queue "${description.taskQueue}" (model-retry worker --task-queue ${description.taskQueue}).`,
      );
      return 3;
    }
    print(outcome, json);
    if (outcome.status === 'cancelled') return 0;
    say(`${workflowId} ended (${outcome.status}) before the cancellation took effect`);
    return 1;
  } catch (error) {
    if (!requested) {
      say(`cannot cancel ${workflowId}: ${messageOf(error)}`);
      return 1;
    }
    say(`cancellation of ${workflowId} was requested, but its outcome cannot be read: ${messageOf(error)}`);
    return 3;
  } finally {
    await session.close();
  }
}

async function closeWithin(handle: WorkflowHandle, timeoutMs: number): Promise<CallOutcome | undefined> {
  const end = Date.now() + timeoutMs;
  const never = new AbortController().signal;
  for (;;) {
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') return closedOutcome(handle);
    if (Date.now() >= end) return undefined;
    await pause(250, never);
  }
}

function print(outcome: CallOutcome | undefined, json: boolean): void {
  if (outcome === undefined) return;
  if (json) process.stdout.write(`${JSON.stringify(outcome)}\n`);
  else say(summaryLine(outcome));
}
