/**
 * model-retry/workflows: the workflow-safe entry. Everything here runs inside Temporal's deterministic sandbox.
 */
export { harnessWorkflow } from './harness.js';
export type { HarnessInput, HarnessResult } from './harness.js';
export { callModel, HEARTBEAT_TIMEOUT_MS } from './model-call.js';
export { modelCallWorkflow } from './model-call-workflow.js';
export {
  attemptsQuery,
  statusQuery,
  registerModelCallQueries,
  callCount,
  resumeCallCount,
} from './call-log.js';
export { backendsOf, messagesOf, validateCallInput, InvalidModelCallInputError } from './call-input.js';
export * from './call-types.js';
export * from './search-attributes.js';
