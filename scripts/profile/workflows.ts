/**
 * The profile's workflow bundle: model-retry's workflows, a user's workflow calling `callModel`, and the floor
 * (a plain workflow calling one plain activity that sends the same AI SDK request). Not part of the product.
 */
import { proxyActivities } from '@temporalio/workflow';
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

/** A user's workflow making one `callModel` call. */
export async function userCallWorkflow(input: ModelCallInput): Promise<string> {
  const result = await callModel(input);
  return result.output.text;
}
