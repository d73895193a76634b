/** A streamed call's chain of runs, read from Temporal: their histories, whether the stream goes on, what to follow. */
import type { Client } from '@temporalio/client';
import type { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { fetchDecodedHistory } from './decode-history.js';
import { carriedLog, runTail } from './stream-tail.js';
import type { CarriedLog, TailItem } from './stream-tail.js';
import type { HistoryEvent } from './history-events.js';

/**
 * The items a subscriber missed when its poll resumed at `offset`, the oldest item of the log a run of the chain
 * started with: every item of the runs before it, and that run's carried log (which it reads next, live). None
 * when no run started with a log at that offset, or the histories cannot be read now: the missed items then come
 * from the histories at the end (deltas each once as far as the counts tell; events not rebuilt out of order).
 */
export async function gapBefore(
  client: Client,
  workflowId: string,
  offset: number,
): Promise<[tail: TailItem[], carried?: CarriedLog]> {
  try {
    const chain = await chainEvents(client, workflowId);
    const at = chain.findIndex((events) => carriedLog(events)?.baseOffset === offset);
    const carried = at > 0 ? carriedLog(chain[at] ?? []) : undefined;
    if (!carried) return [[]];
    return [chain.slice(0, at).flatMap((events) => runTail(events)), carried];
  } catch {
    return [[]];
  }
}

/**
 * Whether the stream of run `runId` of workflow `workflowId` (its current run when the subscription never
 * polled) goes on: that run still runs, or continued as new (the next poll follows it). A failed describe says no.
 */
export async function stillGoing(
  client: Client,
  workflowId: string,
  runId: string | undefined,
): Promise<boolean> {
  const description = await client.workflow
    .getHandle(workflowId, runId)
    .describe()
    .catch(() => undefined);
  const status = description?.status.name;
  return status === 'RUNNING' || status === 'CONTINUED_AS_NEW';
}

/**
 * The stream client follows continue-as-new by describing the run its last poll was admitted to, and keeps
 * describing that run until another poll is admitted. A subscriber whose last poll was in a run that continued
 * as new, and whose next poll finds the whole chain closed (a slow reader, or one paused between two polls),
 * was told "continued as new, follow" for ever (a hang, busy with requests). Following now moves the run it
 * describes to the chain's current one, so the next refused poll sees that run closed and ends the subscription.
 * (`followContinueAsNew` and `polledRunId` are the client's own members in @temporalio/workflow-streams 1.23.)
 */
export function followToCurrentRun(
  stream: WorkflowStreamClient,
  client: Client,
  workflowId: string,
): WorkflowStreamClient {
  const inner = stream as unknown as FollowingClient;
  if (typeof inner.followContinueAsNew !== 'function') return stream;
  const follow = inner.followContinueAsNew.bind(stream);
  inner.followContinueAsNew = async () => {
    if (!(await follow())) return false;
    inner.polledRunId = await client.workflow
      .getHandle(workflowId)
      .describe()
      .then((d) => d.runId)
      .catch(() => undefined);
    return true;
  };
  return stream;
}

export interface FollowingClient {
  polledRunId: string | undefined;
  followContinueAsNew(): Promise<boolean>;
}

/**
 * The decoded events of every run of workflow `workflowId`'s chain, oldest run first: a subscriber that fell
 * behind (or started) after earlier runs closed finds their deltas only in their own histories.
 */
export async function chainEvents(
  client: Client,
  workflowId: string,
  through?: string,
): Promise<HistoryEvent[][]> {
  const newest = await chainBack(client, workflowId, undefined);
  // The newest run's chain is not the one the subscriber followed (a new run took the workflow id after it
  // closed): that chain ends with the run it polled last.
  if (through === undefined || newest.ids.includes(through)) return newest.runs;
  return (await chainBack(client, workflowId, through)).runs;
}

/** The chain of runs that ends with run `last` (the current run when `undefined`), oldest first, with their ids. */
export async function chainBack(
  client: Client,
  workflowId: string,
  last: string | undefined,
): Promise<{ runs: HistoryEvent[][]; ids: string[] }> {
  const runs: HistoryEvent[][] = [];
  const ids: string[] = [];
  let runId = last;
  do {
    const history = await fetchDecodedHistory(client.workflow.getHandle(workflowId, runId));
    const events = history.events ?? [];
    const started = events[0]?.workflowExecutionStartedEventAttributes;
    runs.unshift(events);
    ids.unshift(runId ?? started?.originalExecutionRunId ?? '');
    runId = started?.continuedExecutionRunId || undefined;
  } while (runId !== undefined);
  return { runs, ids };
}
