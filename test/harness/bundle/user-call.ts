import { callModel } from '../../../workflows/index.js';
import type { ModelCallInput, ModelCallResult } from '../../../workflows/index.js';

/**
 * Bench only: a user's own workflow that makes one durable model call with `callModel` (model-retry as a
 * library inside someone else's workflow, where `modelCallWorkflow` is model-retry's workflow a client starts).
 */
export async function userCallWorkflow(input: ModelCallInput): Promise<ModelCallResult> {
  return callModel(input);
}
