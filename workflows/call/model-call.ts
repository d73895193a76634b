import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { WorkflowStream } from '@temporalio/workflow-streams/workflow';
import {
  attemptTimeoutMs,
  decide,
  fitsDeadline,
  initialState,
  scheduleToCloseMs,
  startDecision,
  START_TO_CLOSE_GRACE_MS,
  validatePlan,
} from '../../policy/index.js';
import type { Decision, ResolvedPlan } from '../../policy/index.js';
import type { ModelRequestInput, ModelRequestResult, AttemptCause } from '../../common/attempt.js';
import type { ModelRequestActivities } from '../../common/attempt-activity.js';
import { outcomeOf } from './attempt-outcome.js';
import { inputFailure } from './input-failure.js';
import { nextCallId, openCallEntry } from './call-log.js';
import { iso, succeed, waitSummary } from './call-summary.js';
import { actionOf, callFailed, deadlineStop, resultOf } from './call-result.js';
import { CallStream } from './call-stream.js';
import { noteSearchAttributesReady } from './call-stop.js';
import { seededState, shareNotBefore, startWithNotBefore } from '../turn/turn-not-before.js';
import type { SharedNotBefore } from '../turn/turn-not-before.js';
import {
  backendsOf,
  InvalidModelCallInputError,
  messagesOf,
  streamOf,
  toolsOf,
  validateCallInput,
} from './call-input.js';
import { INVALID_MODEL_CALL_INPUT } from '../../common/call.js';
import type { AttemptRecord, CallStatus, ModelCallInput, ModelCallResult } from '../../common/call.js';

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
  /**
   * The workflow's own `WorkflowStream`, when it made one: a streamed call publishes into it (a workflow has one
   * stream). Without it, the call uses the stream model-retry creates for the workflow (`workflowStream()`).
   */
  stream?: WorkflowStream;
}

/**
 * One durable model call, usable from any workflow: each attempt is an activity (`modelRequest`, activity id
 * `<callId>.<attempt>`, no Temporal retry), each wait a durable timer, and the retry plan decides what follows
 * a failure. Resolves with the answer and every attempt's record; a call that stops without an answer throws a
 * non-retryable `ApplicationFailure` of type `ModelCallFailed`. Cancelling the calling scope cancels the call:
 * the wait ends or the request is aborted, and the cancellation is rethrown unchanged.
 *
 * With `input.stream`, attempts stream: their text deltas reach the workflow's stream as they come, and a
 * failed attempt any of whose deltas is in the stream log stops the call `stream-interrupted` (never re-sent),
 * with the delivered text as `partialText`.
 */
export async function callModel(
  input: ModelCallInput,
  options: CallModelOptions = {},
): Promise<ModelCallResult> {
  const { plan, backends, messages, tools, stream: streaming } = prepare(input, options.plan);
  const shared = options.notBefore;
  const callId = nextCallId();
  const stream = new CallStream(callId, streaming, options.stream);
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
  let partialText: string | undefined;
  for (;;) {
    if (decision.kind === 'stop') {
      status.state = 'stopped';
      status.stopReason = decision.reason;
      stream.stopped(decision.reason, records.at(-1));
      throw callFailed(
        callId,
        records,
        { reason: decision.reason, why: decision.why, ...actionOf(decision) },
        partialText,
      );
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
        stream.stopped('cancelled', records.at(-1));
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
    stream.attemptStarted(record);
    Object.assign(status, { state: 'attempting', attempt: record.attempt, backend: record.backend, model });
    const request: ModelRequestInput = {
      workflowId: workflowInfo().workflowId,
      callId,
      attempt: record.attempt,
      modelCallId: record.modelCallId,
      backend: record.backend,
      model,
      messages,
      ...(tools ? { tools } : {}),
      ...(input.settings ? { settings: input.settings } : {}),
      timeoutMs: attemptTimeoutMs(plan, scheduledAt),
      ...(after ? { after } : {}),
      ...(stream.config ? { stream: stream.config } : {}),
    };
    try {
      const result = await attempt(plan, request, scheduledAt);
      noteSearchAttributesReady(result.searchAttributesReady);
      succeed(record, result);
      const delivered = stream.delivered(record);
      if (delivered) record.streamedDeltas = delivered.deltas;
      status.state = 'stopped';
      status.stopReason = 'succeeded';
      stream.stopped('succeeded', record);
      return resultOf(callId, record, result, records);
    } catch (error) {
      const outcome = outcomeOf(error);
      if (outcome.kind === 'failed') noteSearchAttributesReady(outcome.searchAttributesReady);
      if (outcome.startedAt) record.startedAt = outcome.startedAt;
      record.endedAt = outcome.endedAt ?? iso(Date.now());
      const delivered = stream.delivered(record);
      if (outcome.kind === 'cancelled') {
        record.outcome = 'cancelled';
        if (delivered) record.streamedDeltas = delivered.deltas;
        status.state = 'stopped';
        status.stopReason = 'cancelled';
        stream.stopped('cancelled', record);
        throw error;
      }
      if (delivered && delivered.deltas > 0) {
        // Part of the answer reached the caller: whatever the failure, it is not sent again.
        outcome.message = `${outcome.failure.class} after ${delivered.deltas} streamed deltas: ${outcome.message}`;
        outcome.failure = { class: 'StreamInterrupted' };
        outcome.deadlineReached = false;
        partialText = delivered.text;
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
      if (delivered) record.streamedDeltas = delivered.deltas;
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
  tools: ModelRequestInput['tools'];
  stream: { batchMs: number } | undefined;
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
    return {
      plan,
      backends: backendsOf(input),
      messages: messagesOf(input),
      // The AI SDK's record shape becomes our list here, so the attempt's input is plain JSON.
      tools: toolsOf(input.tools),
      stream: streamOf(input),
    };
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
