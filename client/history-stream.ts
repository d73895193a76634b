import { defaultPayloadConverter } from '@temporalio/common';
import { decodePayloadWire, workflowStreamPublishSignal } from '@temporalio/workflow-streams/workflow';
import type { PublishInput } from '@temporalio/workflow-streams/workflow';
import { countsAsDelivered, DELTA_TOPIC } from '../common/stream.js';
import type { StreamDelta, StreamPart } from '../common/stream.js';
import { firstPayload, idOf } from './history-events.js';
import type { HistoryEvent } from './history-events.js';

/** One delta as it reached the workflow's stream: the event that carried it, and its text. */
interface Arrival {
  eventId: number;
  /** Its place among every delta of the history. */
  order: number;
  text: string;
  /** Whether it counts as delivered (`countsAsDelivered`: not the finish part). */
  counts: boolean;
  part?: StreamPart;
}

/**
 * The text deltas each streamed attempt published into the workflow's stream, read from the publish signals
 * in the history as the workflow let them in: skipping a batch the stream itself would skip as a duplicate
 * (the same publisher's sequence seen before), and a delta of an attempt that was not in flight in the
 * workflow's view (scheduled, and its end not yet handled by a completed workflow task), as
 * `workflows/stream.ts` drops it.
 */
export class StreamDeliveries {
  private readonly byAttempt = new Map<string, Arrival[]>();

  constructor(events: readonly HistoryEvent[]) {
    const lastSequence = new Map<string, number>();
    const completedTasks = new Set<number>();
    for (const event of events) {
      const started = event.workflowTaskCompletedEventAttributes?.startedEventId;
      if (started !== undefined && started !== null) completedTasks.add(idOf(started));
    }
    const activityOf = new Map<number, string>();
    const open = new Set<string>();
    let ending: string[] = [];
    let order = 0;
    for (const event of events) {
      const scheduled = event.activityTaskScheduledEventAttributes?.activityId;
      if (scheduled) {
        activityOf.set(idOf(event.eventId), scheduled);
        open.add(scheduled);
      }
      const ended = endedActivity(event);
      if (ended !== undefined) {
        const id = activityOf.get(ended);
        if (id !== undefined) ending.push(id);
      }
      if (event.workflowTaskStartedEventAttributes && completedTasks.has(idOf(event.eventId))) {
        for (const id of ending) open.delete(id);
        ending = [];
      }
      const signal = event.workflowExecutionSignaledEventAttributes;
      if (signal?.signalName !== workflowStreamPublishSignal.name) continue;
      const input = firstPayload<Partial<PublishInput>>(signal.input);
      if (!input || !Array.isArray(input.items)) continue;
      if (input.publisher_id) {
        const sequence = Number(input.sequence ?? 0);
        if (sequence <= (lastSequence.get(input.publisher_id) ?? 0)) continue;
        lastSequence.set(input.publisher_id, sequence);
      }
      for (const item of input.items) {
        if (item.topic !== DELTA_TOPIC) continue;
        const delta = decodeDelta(item.data);
        if (!delta || !open.has(delta.modelCallId)) continue;
        const list = this.byAttempt.get(delta.modelCallId) ?? [];
        list.push({
          eventId: idOf(event.eventId),
          order: order++,
          text: delta.text,
          counts: countsAsDelivered(delta),
          ...(delta.part !== undefined ? { part: delta.part } : {}),
        });
        this.byAttempt.set(delta.modelCallId, list);
      }
    }
  }

  /** Every delta in the order it reached the stream, with its index among its attempt's deltas. */
  all(): { modelCallId: string; index: number; text: string; eventId: number; part?: StreamPart }[] {
    const out = [...this.byAttempt].flatMap(([modelCallId, list]) =>
      list.map((a, index) => ({
        modelCallId,
        index,
        text: a.text,
        eventId: a.eventId,
        order: a.order,
        ...(a.part !== undefined ? { part: a.part } : {}),
      })),
    );
    return out.sort((a, b) => a.order - b.order).map(({ order: _order, ...rest }) => rest);
  }

  /** How many deltas of `modelCallId` reached the stream before event `beforeId`, and their text. */
  before(modelCallId: string, beforeId: unknown): { deltas: number; text: string } {
    const limit = idOf(beforeId);
    const arrived = (this.byAttempt.get(modelCallId) ?? []).filter((a) => a.eventId < limit && a.counts);
    return { deltas: arrived.length, text: arrived.map((a) => a.text).join('') };
  }
}

/** The scheduled-event id of the activity that event `event` ends, if it ends one. */
function endedActivity(event: HistoryEvent): number | undefined {
  const attrs =
    event.activityTaskCompletedEventAttributes ??
    event.activityTaskFailedEventAttributes ??
    event.activityTaskTimedOutEventAttributes ??
    event.activityTaskCanceledEventAttributes;
  const id = attrs?.scheduledEventId;
  return id === undefined || id === null ? undefined : idOf(id);
}

/** The value of one stream item's wire data (base64 of the payload's wire form), or `undefined`. */
export function decodeStreamData(data: unknown): unknown {
  if (typeof data !== 'string') return undefined;
  try {
    return defaultPayloadConverter.fromPayload<unknown>(decodePayloadWire(data));
  } catch {
    return undefined;
  }
}

function decodeDelta(data: unknown): StreamDelta | undefined {
  const delta = decodeStreamData(data) as Partial<StreamDelta> | undefined;
  return typeof delta?.modelCallId === 'string' && typeof delta.text === 'string'
    ? {
        modelCallId: delta.modelCallId,
        text: delta.text,
        ...(delta.part !== undefined ? { part: delta.part } : {}),
      }
    : undefined;
}
