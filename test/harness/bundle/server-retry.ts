import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ModelRequestResult } from '../../../common/attempt.js';
import type { ServerRetryActivities } from '../server-retry-activities.js';

/** What the bench-only baseline is asked to do. */
export interface ServerRetryInput {
  /** `provider:model`. */
  model: string;
  prompt: string;
  /** Temporal's `maximumAttempts`: 1 is a plain activity call without retry. */
  maximumAttempts: number;
  /** The wait between attempts: `initialInterval` = `maximumInterval`, `backoffCoefficient` 1. */
  waitMs: number;
  /** The request timeout of each attempt, as model-retry gives it. */
  timeoutMs: number;
}

/**
 * Bench only: the alternative users weigh model-retry against. One activity call whose retries Temporal's server
 * schedules (`maximumAttempts` > 1, the same waits), so the history keeps only the last attempt. The activity
 * makes the same request as model-retry's `modelRequest` (it wraps it), to the same loopback provider.
 */
export async function serverRetryWorkflow(input: ServerRetryInput): Promise<ModelRequestResult> {
  const { retryingModelRequest } = proxyActivities<ServerRetryActivities>({
    activityId: 'server-retry',
    startToCloseTimeout: input.timeoutMs + 5000,
    heartbeatTimeout: 10_000,
    retry: {
      maximumAttempts: input.maximumAttempts,
      initialInterval: Math.max(1, input.waitMs),
      maximumInterval: Math.max(1, input.waitMs),
      backoffCoefficient: 1,
    },
  });
  return retryingModelRequest({
    workflowId: workflowInfo().workflowId,
    callId: 'c1',
    attempt: 1,
    modelCallId: 'c1.1',
    backend: 0,
    model: input.model,
    request: { spec: 1, prompt: [{ role: 'user', content: [{ type: 'text', text: input.prompt }] }] },
    timeoutMs: input.timeoutMs,
  });
}
