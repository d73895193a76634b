/**
 * The profile's workflow bundle: model-retry's workflows, a user's workflow calling `callModel`, and the floor
 * (a plain workflow calling one plain activity that sends the same AI SDK request). Not part of the product.
 */
import { proxyActivities, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { ATTEMPT_COUNT, MODELS_TRIED, STOP_REASON } from '../../common/search-attributes.js';
import { callModel } from '../../workflows/index.js';
import type { ModelCallInput } from '../../workflows/index.js';
import type { PlainActivities } from './activities.js';

export * from '../../workflows/index.js';

const { plainRequest } = proxyActivities<PlainActivities>({
  startToCloseTimeout: '1 minute',
  retry: { maximumAttempts: 1 },
});

/** The floor: one plain activity, no retry, the answer's text returned. */
export async function plainCallWorkflow(model: string, prompt: string): Promise<string> {
  return plainRequest(model, prompt);
}

const { plainConfig } = proxyLocalActivities<PlainActivities>({ startToCloseTimeout: '3 seconds' });

/**
 * The floor plus what the contract itself adds to a call that answers at once, and nothing of ours: the worker's
 * settings asked through a local activity at the start (a marker), and the stop's search attributes in one upsert.
 */
export async function contractFloorWorkflow(model: string, prompt: string): Promise<string> {
  await plainConfig();
  const text = await plainRequest(model, prompt);
  upsertSearchAttributes([
    { key: STOP_REASON, value: 'succeeded' },
    { key: ATTEMPT_COUNT, value: 1 },
    { key: MODELS_TRIED, value: [model] },
  ]);
  return text;
}

/** A user's workflow making one `callModel` call. */
export async function userCallWorkflow(input: ModelCallInput): Promise<string> {
  const result = await callModel(input);
  return result.output.text;
}
