import type { ModelRequestInput, ModelRequestResult } from './attempt.js';

/** The attempt activity's signature, for `proxyActivities` in workflows (types only cross into the sandbox). */
export interface ModelRequestActivities {
  modelRequest(input: ModelRequestInput): Promise<ModelRequestResult>;
}
