import type { temporal } from '@temporalio/proto';
import { failedAttempt, raisedFacts, timeoutFacts } from '../policy/index.js';
import type { Spent, StopReason } from '../policy/index.js';
import type {
  AttemptFailureDetails,
  AttemptHeartbeat,
  ModelRequestInput,
  ModelRequestResult,
} from '../common/attempt.js';
import type { AttemptRecord, LastDecision, ModelCallFailedDetails, ModelCallResult } from '../common/call.js';
import { MODEL_CALL_FAILED } from '../common/call.js';
import { charCount } from '../common/stream.js';
import { iso, parseCheckSummary, parseWaitSummary, succeed } from '../workflows/call/call-summary.js';
import { isAction } from '../policy/index.js';
import { firstPayload, HistoryIndex, idOf } from './history-events.js';
import { StreamDeliveries } from './history-stream.js';
import type { HistoryEvent } from './history-events.js';

const ATTEMPT_ACTIVITY = 'modelRequest';

/** What a history says about a run's model calls. */
export interface CallHistory {
  status: 'running' | 'succeeded' | 'failed' | 'cancelled' | 'terminated' | 'timed-out' | 'continued-as-new';
  /** The stop reason of the run's (last) call, when the run closed and it can be told. */
  stopReason?: StopReason;
  attempts: AttemptRecord[];
  /** The workflow's result when it completed (a `ModelCallResult` for `modelCallWorkflow`). */
  result?: unknown;
  /** The message of the workflow's failure, when it failed. */
  failureMessage?: string;
  /** A call that stopped `stream-interrupted`: the text that had reached the stream. */
  partialText?: string;
  /** A call with a budget: what it counted as spent (from its result or `ModelCallFailed` details). */
  spent?: Spent;
  /** Why the run's last call stopped, in words (its last decision), when the history says. */
  why?: string;
}

/**
 * Rebuilds every attempt record from the event history alone (no worker, no query): the attempt activities'
 * inputs, results, failures, timeouts and cancellations, and the decisions carried by the next attempt's input
 * and by the call's result or `ModelCallFailed` details. The records equal the workflow's own.
 */
export function readCallHistory(history: temporal.api.history.v1.IHistory): CallHistory {
  const index = new HistoryIndex(history.events ?? []);
  const attempts: AttemptRecord[] = [];
  const bySchedule = new Map<number, AttemptRecord>();
  const lastOfCall = new Map<string, AttemptRecord>();
  /** Streamed attempts, and whether their call continues cut streams. */
  const streamed = new Map<AttemptRecord, boolean>();
  const deliveries = new StreamDeliveries(index.events);
  for (const event of index.events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === ATTEMPT_ACTIVITY) {
      const input = firstPayload<ModelRequestInput>(scheduled.input);
      if (!input) continue;
      const previous = lastOfCall.get(input.callId);
      if (previous?.failure && input.after) {
        previous.failure.action = input.after.action;
        previous.retryInMs = input.after.retryInMs;
      }
      const scheduledAt = index.commandTime(event, scheduled.workflowTaskCompletedEventId) ?? 0;
      const record: AttemptRecord = {
        modelCallId: input.modelCallId,
        callId: input.callId,
        attempt: input.attempt,
        backend: input.backend,
        model: input.model,
        startedAt: iso(scheduledAt),
        outcome: 'running',
      };
      if (input.continuation) record.continues = input.continuation.continues;
      attempts.push(record);
      if (input.stream) streamed.set(record, input.stream.onCut === 'continue');
      bySchedule.set(idOf(event.eventId), record);
      lastOfCall.set(input.callId, record);
      continue;
    }
    const timer = event.timerStartedEventAttributes;
    if (timer) {
      noteWait(event, attempts);
      continue;
    }
    if (event.markerRecordedEventAttributes) {
      noteCheck(event, attempts);
      continue;
    }
    const closed = closeAttempt(event, bySchedule, index);
    if (closed && streamed.has(closed))
      noteDelivered(closed, deliveries, index.taskStartedAfter(event.eventId), streamed.get(closed) === true);
  }
  const why = lastDecision(index)?.why;
  return { ...closeOfRun(index), attempts: withLastDecision(attempts, index), ...(why ? { why } : {}) };
}

/** The summary an event's user metadata carries (a timer's, a local activity's marker's), if any. */
function summaryOf(event: HistoryEvent): string | undefined {
  const summary = firstPayload<string>(
    event.userMetadata?.summary ? { payloads: [event.userMetadata.summary] } : null,
  );
  return typeof summary === 'string' ? summary : undefined;
}

/**
 * A cooling check's marker names the failed attempt it follows, the action and the wait (see `checkSummary`):
 * after a decision with no wait it is the only trace of that decision when no attempt follows.
 */
function noteCheck(event: HistoryEvent, attempts: AttemptRecord[]): void {
  const summary = summaryOf(event);
  const named = summary === undefined ? undefined : parseCheckSummary(summary);
  if (!named) return;
  const record = attempts.findLast((r) => r.modelCallId === named.modelCallId);
  if (!record?.failure) return;
  record.retryInMs = named.retryInMs;
  if (named.action && isAction(named.action)) record.failure.action = named.action;
}

/** A wait's timer names the failed attempt it follows and the action taken (see `waitSummary`). */
function noteWait(event: HistoryEvent, attempts: AttemptRecord[]): void {
  const summary = summaryOf(event);
  const named = summary === undefined ? undefined : parseWaitSummary(summary);
  if (!named) return;
  const record = attempts.findLast((r) => r.modelCallId === named.modelCallId);
  if (!record?.failure) return;
  const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
  record.retryInMs = Number(timeout?.seconds ?? 0) * 1000 + Math.round((timeout?.nanos ?? 0) / 1e6);
  if (named.action && isAction(named.action)) record.failure.action = named.action;
}

/**
 * What a streamed attempt delivered, as the workflow saw it when it handled the attempt's end (every delta
 * signalled before that workflow task): a failed attempt that delivered any is `StreamInterrupted`, unless its
 * call continues cut streams (then it keeps its class, and its record counts the characters it delivered).
 */
function noteDelivered(
  record: AttemptRecord,
  deliveries: StreamDeliveries,
  seenAt: number | undefined,
  continueOnCut: boolean,
): void {
  const delivered = deliveries.before(record.modelCallId, seenAt ?? Number.MAX_SAFE_INTEGER);
  record.streamedDeltas = delivered.deltas;
  if (continueOnCut) record.deliveredChars = charCount(delivered.text);
  const failure = record.failure;
  if (record.outcome !== 'failed' || !failure) return;
  // The same rule, by the same function, as the workflow's: rebuild from the failure's facts with the deltas.
  const { class: cls, message, status, code, retryAfterMs } = failure;
  const facts = { class: cls, message, ...defined({ status, code, retryAfterMs }) };
  record.failure = failedAttempt({
    ...facts,
    deltasDelivered: delivered.deltas,
    ...(continueOnCut ? { continueOnCut } : {}),
  }).record;
}

function defined<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** Closes the attempt an activity's end event belongs to; returns that attempt's record. */
function closeAttempt(
  event: HistoryEvent,
  bySchedule: Map<number, AttemptRecord>,
  index: HistoryIndex,
): AttemptRecord | undefined {
  const completed = event.activityTaskCompletedEventAttributes;
  const failed = event.activityTaskFailedEventAttributes;
  const timedOut = event.activityTaskTimedOutEventAttributes;
  const canceled = event.activityTaskCanceledEventAttributes;
  const scheduledId = (completed ?? failed ?? timedOut ?? canceled)?.scheduledEventId;
  const record =
    scheduledId !== undefined && scheduledId !== null ? bySchedule.get(idOf(scheduledId)) : undefined;
  if (!record) return undefined;
  const seenAt = () => iso(index.taskTimeAfter(event.eventId) ?? 0);
  if (completed) {
    const result = firstPayload<ModelRequestResult>(completed.result);
    record.outcome = 'succeeded';
    if (result) succeed(record, result);
  } else if (failed) {
    const failure = failed.failure;
    const details =
      firstPayload<Partial<AttemptFailureDetails>>(failure?.applicationFailureInfo?.details) ?? {};
    const type = failure?.applicationFailureInfo?.type ?? '';
    record.outcome = 'failed';
    if (details.startedAt) record.startedAt = details.startedAt;
    record.endedAt = details.endedAt ?? seenAt();
    record.failure = failedAttempt(raisedFacts(type, details, failure?.message ?? '')).record;
    if (details.usage) record.usage = details.usage;
    if (typeof details.finishReason === 'string') record.finishReason = details.finishReason;
    if (details.continuation) record.continuation = details.continuation;
  } else if (timedOut) {
    const info = timedOut.failure?.timeoutFailureInfo;
    const heartbeat = firstPayload<Partial<AttemptHeartbeat>>(info?.lastHeartbeatDetails);
    if (heartbeat?.startedAt) record.startedAt = heartbeat.startedAt;
    record.outcome = 'failed';
    record.endedAt = seenAt();
    const timeout = timeoutFacts(info?.timeoutType);
    record.failure = failedAttempt({ class: timeout.class, message: timeout.message }).record;
  } else if (canceled) {
    const details = firstPayload<Partial<AttemptFailureDetails>>(canceled.details);
    if (details?.startedAt) record.startedAt = details.startedAt;
    record.outcome = 'cancelled';
    record.endedAt = details?.endedAt ?? seenAt();
  }
  return record;
}

function closeOfRun(index: HistoryIndex): Omit<CallHistory, 'attempts'> {
  for (const event of index.events) {
    const done = event.workflowExecutionCompletedEventAttributes;
    if (done) {
      const result = firstPayload<unknown>(done.result);
      const { stopReason, spent } = (result ?? {}) as Partial<ModelCallResult>;
      return {
        status: 'succeeded',
        ...(stopReason ? { stopReason } : {}),
        ...(spent ? { spent } : {}),
        result,
      };
    }
    const failed = event.workflowExecutionFailedEventAttributes;
    if (failed) {
      const info = failed.failure?.applicationFailureInfo;
      const details =
        info?.type === MODEL_CALL_FAILED ? firstPayload<ModelCallFailedDetails>(info.details) : undefined;
      return {
        status: 'failed',
        ...(details ? { stopReason: details.stopReason } : {}),
        ...(details?.partialText !== undefined ? { partialText: details.partialText } : {}),
        ...(details?.spent ? { spent: details.spent } : {}),
        failureMessage: failed.failure?.message ?? '',
      };
    }
    if (event.workflowExecutionCanceledEventAttributes)
      return { status: 'cancelled', stopReason: 'cancelled' };
    if (event.workflowExecutionTerminatedEventAttributes) return { status: 'terminated' };
    if (event.workflowExecutionTimedOutEventAttributes) return { status: 'timed-out' };
    if (event.workflowExecutionContinuedAsNewEventAttributes) return { status: 'continued-as-new' };
  }
  return { status: 'running' };
}

/** The last attempt's action comes from the call's result or its `ModelCallFailed` details. */
function withLastDecision(attempts: AttemptRecord[], index: HistoryIndex): AttemptRecord[] {
  const last = lastDecision(index);
  const record = attempts.at(-1);
  if (last?.action !== undefined && record?.failure && record.failure.action === undefined) {
    record.failure.action = last.action;
  }
  return attempts;
}

/**
 * The decision that ended the run's last call: from `ModelCallFailed` details, or from a completed result that
 * carries one (an agent turn that stopped on its deadline during a model call).
 */
function lastDecision(index: HistoryIndex): LastDecision | undefined {
  for (const event of index.events) {
    const info = event.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo;
    if (info?.type === MODEL_CALL_FAILED)
      return firstPayload<ModelCallFailedDetails>(info.details)?.lastDecision;
    const done = event.workflowExecutionCompletedEventAttributes;
    if (done) return firstPayload<{ lastDecision?: LastDecision }>(done.result)?.lastDecision;
  }
  return undefined;
}
