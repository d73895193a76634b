/**
 * Bench only: the platform's floor, what a Temporal user would write without model-retry, beside which the load
 * benchmarks measure model-retry. The activity (`floorModelRequest`, bench/activities/floor.ts) makes the same
 * request as model-retry's attempt; these workflows add nothing to it but Temporal's own parts.
 */
import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { ChatMessage, ModelRequestResult } from '../../common/attempt.js';
import type { FloorActivities } from '../activities/floor.js';

/** One model request of the floor. */
export interface FloorCallInput {
  /** `provider:model`. */
  model: string;
  messages: ChatMessage[];
  /** The request's timeout, ms (the activity's start-to-close adds 5 s, as model-retry's grace). */
  timeoutMs: number;
}

/** The floor's retry path: at most `waits.length` retries, the i-th after a durable timer of `waits[i]` ms. */
export interface FloorRetryInput extends FloorCallInput {
  waits: number[];
}

function request(input: FloorCallInput, attempt: number): Promise<ModelRequestResult> {
  const { floorModelRequest } = proxyActivities<FloorActivities>({
    startToCloseTimeout: input.timeoutMs + 5000,
    retry: { maximumAttempts: 1 },
  });
  return floorModelRequest({
    workflowId: workflowInfo().workflowId,
    requestId: `c1.${attempt}`,
    model: input.model,
    messages: input.messages,
    timeoutMs: input.timeoutMs,
  });
}

/** The floor of a call that answers: a plain workflow calling one plain activity. */
export async function floorCallWorkflow(input: FloorCallInput): Promise<ModelRequestResult> {
  return request(input, 1);
}

/**
 * The floor of the retry path: a plain workflow that calls the activity, and after a failure waits on a durable
 * timer and calls it again (the same waits as model-retry's plan), so each retry costs what Temporal itself needs
 * for it: the failure, a workflow task, the timer, a workflow task, the next activity.
 */
export async function floorRetryWorkflow(input: FloorRetryInput): Promise<ModelRequestResult> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await request(input, attempt);
    } catch (error) {
      const wait = input.waits[attempt - 1];
      if (wait === undefined) throw error;
      await sleep(wait);
    }
  }
}
