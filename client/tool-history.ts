import type { temporal } from '@temporalio/proto';
import type { ToolCallInput } from '../common/tools.js';
import { eventTimeMs } from './history-format.js';
import { firstPayload, idOf } from './history-events.js';
import type { HistoryEvent } from './history-events.js';

type History = temporal.api.history.v1.IHistory;

/** One tool call of an agent turn as its history tells it (the `runTool` activity `<callId>.tool.<n>`). */
export interface ToolSpan {
  /** `<callId>.tool.<n>`. */
  activityId: string;
  /** The model call whose answer asked for the tool. */
  callId: string;
  /** The tool's name, when the (decoded) input says it. */
  name?: string;
  /** Epoch ms: when it was scheduled, and when it ended (absent while it runs). */
  startedAt: number;
  endedAt?: number;
  outcome: 'succeeded' | 'failed' | 'cancelled' | 'timed-out' | 'running';
}

const TOOL_ID = /^(c\d+)\.tool\.\d+$/;

/** The tool calls of every run in `histories` (a turn's chain), in the order they were scheduled. */
export function readToolSpans(histories: readonly History[]): ToolSpan[] {
  return histories.flatMap((h) => toolSpansOf(h.events ?? []));
}

function toolSpansOf(events: readonly HistoryEvent[]): ToolSpan[] {
  const bySchedule = new Map<number, ToolSpan>();
  for (const e of events) {
    const scheduled = e.activityTaskScheduledEventAttributes;
    const callId = scheduled?.activityId ? TOOL_ID.exec(scheduled.activityId)?.[1] : undefined;
    if (scheduled && callId) {
      const input = firstPayload<Partial<ToolCallInput>>(scheduled.input);
      bySchedule.set(idOf(e.eventId), {
        activityId: scheduled.activityId as string,
        callId,
        ...(typeof input?.name === 'string' ? { name: input.name } : {}),
        startedAt: eventTimeMs(e) ?? 0,
        outcome: 'running',
      });
      continue;
    }
    const end = endOf(e);
    const span = end && bySchedule.get(idOf(end.scheduledEventId));
    if (span && end) Object.assign(span, { outcome: end.outcome, endedAt: eventTimeMs(e) });
  }
  return [...bySchedule.values()];
}

function endOf(e: HistoryEvent): { scheduledEventId: unknown; outcome: ToolSpan['outcome'] } | undefined {
  const a =
    e.activityTaskCompletedEventAttributes ??
    e.activityTaskFailedEventAttributes ??
    e.activityTaskTimedOutEventAttributes ??
    e.activityTaskCanceledEventAttributes;
  if (!a) return undefined;
  const outcome: ToolSpan['outcome'] = e.activityTaskCompletedEventAttributes
    ? 'succeeded'
    : e.activityTaskFailedEventAttributes
      ? 'failed'
      : e.activityTaskTimedOutEventAttributes
        ? 'timed-out'
        : 'cancelled';
  return { scheduledEventId: a.scheduledEventId, outcome };
}
