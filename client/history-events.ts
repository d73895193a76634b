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

  constructor(readonly events: readonly HistoryEvent[]) {
    for (const e of events) this.byId.set(idOf(e.eventId), e);
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

  /** The id of the first `WorkflowTaskStarted` event after event `id`: the task that handled it. */
  taskStartedAfter(id: unknown): number | undefined {
    const from = idOf(id);
    for (const e of this.events) {
      if (idOf(e.eventId) > from && e.workflowTaskStartedEventAttributes) return idOf(e.eventId);
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
