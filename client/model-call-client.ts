import { randomUUID } from 'node:crypto';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { validatePlan } from '../policy/index.js';
import { validateCallInput } from '../workflows/call-input.js';
import type { ModelCallInput } from '../workflows/call-types.js';
import { modelCallWorkflow } from '../workflows/model-call-workflow.js';

export interface StartModelCallOptions {
  taskQueue: string;
  /** @default `model-call-<uuid>` */
  workflowId?: string;
}

/**
 * Starts a durable model call (`modelCallWorkflow`) after checking its input and retry plan here, so bad input
 * is refused before anything starts: throws `InvalidModelCallInputError` or `InvalidRetryPlanError`, whose
 * messages name the field and the fix.
 */
export async function startModelCall(
  client: Client,
  input: ModelCallInput,
  options: StartModelCallOptions,
): Promise<WorkflowHandle<typeof modelCallWorkflow>> {
  checkModelCall(input);
  return client.workflow.start(modelCallWorkflow, {
    taskQueue: options.taskQueue,
    workflowId: options.workflowId ?? `model-call-${randomUUID()}`,
    args: [input],
  });
}

/** Checks a call's input and plan as of now, as `startModelCall` does; throws on the first problem. */
export function checkModelCall(input: unknown, nowMs = Date.now()): asserts input is ModelCallInput {
  validateCallInput(input);
  validatePlan(input.retry, { nowMs, chainStartMs: nowMs, atSubmission: true });
}
