/**
 * What a run's stream held, as far as its history tells, for a subscriber that did not read it live (it fell
 * behind, paused, or started after the run closed). The deltas are in the history (their publish signals); the
 * call events are not (they live only in the workflow's stream log), so they are rebuilt from the attempts the
 * history records: an `attempt` event for each attempt, and a `stop` event for each call whose stop the history
 * tells.
 */
import { readCallHistory } from './history-reader.js';
import { StreamDeliveries } from './history-stream.js';
import { idOf } from './history-events.js';
import type { HistoryEvent } from './history-events.js';
import type { AttemptRecord } from '../common/call.js';
import type { StopReason } from '../policy/index.js';
import type { StreamEvent } from '../common/stream.js';

/** One item of a run's stream as its history tells it; a delta carries its index among its attempt's deltas. */
export type TailItem =
  { kind: 'delta'; modelCallId: string; index: number; text: string } | { kind: 'event'; event: StreamEvent };

/** The key by which an event read live and the same event rebuilt from history are told to be one. */
export function eventKey(event: StreamEvent): string {
  return event.type === 'attempt' ? `attempt ${event.modelCallId}` : `stop ${event.callId}`;
}

/**
 * The stream items of one run, in the order they reached its stream: each attempt's event where the attempt
 * was scheduled, its deltas where their signals arrived, and its call's stop after the call's last attempt
 * ended and its last delta arrived.
 */
export function runTail(events: readonly HistoryEvent[]): TailItem[] {
  const history = readCallHistory({ events: [...events] });
  const scheduledAt = new Map<string, number>();
  const endedAt = new Map<number, number>();
  for (const event of events) {
    const activityId = event.activityTaskScheduledEventAttributes?.activityId;
    if (activityId) scheduledAt.set(activityId, idOf(event.eventId));
    const end =
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    if (end?.scheduledEventId !== undefined && end.scheduledEventId !== null)
      endedAt.set(idOf(end.scheduledEventId), idOf(event.eventId));
  }
  const placed: { at: number; item: TailItem }[] = [];
  const lastDeltaOfCall = new Map<string, number>();
  const callOf = new Map(history.attempts.map((r) => [r.modelCallId, r.callId]));
  for (const delta of new StreamDeliveries(events).all()) {
    const { modelCallId, index, text, eventId } = delta;
    placed.push({ at: eventId, item: { kind: 'delta', modelCallId, index, text } });
    const callId = callOf.get(modelCallId);
    if (callId !== undefined)
      lastDeltaOfCall.set(callId, Math.max(lastDeltaOfCall.get(callId) ?? 0, eventId));
  }
  const lastOfCall = new Map<string, AttemptRecord>();
  for (const record of history.attempts) {
    const at = scheduledAt.get(record.modelCallId) ?? 0;
    const { callId, modelCallId, attempt, model } = record;
    placed.push({
      at,
      item: { kind: 'event', event: { type: 'attempt', callId, modelCallId, attempt, model } },
    });
    lastOfCall.set(callId, record);
  }
  const lastCall = history.attempts.at(-1)?.callId;
  const cancelAt = events.find((e) => e.workflowExecutionCancelRequestedEventAttributes)?.eventId;
  for (const [callId, last] of lastOfCall) {
    const scheduled = scheduledAt.get(last.modelCallId) ?? 0;
    const ended = endedAt.get(scheduled) ?? events.at(-1)?.eventId;
    // The workflow task that handled the attempt's end: a cancellation requested before it was seen with it.
    const seenAt = events.find((e) => idOf(e.eventId) > idOf(ended) && e.workflowTaskStartedEventAttributes);
    const cancelledFirst = cancelAt != null && idOf(cancelAt) < idOf(seenAt?.eventId ?? Infinity);
    const stopReason = stopOf(last, callId === lastCall, cancelledFirst, history);
    if (stopReason === undefined) continue;
    // After the attempt's end and the call's last delta: half a step on, so it sorts after both.
    const at = Math.max(idOf(ended), lastDeltaOfCall.get(callId) ?? 0) + 0.5;
    const event: StreamEvent = { type: 'stop', callId, stopReason, modelCallId: last.modelCallId };
    placed.push({ at, item: { kind: 'event', event } });
  }
  // A stable sort: items at the same place keep the order they were placed in (an attempt before its deltas).
  return placed.sort((a, b) => a.at - b.at).map((p) => p.item);
}

/**
 * How the call whose last attempt in the run is `last` stopped, when the history tells: the run's last call
 * of a cancelled run was `cancelled` unless its answer was handled before the cancellation was requested (the
 * policy tells cancellation first); a call whose last attempt answered
 * `succeeded`; the run's last call otherwise what the run's result or `ModelCallFailed` says. A call that failed
 * and was caught by a user's workflow, or one cut off by a termination, has no stop here (none was published,
 * or the history does not say which).
 */
function stopOf(
  last: AttemptRecord,
  isLastCall: boolean,
  cancelledFirst: boolean,
  history: ReturnType<typeof readCallHistory>,
): StopReason | undefined {
  if (isLastCall && history.status === 'cancelled' && (last.outcome !== 'succeeded' || cancelledFirst))
    return 'cancelled';
  if (last.outcome === 'succeeded') return 'succeeded';
  if (isLastCall && (history.status === 'succeeded' || history.status === 'failed'))
    return history.stopReason;
  return undefined;
}
