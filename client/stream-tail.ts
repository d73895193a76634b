/**
 * What a run's stream held, as far as its history tells, for a subscriber that did not read it live (it fell
 * behind, paused, or started after the run closed). The deltas are in the history (their publish signals); the
 * call events are not (they live only in the workflow's stream log), so they are rebuilt from the attempts the
 * history records: an `attempt` event for each attempt, and a `stop` event for each call whose stop the history
 * tells. (A workflow publishes events only while it has a stream: one that never had one, or calls that ran
 * before its stream existed, get rebuilt events here that were never published; a reader of such a workflow's
 * tail reads what happened, not what was published.)
 */
import { readCallHistory } from './history-reader.js';
import type { CallHistory } from './history-reader.js';
import { decodeStreamData, StreamDeliveries } from './history-stream.js';
import { firstPayload, HistoryIndex, idOf } from './history-events.js';
import type { HistoryEvent } from './history-events.js';
import { readWaitSummary } from '../common/ledger/summary.js';
import { MODEL_CALL_FAILED } from '../common/call.js';
import type { AttemptRecord, ModelCallFailedDetails } from '../common/call.js';
import type { StopReason } from '../policy/index.js';
import { DELTA_TOPIC, EVENT_TOPIC } from '../common/stream.js';
import type { StreamDelta, StreamEvent, StreamPart } from '../common/stream.js';
import type { WorkflowStreamState } from '@temporalio/workflow-streams/workflow';

/** One item of a run's stream as its history tells it; a delta carries its index among its attempt's deltas. */
export type TailItem =
  | { kind: 'delta'; modelCallId: string; index: number; text: string; part?: StreamPart }
  | { kind: 'event'; event: StreamEvent };

/**
 * The key by which an event read live and the same event rebuilt from history are told to be one. Call ids are
 * unique across an agent turn's chain (its call counter is carried); a user's workflow that continues as new
 * without carrying it reuses `c1`, and its later run's rebuilt events then count as read (as its deltas do).
 */
export function eventKey(event: StreamEvent): string {
  return event.type === 'attempt' ? `attempt ${event.modelCallId}` : `stop ${event.callId}`;
}

/**
 * The stream items of one run, in the order they reached its stream: each attempt's event where the attempt
 * was scheduled, its deltas where their signals arrived, and its call's stop where the workflow task that
 * decided it started (every delta the attempt delivered came before it). A history the reader cannot read
 * (a result in an encoding of the user's own) gives its deltas only.
 */
export function runTail(events: readonly HistoryEvent[]): TailItem[] {
  const placed: { at: number; item: TailItem }[] = [];
  for (const { modelCallId, index, text, eventId, part } of new StreamDeliveries(events).all())
    placed.push({
      at: eventId,
      item: { kind: 'delta', modelCallId, index, text, ...(part !== undefined ? { part } : {}) },
    });
  let history: CallHistory;
  try {
    history = readCallHistory({ events: [...events] });
  } catch {
    return placed.map((p) => p.item);
  }
  const index = new HistoryIndex(events);
  const run = runFacts(events);
  const lastOfCall = new Map<string, AttemptRecord>();
  for (const record of history.attempts) {
    const { callId, modelCallId, attempt, model } = record;
    const at = run.scheduledAt.get(modelCallId) ?? 0;
    placed.push({
      at,
      item: { kind: 'event', event: { type: 'attempt', callId, modelCallId, attempt, model } },
    });
    lastOfCall.set(callId, record);
  }
  for (const [callId, last] of lastOfCall) {
    const stop = stopOf(callId, last, history, run, index);
    if (!stop) continue;
    const event: StreamEvent = {
      type: 'stop',
      callId,
      stopReason: stop.reason,
      modelCallId: last.modelCallId,
    };
    placed.push({ at: stop.at + 0.5, item: { kind: 'event', event } });
  }
  // A call that failed the run before any attempt of it (a deadline, budget or history limit at its start).
  const failed = run.failedCall;
  if (failed && !lastOfCall.has(failed.callId)) {
    const event: StreamEvent = { type: 'stop', callId: failed.callId, stopReason: failed.stopReason };
    placed.push({ at: idOf(events.at(-1)?.eventId) + 0.5, item: { kind: 'event', event } });
  }
  // Stable: an attempt's event is placed at its scheduling, before any delta of it (signals come after).
  return placed.sort((a, b) => a.at - b.at).map((p) => p.item);
}

/** What the stop rules need to know of a run beyond its attempt records. */
interface RunFacts {
  /** Each attempt's `ActivityTaskScheduled` event id, by its activity id (the attempt's `modelCallId`). */
  scheduledAt: Map<string, number>;
  /** Each attempt's end event id, by its `modelCallId`. */
  endedAt: Map<string, number>;
  /** Attempts whose failure was followed by a wait that never fired (its timer names the attempt). */
  waitNotFired: Set<string>;
  /** The `WorkflowExecutionCancelRequested` event's id, when the run was asked to cancel. */
  cancelAt: number | undefined;
  /** The call whose `ModelCallFailed` failed the run (a call's or a turn's), with its stop reason. */
  failedCall: { callId: string; stopReason: StopReason } | undefined;
}

function runFacts(events: readonly HistoryEvent[]): RunFacts {
  const scheduledAt = new Map<string, number>();
  const bySchedule = new Map<number, string>();
  const endedAt = new Map<string, number>();
  const timers = new Map<string, string>();
  const waitNotFired = new Set<string>();
  let cancelAt: number | undefined;
  let failedCall: RunFacts['failedCall'];
  for (const event of events) {
    const id = idOf(event.eventId);
    const activityId = event.activityTaskScheduledEventAttributes?.activityId;
    if (activityId) {
      scheduledAt.set(activityId, id);
      bySchedule.set(id, activityId);
    }
    const end =
      event.activityTaskCompletedEventAttributes ??
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    const ended = end ? bySchedule.get(idOf(end.scheduledEventId)) : undefined;
    if (ended !== undefined) endedAt.set(ended, id);
    const timer = event.timerStartedEventAttributes;
    if (timer?.timerId) {
      const summary = firstPayload<string>(
        event.userMetadata?.summary ? { payloads: [event.userMetadata.summary] } : null,
      );
      const named = typeof summary === 'string' ? readWaitSummary(summary) : undefined;
      if (named) {
        timers.set(timer.timerId, named.modelCallId);
        waitNotFired.add(named.modelCallId);
      }
    }
    const fired = event.timerFiredEventAttributes?.timerId;
    if (fired) waitNotFired.delete(timers.get(fired) ?? '');
    if (event.workflowExecutionCancelRequestedEventAttributes) cancelAt ??= id;
    const failure = event.workflowExecutionFailedEventAttributes?.failure?.applicationFailureInfo;
    if (failure?.type === MODEL_CALL_FAILED) {
      const details = firstPayload<ModelCallFailedDetails>(failure.details);
      if (details?.callId) failedCall = { callId: details.callId, stopReason: details.stopReason };
    }
  }
  return { scheduledAt, endedAt, waitNotFired, cancelAt, failedCall };
}

/**
 * How the call whose last attempt in the run is `last` stopped, and the event id of the workflow task that
 * decided it, when the history tells; else `undefined` (no stop is rebuilt). Only what a completed workflow task
 * handled counts (a task that failed or timed out decided nothing; a run terminated before it published nothing).
 * - The call whose `ModelCallFailed` failed the run: its details' stop reason.
 * - A cancelled run's call whose last attempt was cancelled or still running, whose failed attempt waited on a
 *   timer that never fired, or whose last attempt's end was handled together with or after the cancellation
 *   request (the policy tells cancellation first): `cancelled`.
 * - A call whose last attempt answered: `succeeded`.
 * Other calls (a failure a user's workflow caught) get none: their stop is not in the history.
 */
function stopOf(
  callId: string,
  last: AttemptRecord,
  history: CallHistory,
  run: RunFacts,
  index: HistoryIndex,
): { reason: StopReason; at: number } | undefined {
  const ended = run.endedAt.get(last.modelCallId);
  const handled = ended === undefined ? undefined : index.taskStartedAfter(ended);
  if (run.failedCall?.callId === callId) {
    const closing = index.events.at(-1)?.eventId;
    return { reason: run.failedCall.stopReason, at: handled ?? idOf(closing) };
  }
  if (history.status === 'cancelled' && run.cancelAt !== undefined) {
    const cancelHandled = index.taskStartedAfter(run.cancelAt);
    const inFlight = last.outcome === 'cancelled' || last.outcome === 'running';
    const waiting = last.outcome === 'failed' && run.waitNotFired.has(last.modelCallId);
    const cancelledFirst = handled === undefined || run.cancelAt < handled;
    if (inFlight || waiting || cancelledFirst) {
      if (cancelHandled === undefined) return undefined;
      return { reason: 'cancelled', at: Math.max(cancelHandled, handled ?? 0) };
    }
  }
  if (last.outcome === 'succeeded' && handled !== undefined) return { reason: 'succeeded', at: handled };
  return undefined;
}

/** The stream log a run started with (an agent turn's `carried.stream`), by what it holds. */
export interface CarriedLog {
  /** The offset of its oldest item. */
  baseOffset: number;
  /** How many deltas of each attempt it holds (the newest of that attempt's deltas). */
  deltas: Map<string, number>;
  /** The `eventKey`s of the events it holds. */
  events: Set<string>;
}

/** The stream log run `events` started with, carried from the run before it; `undefined` when it has none. */
export function carriedLog(events: readonly HistoryEvent[]): CarriedLog | undefined {
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const input = firstPayload<{ carried?: { stream?: Partial<WorkflowStreamState> } }>(started?.input);
  const state = input?.carried?.stream;
  if (!state || typeof state.base_offset !== 'number' || !Array.isArray(state.log)) return undefined;
  const carried: CarriedLog = { baseOffset: state.base_offset, deltas: new Map(), events: new Set() };
  for (const item of state.log) {
    const data = decodeStreamData(item.data);
    if (item.topic === DELTA_TOPIC) {
      const id = (data as Partial<StreamDelta> | undefined)?.modelCallId;
      if (typeof id === 'string') carried.deltas.set(id, (carried.deltas.get(id) ?? 0) + 1);
    } else if (item.topic === EVENT_TOPIC && data && typeof data === 'object') {
      carried.events.add(eventKey(data as StreamEvent));
    }
  }
  return carried;
}
