import { ApplicationFailure, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import {
  attemptTimeoutMs,
  decide,
  fitsDeadline,
  initialState,
  resolveAction,
  scheduleToCloseMs,
  startDecision,
  START_TO_CLOSE_GRACE_MS,
  validatePlan,
} from '../policy/index.js';
import type { Decision, ResolvedPlan } from '../policy/index.js';
import type {
  ModelRequestInput,
  ModelRequestResult,
  AttemptCause,
} from '../activities/model-request-types.js';
import type { ModelRequestActivities } from '../activities/model-request-activity-types.js';
import { outcomeOf } from './attempt-outcome.js';
import { inputFailure } from './input-failure.js';
import { nextCallId, openCallEntry } from './call-log.js';
import { attemptLine, billedTotals, iso, waitSummary } from './call-summary.js';
import { seededState, shareNotBefore, startWithNotBefore } from './turn-not-before.js';
import type { SharedNotBefore } from './turn-not-before.js';
import { backendsOf, InvalidModelCallInputError, messagesOf, validateCallInput } from './call-input.js';
import { INVALID_MODEL_CALL_INPUT, MODEL_CALL_FAILED } from './call-types.js';
import type {
  AttemptRecord,
  CallStatus,
  LastDecision,
  ModelCallFailedDetails,
  ModelCallInput,
  ModelCallResult,
} from './call-types.js';

/** Temporal notices a dead worker after this long without a heartbeat (the attempt heartbeats every second). */
export const HEARTBEAT_TIMEOUT_MS = 10_000;

/**
 * What a caller that runs several calls under one budget (an agent turn) shares with each call. Without
 * options, `callModel` behaves exactly as before.
 */
export interface CallModelOptions {
  /**
   * The resolved plan to use instead of `input.retry` (which is then ignored), e.g. an agent turn's, whose
   * absolute deadline and reserve all its calls share. It is read at every decision, so a later deadline set on
   * the same object (the turn's `extendDeadline`) counts from the call's next decision; an attempt already in
   * flight keeps the timeouts it was scheduled with.
   */
  plan?: ResolvedPlan;
  /**
   * Retry-after not-before times by model name, shared by every call given the same object: read when the call
   * starts (a backend still inside a retry-after is skipped, or waited for) and updated after every decision.
   */
  notBefore?: SharedNotBefore;
  /** Called once the call has its id, with its status and records, which the call keeps updating in place. */
  onStart?: (call: { callId: string; status: CallStatus; records: AttemptRecord[] }) => void;
}

/**
 * One durable model call, usable from any workflow: each attempt is an activity (`modelRequest`, activity id
 * `<callId>.<attempt>`, no Temporal retry), each wait a durable timer, and the retry plan decides what follows
 * a failure. Resolves with the answer and every attempt's record; a call that stops without an answer throws a
 * non-retryable `ApplicationFailure` of type `ModelCallFailed`. Cancelling the calling scope cancels the call:
 * the wait ends or the request is aborted, and the cancellation is rethrown unchanged.
 */
export async function callModel(
  input: ModelCallInput,
  options: CallModelOptions = {},
): Promise<ModelCallResult> {
  const { plan, backends, messages } = prepare(input, options.plan);
  const shared = options.notBefore;
  const callId = nextCallId();
  const status: CallStatus = {
    callId,
    state: 'attempting',
    attempt: 0,
    backend: 0,
    model: backends[0] as string,
    ...(plan.deadlineMs !== undefined ? { deadline: iso(plan.deadlineMs) } : {}),
  };
  const { records } = openCallEntry(status);
  options.onStart?.({ callId, status, records });
  let decision: Decision = shared
    ? startWithNotBefore(plan, seededState(backends, shared), Date.now())
    : startDecision(plan, initialState(backends.length), Date.now());
  if (shared) shareNotBefore(backends, decision.state, shared);
  let after: AttemptCause | undefined;
  for (;;) {
    if (decision.kind === 'stop') {
      status.state = 'stopped';
      status.stopReason = decision.reason;
      throw callFailed(callId, records, {
        reason: decision.reason,
        why: decision.why,
        ...actionOf(decision),
      });
    }
    if (decision.waitMs > 0) {
      status.state = 'waiting';
      status.waitingUntil = iso(Date.now() + decision.waitMs);
      try {
        const summary =
          records.length > 0
            ? waitSummary(decision.waitMs, records.at(-1))
            : `wait ${decision.waitMs} ms: every backend is inside a retry-after`;
        await sleep(decision.waitMs, { summary });
      } catch (error) {
        status.state = 'stopped';
        status.stopReason = 'cancelled';
        throw error;
      }
      delete status.waitingUntil;
      // Timers can fire late: the deadline rule is checked again before the attempt itself.
      if (!fitsDeadline(plan, Date.now(), 0)) {
        decision = {
          kind: 'stop',
          reason: 'deadline',
          ...actionOf(decision),
          why: 'the wait ended too late for another attempt before the deadline',
          state: decision.state,
        };
        continue;
      }
    }
    const state = decision.state;
    const model = backends[decision.backend] as string;
    const scheduledAt = Date.now();
    const record: AttemptRecord = {
      modelCallId: `${callId}.${state.attempts}`,
      callId,
      attempt: state.attempts,
      backend: decision.backend,
      model,
      startedAt: iso(scheduledAt),
      outcome: 'running',
    };
    records.push(record);
    Object.assign(status, { state: 'attempting', attempt: record.attempt, backend: record.backend, model });
    const request: ModelRequestInput = {
      workflowId: workflowInfo().workflowId,
      callId,
      attempt: record.attempt,
      modelCallId: record.modelCallId,
      backend: record.backend,
      model,
      messages,
      ...(input.tools ? { tools: input.tools } : {}),
      ...(input.settings ? { settings: input.settings } : {}),
      timeoutMs: attemptTimeoutMs(plan, scheduledAt),
      ...(after ? { after } : {}),
    };
    try {
      const result = await attempt(plan, request, scheduledAt);
      succeed(record, result);
      status.state = 'stopped';
      status.stopReason = 'succeeded';
      return resultOf(callId, record, result, records);
    } catch (error) {
      const outcome = outcomeOf(error);
      if (outcome.startedAt) record.startedAt = outcome.startedAt;
      record.endedAt = outcome.endedAt ?? iso(Date.now());
      if (outcome.kind === 'cancelled') {
        record.outcome = 'cancelled';
        status.state = 'stopped';
        status.stopReason = 'cancelled';
        throw error;
      }
      record.outcome = 'failed';
      record.failure = {
        class: outcome.failure.class,
        ...(outcome.status !== undefined ? { status: outcome.status } : {}),
        ...(outcome.code !== undefined ? { code: outcome.code } : {}),
        ...(outcome.failure.retryAfterMs !== undefined ? { retryAfterMs: outcome.failure.retryAfterMs } : {}),
        message: outcome.message,
      };
      if (outcome.usage) record.usage = outcome.usage;
      decision = outcome.deadlineReached
        ? deadlineStop(plan, outcome.failure, state)
        : decide(plan, state, outcome.failure, Date.now(), Math.random);
      if (shared) shareNotBefore(backends, decision.state, shared);
      if (decision.action !== undefined) record.failure.action = decision.action;
      if (decision.kind === 'attempt') {
        record.retryInMs = decision.waitMs;
        after = { action: decision.action ?? 'retry-same', retryInMs: decision.waitMs };
      }
    }
  }
}

function prepare(
  input: ModelCallInput,
  given: ResolvedPlan | undefined,
): {
  plan: ResolvedPlan;
  backends: string[];
  messages: ModelRequestInput['messages'];
} {
  try {
    validateCallInput(input);
    const plan =
      given ??
      validatePlan(input.retry, {
        nowMs: Date.now(),
        chainStartMs: workflowInfo().startTime.getTime(),
        atSubmission: false,
      });
    return { plan, backends: backendsOf(input), messages: messagesOf(input) };
  } catch (error) {
    throw inputFailure(error, InvalidModelCallInputError, INVALID_MODEL_CALL_INPUT);
  }
}

function attempt(
  plan: ResolvedPlan,
  request: ModelRequestInput,
  scheduledAt: number,
): Promise<ModelRequestResult> {
  const scheduleToClose = scheduleToCloseMs(plan, scheduledAt);
  const { modelRequest } = proxyActivities<ModelRequestActivities>({
    activityId: request.modelCallId,
    summary: `attempt ${request.attempt} · ${request.model}`,
    startToCloseTimeout: request.timeoutMs + START_TO_CLOSE_GRACE_MS,
    ...(scheduleToClose !== undefined ? { scheduleToCloseTimeout: scheduleToClose } : {}),
    heartbeatTimeout: HEARTBEAT_TIMEOUT_MS,
    retry: { maximumAttempts: 1 },
    cancellationType: 'WAIT_CANCELLATION_COMPLETED',
  });
  return modelRequest(request);
}

function succeed(record: AttemptRecord, result: ModelRequestResult): void {
  record.outcome = 'succeeded';
  record.startedAt = result.startedAt;
  record.endedAt = result.endedAt;
  if (result.usage) record.usage = result.usage;
  if (result.responseId !== undefined) record.responseId = result.responseId;
  if (result.provider !== undefined) record.provider = result.provider;
  if (result.cost !== undefined) record.cost = result.cost;
}

function resultOf(
  callId: string,
  record: AttemptRecord,
  result: ModelRequestResult,
  records: AttemptRecord[],
): ModelCallResult {
  return {
    callId,
    stopReason: 'succeeded',
    output: { text: result.text, toolCalls: result.toolCalls, finishReason: result.finishReason },
    model: record.model,
    backend: record.backend,
    ...(result.usage ? { usage: result.usage } : {}),
    ...(result.responseId !== undefined ? { responseId: result.responseId } : {}),
    attempts: records.map((r) => ({ ...r })),
    billed: billedTotals(records),
    lastDecision: { reason: 'succeeded', why: `attempt ${record.attempt} on ${record.model} answered` },
  };
}

function deadlineStop(
  plan: ResolvedPlan,
  failure: Parameters<typeof resolveAction>[1],
  state: Decision['state'],
): Decision {
  const action = resolveAction(plan, failure)?.action;
  return {
    kind: 'stop',
    reason: 'deadline',
    ...(action !== undefined ? { action } : {}),
    why: 'the deadline (less the reserve) was reached during the attempt',
    state,
  };
}

function actionOf(decision: Decision): Pick<LastDecision, 'action'> {
  return decision.action !== undefined ? { action: decision.action } : {};
}

function callFailed(callId: string, records: AttemptRecord[], last: LastDecision): ApplicationFailure {
  const count = records.length;
  const head = `model call ${callId} stopped (${last.reason}) after ${count} attempt${count === 1 ? '' : 's'}`;
  const details: ModelCallFailedDetails = {
    callId,
    stopReason: last.reason,
    attemptCount: count,
    lastDecision: last,
    attempts: records.slice(-20).map((r) => ({ ...r })),
    billed: billedTotals(records),
  };
  return ApplicationFailure.create({
    type: MODEL_CALL_FAILED,
    nonRetryable: true,
    message: [head + (count ? ':' : `: ${last.why}`), ...records.map(attemptLine)].join('\n'),
    details: [details],
  });
}
