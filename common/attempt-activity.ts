import type { ModelRequestInput, ModelRequestResult } from './attempt.js';

/** The attempt activity's signature, for `proxyActivities` in workflows (types only cross into the sandbox). */
export interface ModelRequestActivities {
  modelRequest(input: ModelRequestInput): Promise<ModelRequestResult>;
}

/**
 * The local activity a workflow asks before it schedules an attempt on a backend's limit queue: how long this
 * worker's copy of fleet health has the backend still cooling (`undefined`: not cooling, or not watched). A
 * cooling backend's attempt then runs on the call's own queue with `held`, so it takes no rate token.
 */
export interface CoolingCheckActivities {
  backendCooling(model: string): Promise<number | undefined>;
}
