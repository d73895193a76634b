import type { temporal } from '@temporalio/proto';
import protoPackage from '@temporalio/proto';

const proto = protoPackage.temporal;

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** Milliseconds since the epoch of a history event's time. */
export function eventTimeMs(event: HistoryEvent): number {
  const t = event.eventTime;
  if (!t) return 0;
  return Number(t.seconds ?? 0) * 1000 + Math.floor((t.nanos ?? 0) / 1e6);
}

/** `WORKFLOW_EXECUTION_STARTED` -> `WorkflowExecutionStarted`. */
export function eventTypeName(event: HistoryEvent): string {
  const raw = proto.api.enums.v1.EventType[event.eventType ?? 0] ?? `EVENT_${event.eventType}`;
  return raw
    .replace(/^EVENT_TYPE_/, '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());
}

/** One line per event: id, time since the first event, type, and what it carried that people care about. */
export function formatHistory(events: readonly HistoryEvent[]): string[] {
  const t0 = events[0] ? eventTimeMs(events[0]) : 0;
  return events.map((event) => {
    const at = `+${((eventTimeMs(event) - t0) / 1000).toFixed(3)}s`.padStart(10);
    const id = String(event.eventId ?? '').padStart(3);
    return `${id} ${at}  ${eventTypeName(event)}${describe(event)}`;
  });
}

function describe(event: HistoryEvent): string {
  const sched = event.activityTaskScheduledEventAttributes;
  if (sched) return `  ${sched.activityType?.name ?? ''} (id ${sched.activityId ?? ''})`;
  const timer = event.timerStartedEventAttributes;
  if (timer) {
    const secs =
      Number(timer.startToFireTimeout?.seconds ?? 0) + (timer.startToFireTimeout?.nanos ?? 0) / 1e9;
    return `  ${secs.toFixed(3)}s`;
  }
  const failed = event.activityTaskFailedEventAttributes?.failure;
  if (failed) return `  ${failed.applicationFailureInfo?.type ?? ''} ${failed.message ?? ''}`.trimEnd();
  const started = event.workflowExecutionStartedEventAttributes;
  if (started) return `  ${started.workflowType?.name ?? ''} on ${started.taskQueue?.name ?? ''}`;
  return '';
}
