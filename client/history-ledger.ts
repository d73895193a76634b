import { raisedFacts, timeoutFacts } from '../policy/index.js';
import type {
  AttemptFailureDetails,
  AttemptHeartbeat,
  ModelRequestInput,
  ModelRequestResult,
} from '../common/attempt.js';
import { iso } from '../common/iso.js';
import type { LedgerEvent } from '../common/ledger/events.js';
import { readCheckSummary, readWaitSummary } from '../common/ledger/summary.js';
import { firstPayload, idOf } from './history-events.js';
import type { HistoryEvent, HistoryIndex } from './history-events.js';
import { StreamDeliveries } from './history-stream.js';

const ATTEMPT_ACTIVITY = 'modelRequest';

/** An attempt's activity, by its scheduled event's id. */
interface Scheduled {
  modelCallId: string;
  /** A streamed attempt: whether its call continues cut streams. */
  stream?: { continueOnCut: boolean };
}

/**
 * The ledger events a history tells, in its order: the attempt activities' scheduling (their inputs also carry
 * the decision after the call's previous attempt), what each streamed attempt delivered before its end was
 * handled, the activities' ends, and the decisions named by waits' timers and cooling checks' markers. The
 * run's last decision (`stopped`) is the caller's to add.
 */
export function historyLedgerEvents(index: HistoryIndex): LedgerEvent[] {
  const out: LedgerEvent[] = [];
  const bySchedule = new Map<number, Scheduled>();
  const lastOfCall = new Map<string, string>();
  const deliveries = new StreamDeliveries(index.events);
  for (const event of index.events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name === ATTEMPT_ACTIVITY) {
      const input = firstPayload<ModelRequestInput>(scheduled.input);
      if (!input) continue;
      const previous = lastOfCall.get(input.callId);
      if (previous !== undefined && input.after) {
        const { action, retryInMs } = input.after;
        out.push({ kind: 'decided', modelCallId: previous, action, retryInMs });
      }
      const scheduledAt = index.commandTime(event, scheduled.workflowTaskCompletedEventId) ?? 0;
      const { modelCallId, callId, attempt, backend, model } = input;
      const continues = input.continuation?.continues;
      const startedAt = iso(scheduledAt);
      out.push({ kind: 'opened', modelCallId, callId, attempt, backend, model, startedAt, continues });
      const stream = input.stream ? { continueOnCut: input.stream.onCut === 'continue' } : undefined;
      bySchedule.set(idOf(event.eventId), { modelCallId, ...(stream ? { stream } : {}) });
      lastOfCall.set(callId, modelCallId);
      continue;
    }
    if (event.timerStartedEventAttributes) {
      const named = withSummary(event, readWaitSummary);
      if (named) out.push({ kind: 'decided', ...named, retryInMs: timerMs(event) });
      continue;
    }
    if (event.markerRecordedEventAttributes) {
      const named = withSummary(event, readCheckSummary);
      if (named) out.push({ kind: 'decided', ...named });
      continue;
    }
    const attempt = attemptEnded(event, bySchedule);
    if (!attempt) continue;
    if (attempt.stream) {
      // What the workflow saw delivered when it handled the end: every delta signalled before that task.
      const seenAt = index.taskStartedAfter(event.eventId) ?? Number.MAX_SAFE_INTEGER;
      const { deltas, text } = deliveries.before(attempt.modelCallId, seenAt);
      const { continueOnCut } = attempt.stream;
      out.push({
        kind: 'delivered',
        modelCallId: attempt.modelCallId,
        deltas,
        chars: text.length,
        continueOnCut,
      });
    }
    out.push(endOf(event, attempt.modelCallId, () => iso(index.taskTimeAfter(event.eventId) ?? 0)));
  }
  return out;
}

/** What `read` makes of the summary an event's user metadata carries (a timer's, a marker's), if any. */
function withSummary<T>(event: HistoryEvent, read: (summary: string) => T | undefined): T | undefined {
  const summary = firstPayload<string>(
    event.userMetadata?.summary ? { payloads: [event.userMetadata.summary] } : null,
  );
  return typeof summary === 'string' ? read(summary) : undefined;
}

/** A timer's duration in ms. */
function timerMs(event: HistoryEvent): number {
  const timeout = event.timerStartedEventAttributes?.startToFireTimeout;
  return Number(timeout?.seconds ?? 0) * 1000 + Math.round((timeout?.nanos ?? 0) / 1e6);
}

/** The attempt whose activity `event` ends, if it ends one. */
function attemptEnded(event: HistoryEvent, bySchedule: Map<number, Scheduled>): Scheduled | undefined {
  const end =
    event.activityTaskCompletedEventAttributes ??
    event.activityTaskFailedEventAttributes ??
    event.activityTaskTimedOutEventAttributes ??
    event.activityTaskCanceledEventAttributes;
  const scheduledId = end?.scheduledEventId;
  return scheduledId !== undefined && scheduledId !== null ? bySchedule.get(idOf(scheduledId)) : undefined;
}

/**
 * How an attempt's activity ended, as the workflow saw it: the facts come from the same functions
 * (`raisedFacts`, `timeoutFacts`); `seenAt` is when the workflow handled the end (its end time when the
 * attempt does not say one).
 */
function endOf(event: HistoryEvent, modelCallId: string, seenAt: () => string): LedgerEvent {
  const completed = event.activityTaskCompletedEventAttributes;
  if (completed) {
    const result = firstPayload<ModelRequestResult>(completed.result);
    return { kind: 'answered', modelCallId, ...(result ? { result } : {}) };
  }
  const failed = event.activityTaskFailedEventAttributes;
  if (failed) {
    const failure = failed.failure;
    const details =
      firstPayload<Partial<AttemptFailureDetails>>(failure?.applicationFailureInfo?.details) ?? {};
    const type = failure?.applicationFailureInfo?.type ?? '';
    return {
      kind: 'failed',
      modelCallId,
      facts: raisedFacts(type, details, failure?.message ?? ''),
      ...(details.startedAt ? { startedAt: details.startedAt } : {}),
      endedAt: details.endedAt ?? seenAt(),
      ...(details.usage ? { usage: details.usage } : {}),
      ...(typeof details.finishReason === 'string' ? { finishReason: details.finishReason } : {}),
      ...(details.continuation ? { continuation: details.continuation } : {}),
    };
  }
  const timedOut = event.activityTaskTimedOutEventAttributes;
  if (timedOut) {
    const info = timedOut.failure?.timeoutFailureInfo;
    const heartbeat = firstPayload<Partial<AttemptHeartbeat>>(info?.lastHeartbeatDetails);
    const timeout = timeoutFacts(info?.timeoutType);
    return {
      kind: 'failed',
      modelCallId,
      facts: { class: timeout.class, message: timeout.message },
      ...(heartbeat?.startedAt ? { startedAt: heartbeat.startedAt } : {}),
      endedAt: seenAt(),
    };
  }
  const details = firstPayload<Partial<AttemptFailureDetails>>(
    event.activityTaskCanceledEventAttributes?.details,
  );
  return {
    kind: 'cancelled',
    modelCallId,
    ...(details?.startedAt ? { startedAt: details.startedAt } : {}),
    endedAt: details?.endedAt ?? seenAt(),
  };
}
