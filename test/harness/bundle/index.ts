/**
 * The bench's workflow bundle: model-retry's own workflows, unchanged, plus the bench-only baselines: Temporal's
 * server-side retry (`serverRetryWorkflow`) and the floor (test/harness/floor/workflows.ts). Built once per bench run.
 */
export * from '../../../workflows/index.js';
export { serverRetryWorkflow } from './server-retry.js';
export type { ServerRetryInput } from './server-retry.js';
export { timerWorkflow } from './timer.js';
export {
  contractFloorTurnWorkflow,
  contractFloorWorkflow,
  floorCallWorkflow,
  floorPromptWorkflow,
  floorRetryWorkflow,
  floorTurnWorkflow,
} from '../floor/workflows.js';
export type {
  FloorCallInput,
  FloorPromptInput,
  FloorRetryInput,
  FloorTurnInput,
} from '../floor/workflows.js';
export { userCallWorkflow } from './user-call.js';
