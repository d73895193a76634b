/** Sending to a backend's health workflow: signal-with-start, so the first worker to report starts it. */
import type { Client } from '@temporalio/client';
import { HEALTH_PRIORITY_KEY, HEALTH_WORKFLOW_TYPE, healthWorkflowId } from '../../common/health.js';
import type { HealthInput } from '../../common/health.js';
import type { Entry } from './backend-entry.js';

/** Sends `signal` with `arg` to `entry`'s health workflow, starting it (with the entry's settings) if need be. */
export async function signalHealth(
  client: Client,
  entry: Entry,
  signal: string,
  arg: unknown,
): Promise<void> {
  const input: HealthInput = {
    taskQueue: entry.taskQueue,
    backend: entry.backend,
    settings: entry.settings,
  };
  await client.workflow.signalWithStart(HEALTH_WORKFLOW_TYPE, {
    workflowId: healthWorkflowId(entry.taskQueue, entry.backend),
    taskQueue: entry.taskQueue,
    args: [input],
    signal,
    signalArgs: [arg],
    // Ahead of the calls' workflow tasks where the server orders by priority (see HEALTH_PRIORITY_KEY).
    priority: { priorityKey: HEALTH_PRIORITY_KEY },
    staticSummary: `fleet health of ${entry.backend} on ${entry.taskQueue}`,
    staticDetails:
      'The breaker of one backend (closed / open / half-open): see current details, or `model-retry health`.',
  });
}
