/**
 * The bench's workflow bundle: model-retry's own workflows, unchanged, plus the bench-only baseline
 * `serverRetryWorkflow`. Built once per bench run.
 */
export * from '../../workflows/index.js';
export { serverRetryWorkflow } from './server-retry.js';
export type { ServerRetryInput } from './server-retry.js';
export { timerWorkflow } from './timer.js';
export { floorCallWorkflow, floorRetryWorkflow } from './floor.js';
export type { FloorCallInput, FloorRetryInput } from './floor.js';
export { userCallWorkflow } from './user-call.js';
export { floorPromptWorkflow, floorTurnWorkflow } from './floor-other.js';
export type { FloorPromptInput, FloorTurnInput } from './floor-other.js';
export { clusterFloorWorkflow } from './cluster-floor.js';
export type { ClusterFloorInput } from './cluster-floor.js';
