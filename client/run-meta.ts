import type { temporal } from '@temporalio/proto';
import { validatePlan } from '../policy/index.js';
import { firstPayload } from './history-events.js';
import { eventTimeMs } from './history-format.js';

type History = temporal.api.history.v1.IHistory;

/** What a chain of runs says about itself, beside its attempts: names, times, and the call's deadline. */
export interface RunMeta {
  workflowId: string;
  workflowType: string;
  taskQueue: string;
  /** The run ids, oldest first. */
  runIds: string[];
  /** When the first run started (epoch ms). */
  startedAt: number;
  /** When the last run closed (epoch ms), if it has. */
  closedAt?: number;
  /** The time of the last event of the last run (epoch ms). */
  lastEventAt: number;
  /** The call's absolute deadline (epoch ms), when its retry plan had one. */
  deadlineMs?: number;
  /** The reserve kept before the deadline (ms), when there is a deadline. */
  reserveMs?: number;
}

/**
 * Reads a chain's names and times from its histories (oldest first). The deadline comes from the first run's
 * input: the retry plan (`{ retry: { deadline | deadlineInMs, reserveMs } }`, as a `modelCallWorkflow` takes
 * it) or an agent turn's top-level `deadline | deadlineInMs, reserveMs`, resolved against the start of the chain
 * as the workflow resolves it.
 */
export function readRunMeta(histories: readonly History[]): RunMeta {
  const first = histories[0]?.events ?? [];
  const lastRun = histories.at(-1)?.events ?? [];
  const startEvent = first[0];
  const started = startEvent?.workflowExecutionStartedEventAttributes;
  const startedAt = startEvent ? eventTimeMs(startEvent) : 0;
  const lastEvent = lastRun.at(-1);
  const closed = lastEvent && isClose(lastEvent) ? eventTimeMs(lastEvent) : undefined;
  return {
    workflowId: started?.workflowId ?? '',
    workflowType: started?.workflowType?.name ?? '',
    taskQueue: started?.taskQueue?.name ?? '',
    runIds: histories.map(
      (h) => h.events?.[0]?.workflowExecutionStartedEventAttributes?.originalExecutionRunId ?? '',
    ),
    startedAt,
    ...(closed !== undefined ? { closedAt: closed } : {}),
    lastEventAt: lastEvent ? eventTimeMs(lastEvent) : startedAt,
    ...deadlineOf(firstPayload<unknown>(started?.input), startedAt),
  };
}

function deadlineOf(input: unknown, startedAt: number): Pick<RunMeta, 'deadlineMs' | 'reserveMs'> {
  const retry = typeof input === 'object' && input !== null ? turnRetry(input) : undefined;
  try {
    const plan = validatePlan(retry, { nowMs: startedAt, chainStartMs: startedAt, atSubmission: false });
    return plan.deadlineMs !== undefined ? { deadlineMs: plan.deadlineMs, reserveMs: plan.reserveMs } : {};
  } catch {
    return {};
  }
}

/**
 * The retry plan whose deadline counts: a call's `retry`, or for an agent turn (whose deadline and reserve are
 * top-level: `deadline`/`deadlineInMs`, `reserveMs`) its `retry` with those put in.
 */
function turnRetry(input: object): unknown {
  const { retry, deadline, deadlineInMs, reserveMs } = input as Record<string, unknown>;
  const top = {
    ...(deadline !== undefined ? { deadline } : {}),
    ...(deadlineInMs !== undefined ? { deadlineInMs } : {}),
    ...(reserveMs !== undefined ? { reserveMs } : {}),
  };
  if (Object.keys(top).length === 0) return retry;
  return { ...(typeof retry === 'object' && retry !== null ? retry : {}), ...top };
}

function isClose(event: temporal.api.history.v1.IHistoryEvent): boolean {
  return Boolean(
    event.workflowExecutionCompletedEventAttributes ??
    event.workflowExecutionFailedEventAttributes ??
    event.workflowExecutionCanceledEventAttributes ??
    event.workflowExecutionTerminatedEventAttributes ??
    event.workflowExecutionTimedOutEventAttributes ??
    event.workflowExecutionContinuedAsNewEventAttributes,
  );
}
