/**
 * model-retry/workflows: the workflow-safe entry. Everything here runs inside Temporal's deterministic sandbox.
 */
export { callModel, HEARTBEAT_TIMEOUT_MS } from './call/model-call.js';
export { modelCallWorkflow } from './call/model-call-workflow.js';
export { attemptsQuery, statusQuery, turnStatusQuery, extendDeadlineUpdate } from '../common/queries.js';
export type { ExtendDeadlineRequest } from '../common/queries.js';
export { registerModelCallQueries, callCount, resumeCallCount } from './call/call-log.js';
export {
  backendsOf,
  messagesOf,
  validateCallInput,
  InvalidModelCallInputError,
} from '../common/call-input/call-input.js';
export * from '../common/call.js';
export * from '../common/search-attributes.js';
export { agentTurnWorkflow } from './turn/agent-turn.js';
export { rerunWorkflow } from './rerun/rerun-workflow.js';
export {
  validateTurnInput,
  turnPlan,
  turnMessages,
  jsonBytes,
  InvalidAgentTurnInputError,
  MAX_TURN_PAYLOAD_BYTES,
  DEFAULT_MAX_STEPS,
  MAX_STEPS_LIMIT,
} from '../common/turn-input.js';
export { toolActivityId } from './turn/turn-tools.js';
export * from '../common/turn.js';
export type { CallModelOptions } from './call/model-call.js';
export type { SharedNotBefore } from '../policy/shared-not-before.js';
export { workflowStream } from './stream.js';
export { streamOf, outputOf } from '../common/call-input/call-input.js';
export type { CheckedOutput } from '../common/call-input/call-output.js';
export * from '../common/stream.js';
export {
  modelRetryHealthWorkflow,
  healthOutcomesSignal,
  healthClaimSignal,
  healthResetSignal,
  healthQuery,
  HEALTH_MEMO_KEY,
} from './health/health-workflow.js';
export * from '../common/health.js';
