import type { temporal } from '@temporalio/proto';
import { defaultPayloadConverter } from '@temporalio/common';
import { eventTimeMs } from './history-format.js';

export type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
type Payloads = temporal.api.common.v1.IPayloads | null | undefined;

/** The first value of a payload list, decoded with the default converter (JSON), or `undefined`. */
export function firstPayload<T>(payloads: Payloads): T | undefined {
  const payload = payloads?.payloads?.[0];
  if (!payload) return undefined;
  return defaultPayloadConverter.fromPayload<T>(
    payload as Parameters<typeof defaultPayloadConverter.fromPayload>[0],
  );
}

/** An event id as a number (history ids are Longs or numbers depending on the source). */
export function idOf(value: unknown): number {
  return Number(value ?? 0);
}

/** Events by id, and the workflow-task times that workflow code saw as `Date.now()`. */
export class HistoryIndex {
  private readonly byId = new Map<number, HistoryEvent>();
  /** The `WorkflowTaskStarted` ids of tasks that completed (not those that failed or timed out). */
  private readonly completedStarts = new Set<number>();

  constructor(readonly events: readonly HistoryEvent[]) {
    for (const e of events) {
      this.byId.set(idOf(e.eventId), e);
      const completed = e.workflowTaskCompletedEventAttributes;
      if (completed) this.completedStarts.add(idOf(completed.startedEventId));
    }
  }

  get(id: unknown): HistoryEvent | undefined {
    return this.byId.get(idOf(id));
  }

  /**
   * The time workflow code saw while running the workflow task that completed as event `completedId`:
   * the time of that task's `WorkflowTaskStarted` event.
   */
  taskTimeOfCompleted(completedId: unknown): number | undefined {
    const completed = this.get(completedId);
    const startedId = completed?.workflowTaskCompletedEventAttributes?.startedEventId;
    const started = startedId !== undefined && startedId !== null ? this.get(startedId) : undefined;
    return started ? eventTimeMs(started) : undefined;
  }

  /**
   * The time workflow code saw when it issued the command recorded as `event` (e.g. an `ActivityTaskScheduled`):
   * its task's time, or, after a local activity resolved earlier in the same task, that activity's completion
   * time from its marker (the SDK moves workflow time there: `modelRetryConfig` at a call's start).
   */
  commandTime(event: HistoryEvent, completedId: unknown): number | undefined {
    let time = this.taskTimeOfCompleted(completedId);
    for (const e of this.events) {
      if (idOf(e.eventId) >= idOf(event.eventId)) break;
      const marker = e.markerRecordedEventAttributes;
      if (!marker || idOf(marker.workflowTaskCompletedEventId) !== idOf(completedId)) continue;
      const completeMs = localActivityCompleteMs(marker);
      if (completeMs !== undefined && (time === undefined || completeMs > time)) time = completeMs;
    }
    return time;
  }

  /**
   * The id of the `WorkflowTaskStarted` event of the first task after event `id` that completed: the task that
   * handled it. A task that failed or timed out decided nothing (the workflow ran it again in a later task, which
   * had seen more events by then), so it is skipped.
   */
  taskStartedAfter(id: unknown): number | undefined {
    const from = idOf(id);
    for (const e of this.events) {
      const at = idOf(e.eventId);
      if (at > from && e.workflowTaskStartedEventAttributes && this.completedStarts.has(at)) return at;
    }
    return undefined;
  }

  /** The time workflow code saw when it first handled event `id`: the next completed workflow task's start. */
  taskTimeAfter(id: unknown): number | undefined {
    const from = idOf(id);
    for (const e of this.events) {
      if (idOf(e.eventId) > from && e.workflowTaskCompletedEventAttributes)
        return this.taskTimeOfCompleted(e.eventId);
    }
    return undefined;
  }
}

/** The completion time a local activity's marker (`core_local_activity`) records, in ms. */
function localActivityCompleteMs(
  marker: temporal.api.history.v1.IMarkerRecordedEventAttributes,
): number | undefined {
  if (marker.markerName !== 'core_local_activity') return undefined;
  const data = firstPayload<{ complete_time?: { seconds?: number; nanos?: number } }>(marker.details?.data);
  const at = data?.complete_time;
  if (at?.seconds === undefined) return undefined;
  return Number(at.seconds) * 1000 + Math.floor(Number(at.nanos ?? 0) / 1e6);
}
