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
export { agentTurnWorkflow } from './agent-turn.js';
export { turnStatusQuery, extendDeadlineUpdate } from './turn-state.js';
export type { ExtendDeadlineRequest } from './turn-state.js';
export {
  validateTurnInput,
  turnPlan,
  turnMessages,
  jsonBytes,
  InvalidAgentTurnInputError,
  MAX_TURN_PAYLOAD_BYTES,
  DEFAULT_MAX_STEPS,
  MAX_STEPS_LIMIT,
} from './turn-input.js';
export { toolActivityId } from './turn-tools.js';
export * from './turn-types.js';
export type { CallModelOptions } from './model-call.js';
export type { SharedNotBefore } from './turn-not-before.js';
export { workflowStream } from './stream.js';
export { streamOf } from './call-input.js';
export * from './stream-types.js';
