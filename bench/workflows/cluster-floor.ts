import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ModelRequestResult } from '../../common/attempt.js';
import type { ModelRequestActivities } from '../../common/attempt-activity.js';

/** What the floor workflow is asked: the model and the prompt of the call it stands beside. */
export interface ClusterFloorInput {
  /** `provider:model`. */
  model: string;
  prompt: string;
  timeoutMs: number;
}

/**
 * Bench only: the platform's floor for a call that answers at once. A plain workflow that calls ONE plain
 * activity, model-retry's own `modelRequest` (the same HTTP request, through the same code, to the same loopback
 * provider), with no plan, no search attributes, no retry: what Temporal costs for one activity, nothing of ours
 * on top. The model-retry worker process already registers `modelRequest`, so no other worker is needed.
 */
export async function clusterFloorWorkflow(input: ClusterFloorInput): Promise<ModelRequestResult> {
  const { modelRequest } = proxyActivities<ModelRequestActivities>({
    activityId: 'c1.1',
    startToCloseTimeout: input.timeoutMs + 5000,
    heartbeatTimeout: 10_000,
    retry: { maximumAttempts: 1 },
  });
  return modelRequest({
    workflowId: workflowInfo().workflowId,
    callId: 'c1',
    attempt: 1,
    modelCallId: 'c1.1',
    backend: 0,
    model: input.model,
    messages: [{ role: 'user', content: input.prompt }],
    timeoutMs: input.timeoutMs,
  });
}
