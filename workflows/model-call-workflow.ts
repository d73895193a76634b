import { registerModelCallQueries } from './call-log.js';
import type { ModelCallInput, ModelCallResult } from './call-types.js';
import { callModel } from './model-call.js';

/** A workflow that is one durable model call, answering the `attempts` and `status` queries. */
export async function modelCallWorkflow(input: ModelCallInput): Promise<ModelCallResult> {
  registerModelCallQueries();
  return callModel(input);
}
