/**
 * model-retry/workflows: the workflow-safe entry. Everything here runs inside Temporal's deterministic sandbox:
 * `callModel` for a model call from your own workflow, the workflows a worker registers, the queries, signals and
 * updates a host sends them, and the shapes of their inputs and results.
 *
 * Temporal registers every function this entry exports as a workflow type, so it exports no helpers: model-retry's
 * own code imports those from their modules.
 * @module model-retry/workflows
 */
export { callModel } from './call/model-call.js';
export type { CallModelOptions } from './call/model-call.js';
export type { SharedNotBefore } from '../policy/shared-not-before.js';
export type { SpentBefore } from './call/budget-watch.js';
export type { CallMessage } from '../common/messages.js';
export type { Wire, WireEmbed, WireMessage, WireTool } from '../common/request.js';
export { modelCallWorkflow } from './call/model-call-workflow.js';
export { attemptsQuery, statusQuery } from '../common/queries.js';
export { registerModelCallQueries } from './call/call-log.js';
export { InvalidModelCallInputError } from '../common/call-input/call-input.js';
export type {
  AttemptFailure,
  AttemptRecord,
  BilledTotals,
  CallOutput,
  CallStatus,
  LastDecision,
  ModelCallFailedDetails,
  ModelCallInput,
  ModelCallResult,
  StructuredOutput,
} from '../common/call.js';
export { INVALID_MODEL_CALL_INPUT, INVALID_RETRY_PLAN, MODEL_CALL_FAILED } from '../common/call.js';
export {
  ATTEMPT_COUNT,
  CLASSES_MET,
  LAST_FAILURE_CLASS,
  MODELS_TRIED,
  SEARCH_ATTRIBUTES,
  STOP_REASON,
  TENANT,
} from '../common/search-attributes.js';
export { MAX_TENANT_BYTES } from '../common/call-input/tenant.js';
export { agentTurnWorkflow } from './turn/agent-turn.js';
export { turnStatusQuery, extendDeadlineUpdate } from '../common/queries.js';
export type { ExtendDeadlineRequest } from '../common/queries.js';
export {
  InvalidAgentTurnInputError,
  MAX_TURN_PAYLOAD_BYTES,
  DEFAULT_MAX_STEPS,
  MAX_STEPS_LIMIT,
} from '../common/turn-input.js';
export type {
  AgentTurnInput,
  AgentTurnPartial,
  AgentTurnResult,
  ToolStepRecord,
  TurnCarry,
  TurnEnd,
  TurnOmitted,
  TurnStatus,
  TurnStep,
} from '../common/turn.js';
export { INVALID_AGENT_TURN_INPUT, TURN_TOO_LARGE, TURN_TOOL_FATAL } from '../common/turn.js';
export { rerunWorkflow } from './rerun/rerun-workflow.js';
export { workflowStream } from './stream.js';
export type { StreamConfig, StreamDelta, StreamEvent, StreamOptions, StreamPart } from '../common/stream.js';
export {
  DEFAULT_STREAM_BATCH_MS,
  DELTA_TOPIC,
  EVENT_TOPIC,
  MAX_STREAM_BATCH_MS,
  MIN_STREAM_BATCH_MS,
  STREAM_PART_TYPES,
} from '../common/stream.js';
export { modelRetryHealthWorkflow, healthQuery, healthResetSignal } from './health/health-workflow.js';
export { HEALTH_WORKFLOW_TYPE, SEEN_KEEP_MS, healthWorkflowId } from '../common/health.js';
export type { BatchesSeen, HealthInput, HealthSnapshot } from '../common/health.js';
export {
  modelRetryTenantLedgerWorkflow,
  tenantLeaseUpdate,
  tenantQuery,
  tenantResetSignal,
  tenantSetSignal,
  tenantSettleSignal,
} from './tenant/ledger-workflow.js';
export { TENANT_LEDGER_WORKFLOW_TYPE } from '../common/tenants.js';
export type {
  LeaseAnswer,
  LeaseRequest,
  SettleBatch,
  TenantEnvelope,
  TenantLedgerInput,
  TenantSnapshot,
  TenantsConfig,
} from '../common/tenants.js';
