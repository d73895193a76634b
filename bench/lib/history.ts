import type { temporal } from '@temporalio/proto';
import protoPackage from '@temporalio/proto';
import { eventTimeMs, eventTypeName } from '../../client/history-format.js';

const proto = protoPackage.temporal;

export type History = temporal.api.history.v1.IHistory;
export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

export { eventTimeMs, eventTypeName };

/** The activity types that are one model attempt: model-retry's, and the bench baseline's wrapper of it. */
export const ATTEMPT_ACTIVITY_TYPES = new Set(['modelRequest', 'retryingModelRequest']);

/** Bytes of one event as protobuf (what the server stores and sends, payloads included). */
export function eventBytes(event: HistoryEvent): number {
  return proto.api.history.v1.HistoryEvent.encode(event).finish().length;
}

export function historyBytes(history: History): number {
  return (history.events ?? []).reduce((n, e) => n + eventBytes(e), 0);
}

/** How an attempt's part of the history ended. */
export type SegmentKind = 'failed + wait' | 'failed + immediate advance' | 'succeeded' | 'other';

/** One attempt's events: from its `ActivityTaskScheduled` up to the next attempt's (or the call's stop). */
export interface AttemptSegment {
  activityId: string;
  kind: SegmentKind;
  events: string[];
  bytes: number;
}

/**
 * A call's history cut at its attempts: the frame before the first attempt (start and first workflow task),
 * each attempt's segment, what the stop adds (markers, search attributes) and the close event.
 */
export interface CallAnatomy {
  total: number;
  totalBytes: number;
  start: string[];
  startBytes: number;
  attempts: AttemptSegment[];
  stop: string[];
  close: string[];
}

const STOP_TYPES = new Set([
  'MarkerRecorded',
  'UpsertWorkflowSearchAttributes',
  'WorkflowPropertiesModified',
]);
const CLOSE_TYPES = new Set([
  'WorkflowExecutionCompleted',
  'WorkflowExecutionFailed',
  'WorkflowExecutionCanceled',
  'WorkflowExecutionTerminated',
  'WorkflowExecutionContinuedAsNew',
  'WorkflowExecutionTimedOut',
]);

function isAttempt(event: HistoryEvent): boolean {
  const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
  return name !== undefined && name !== null && ATTEMPT_ACTIVITY_TYPES.has(name);
}

export function anatomy(history: History): CallAnatomy {
  const events = history.events ?? [];
  const starts = events.flatMap((e, i) => (isAttempt(e) ? [i] : []));
  const first = starts[0] ?? events.length;
  const attempts: AttemptSegment[] = [];
  const stop: string[] = [];
  const close: string[] = [];
  starts.forEach((from, k) => {
    const to = starts[k + 1] ?? events.length;
    const own: HistoryEvent[] = [];
    for (const e of events.slice(from, to)) {
      const type = eventTypeName(e);
      if (k === starts.length - 1 && CLOSE_TYPES.has(type)) close.push(type);
      else if (k === starts.length - 1 && STOP_TYPES.has(type)) stop.push(type);
      else own.push(e);
    }
    const names = own.map(eventTypeName);
    const sched = events[from]?.activityTaskScheduledEventAttributes;
    attempts.push({
      activityId: sched?.activityId ?? '',
      kind: segmentKind(names),
      events: names,
      bytes: own.reduce((n, e) => n + eventBytes(e), 0),
    });
  });
  const head = events.slice(0, first);
  return {
    total: events.length,
    totalBytes: historyBytes(history),
    start: head.map(eventTypeName),
    startBytes: head.reduce((n, e) => n + eventBytes(e), 0),
    attempts,
    stop,
    close,
  };
}

function segmentKind(names: readonly string[]): SegmentKind {
  if (names.includes('ActivityTaskCompleted')) return 'succeeded';
  if (names.includes('ActivityTaskFailed') || names.includes('ActivityTaskTimedOut')) {
    return names.includes('TimerStarted') ? 'failed + wait' : 'failed + immediate advance';
  }
  return 'other';
}

function byId(events: readonly HistoryEvent[]): Map<number, HistoryEvent> {
  return new Map(events.map((e) => [Number(e.eventId), e]));
}

function durationMs(d: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(d?.seconds ?? 0) * 1000 + (d?.nanos ?? 0) / 1e6;
}

/** For each durable timer that fired: how much later than its duration it fired (ms, by event times). */
export function timerLateness(history: History): number[] {
  const events = history.events ?? [];
  const ids = byId(events);
  return events.flatMap((e) => {
    const fired = e.timerFiredEventAttributes;
    if (!fired) return [];
    const started = ids.get(Number(fired.startedEventId));
    const planned = durationMs(started?.timerStartedEventAttributes?.startToFireTimeout);
    return started ? [eventTimeMs(e) - eventTimeMs(started) - planned] : [];
  });
}

/** Workflow-task schedule-to-start latencies (ms): how long each task waited for a worker to pick it up. */
export function workflowTaskScheduleToStart(history: History): number[] {
  return scheduleToStart(history, (e) => e.workflowTaskStartedEventAttributes?.scheduledEventId);
}

/** Activity schedule-to-start latencies (ms). */
export function activityScheduleToStart(history: History): number[] {
  return scheduleToStart(history, (e) => e.activityTaskStartedEventAttributes?.scheduledEventId);
}

function scheduleToStart(history: History, scheduledOf: (e: HistoryEvent) => unknown): number[] {
  const events = history.events ?? [];
  const ids = byId(events);
  return events.flatMap((e) => {
    const id = scheduledOf(e);
    if (id === undefined || id === null) return [];
    const scheduled = ids.get(Number(id));
    return scheduled ? [eventTimeMs(e) - eventTimeMs(scheduled)] : [];
  });
}

/** [start, end] of each attempt that started (ms): from `ActivityTaskStarted` to the event that closed it. */
export function attemptIntervals(history: History): [number, number][] {
  const events = history.events ?? [];
  const started = new Map<number, number>();
  const out: [number, number][] = [];
  for (const e of events) {
    const s = e.activityTaskStartedEventAttributes;
    if (s) started.set(Number(s.scheduledEventId), eventTimeMs(e));
    const closed =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    const from = closed ? started.get(Number(closed.scheduledEventId)) : undefined;
    if (from !== undefined) out.push([from, eventTimeMs(e)]);
  }
  return out;
}

/** The most intervals open at one time. */
export function peakOverlap(intervals: readonly [number, number][]): number {
  const edges = intervals.flatMap(([a, b]) => [
    [a, 1],
    [b, -1],
  ]) as [number, number][];
  edges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let open = 0;
  let peak = 0;
  for (const [, d] of edges) {
    open += d;
    peak = Math.max(peak, open);
  }
  return peak;
}

/** How many events of each type a history has. */
export function countTypes(history: History): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of history.events ?? []) {
    const t = eventTypeName(e);
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  return counts;
}
