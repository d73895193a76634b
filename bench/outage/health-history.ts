/**
 * What a backend's health workflow cost and how fast it heard: from its history, the events of its run, the
 * outcome batches (signals) it took, and how long each signal waited for the workflow task that applied it.
 */
import type { Client } from '@temporalio/client';
import { eventTimeMs } from '../../client/history-format.js';

/** The health workflow's history figures (ms are from `started`). */
export interface HealthHistoryFigures {
  /** Events in its history (the current run's). */
  events: number;
  /** Signals: outcome batches, probe claims, resets. */
  signals: number;
  /** When its first signal was accepted. */
  firstSignalAtMs?: number;
  /** How long the first signal waited for a workflow task to start (the worker could apply it), and the longest. */
  firstSignalWaitMs?: number;
  maxSignalWaitMs?: number;
}

/** Reads `workflowId`'s history; `undefined` when it cannot be read. */
export async function healthHistory(
  client: Client,
  workflowId: string,
  started: number,
): Promise<HealthHistoryFigures | undefined> {
  const history = await client.workflow
    .getHandle(workflowId)
    .fetchHistory()
    .catch(() => undefined);
  const events = history?.events ?? [];
  if (events.length === 0) return undefined;
  const waits: { at: number; waitMs: number }[] = [];
  let unapplied: number[] = [];
  for (const e of events) {
    const at = eventTimeMs(e);
    if (e.workflowExecutionSignaledEventAttributes) unapplied.push(at);
    if (e.workflowTaskStartedEventAttributes) {
      for (const s of unapplied) waits.push({ at: s, waitMs: at - s });
      unapplied = [];
    }
  }
  const first = waits[0];
  return {
    events: events.length,
    signals: events.filter((e) => e.workflowExecutionSignaledEventAttributes).length,
    ...(first
      ? {
          firstSignalAtMs: first.at - started,
          firstSignalWaitMs: first.waitMs,
          maxSignalWaitMs: Math.max(...waits.map((w) => w.waitMs)),
        }
      : {}),
  };
}
