/**
 * model-retry's pure retry policy: failure classes, actions, the retry plan and its validation, waits,
 * the deadline rule and `decide`. No Temporal, no clock, no randomness of its own, no I/O: workflows call
 * it deterministically and activities read the class names from it.
 *
 * The names below are the policy's public surface; helpers used only inside model-retry are imported from their
 * modules directly.
 * @module model-retry/policy
 */
export {
  ACTIONS,
  Action,
  DEFAULT_ACTIONS,
  FAILURE_CLASSES,
  FailureClass,
  STOP_REASON_PRECEDENCE,
  StopReason,
  firstStopReason,
  isAction,
  isFailureClass,
  isStopReason,
} from './classes.js';
export type { OverridableClass } from './classes.js';
export { ObservedPhase, ObservedTimeoutType } from './observation.js';
export type { Observation } from './observation.js';
export { classify, isCancellation, isDeadlineTimeout, shouldRetryHeader } from './classify.js';
export { parseRetryAfter } from './retry-after.js';
export { failureOf } from './failure.js';
export type { Failure } from './failure.js';
export {
  MAX_ATTEMPTS_LIMIT,
  MAX_HISTORY_LIMIT,
  MAX_PLAN_MS,
  MB,
  PLAN_DEFAULTS,
  TEMPORAL_LIMITS,
  noRetryPlan,
} from './plan.js';
export type {
  BackoffPlan,
  HistoryLimitPlan,
  ResolvedPlan,
  RetryAfterPlan,
  RetryOption,
  RetryPlan,
} from './plan.js';
export { InvalidRetryPlanError } from './invalid-plan.js';
export type { PlanProblem } from './invalid-plan.js';
export { validatePlan } from './validate-plan.js';
export type { PlanContext } from './validate-plan.js';
export { backoffWait, plannedWait } from './waits.js';
export type { RandomSource } from './waits.js';
export {
  START_TO_CLOSE_GRACE_MS,
  attemptTimeoutMs,
  fitsDeadline,
  scheduleToCloseMs,
  spendUntilMs,
  startToCloseMs,
} from './deadline.js';
export { initialState, remainingBackends } from './state.js';
export type { CallState } from './state.js';
export type { ActionSource, AttemptDecision, Decision, StopDecision } from './decision.js';
export { decide, startDecision } from './decide.js';
export type { RunOutlook } from './decide.js';
export { DEFAULT_REPAIRS, MAX_REPAIRS } from './repair.js';
export { parseHttpDate, parseIsoInstant } from './time.js';
export {
  ATTEMPT_OVERHEAD,
  ATTEMPT_ROOM_BYTES,
  historyGrowth,
  historyLimitStop,
  inlinePayloadLimitStop,
  nextAttemptGrowth,
  payloadLimitStop,
  turnNearHistoryLimit,
} from './history-limit.js';
export type { HistoryOutlook, HistorySize } from './history-limit.js';
export {
  AFTER_ATTEMPT_QUESTIONS,
  BEFORE_STEP_QUESTIONS,
  stopAfterAttempt,
  stopBeforeStep,
} from './stop-order.js';
export type { AfterAttemptFacts, BeforeStepFacts } from './stop-order.js';
export { timeoutFacts, timeoutTypeOf } from './timeout-class.js';
export type { TimeoutFacts } from './timeout-class.js';
export { failedAttempt, raisedFacts } from './record-failure.js';
export type { FailedAttemptFacts, RecordedFailure } from './record-failure.js';
export { afterAttempt, beforeAttempt, cancelledStop } from './stop-rules.js';
export type { AttemptEnd, DecisionContext } from './stop-rules.js';
export type { SharedNotBefore } from './shared-not-before.js';
export {
  BUDGET_FIELDS,
  NOTHING_SPENT,
  PRICING_FIELDS,
  addSpent,
  attemptSpent,
  budgetStop,
  needsPricing,
  correctionTokens,
  largestOutput,
  mayHaveBilled,
  pricedCost,
  spentSoFar,
  worstCase,
} from './budget.js';
export type { AddedInput, Budget, BudgetAttempt, BudgetOutlook, Pricing, Spent } from './budget.js';
export { budgetProblems, pricingProblems } from './budget-fields.js';
export {
  envelopeView,
  initialLedger,
  limitsSpend,
  nextPeriodStart,
  NO_AMOUNT,
  periodStartOf,
  renewsAt,
  rollover,
  usedOf,
} from './envelope.js';
export { grantLease, observe, resetLedger, sameEnvelope, setEnvelope, settle } from './envelope-lease.js';
export type {
  Amount,
  Disagreement,
  Lease,
  LeaseAnswer,
  LeaseRequest,
  Observed,
  ProviderCap,
  Settlement,
  SpendEntry,
  TenantEnvelope,
  TenantLedgerState,
  TenantPeriod,
} from './envelope.js';
export type { FieldProblem } from './budget-fields.js';
export {
  DEFAULT_BREAKER,
  TRANSIENT_CLASSES,
  admission,
  atTime,
  claimProbe,
  initialBreaker,
  RECENT,
  recordOutcome,
  resetBreaker,
} from './breaker.js';
export type { Admission, AttemptOutcome, Breaker, BreakerPhase, BreakerSettings, Probe } from './breaker.js';
export { COOLING_JITTER_MS } from './cooling.js';
export { rateLimitResetMs, remainingTokens } from './rate-limit-reset.js';
