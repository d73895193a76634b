/**
 * Reading a call's (or a turn's) stream from outside: its text deltas and call events, in order, from any
 * offset. Each subscriber keeps its own position; one that starts late and reads from 0 sees everything the
 * workflow still holds. The subscription ends when the workflow closes.
 */
import { isGrpcServiceError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { DELTA_TOPIC, EVENT_TOPIC } from '../common/stream.js';
import { fetchDecodedHistory } from './decode-history.js';
import { eventKey, runTail } from './stream-tail.js';
import type { HistoryEvent } from './history-events.js';
import type { StreamDelta, StreamEvent } from '../common/stream.js';

/**
 * One item of a call's stream. `offset` is its place in the stream; it is `undefined` for an item read from the
 * run's history after the run closed (the tail a subscriber between two polls had not read yet): a delta from
 * its publish signal, an event rebuilt from the attempts the history records.
 */
export type CallStreamItem =
  | { kind: 'delta'; offset: number | undefined; delta: StreamDelta }
  | { kind: 'event'; offset: number | undefined; event: StreamEvent };

/** Options of `subscribeCallStream`. */
export interface SubscribeCallStreamOptions {
  /** The offset to read from (0: from the start). @default 0 */
  fromOffset?: number;
  /** Least time between two polls, ms; each poll is an update (events in the workflow's history). @default 100 */
  pollCooldownMs?: number;
}

/**
 * The items of workflow `workflowId`'s stream, from `fromOffset` on, until the workflow closes (following its
 * continue-as-new chain). A run that closes ends every subscription, and a subscriber that was between two polls
 * then has not read the last items: those are read from the histories of the chain's runs (the deltas from their
 * publish signals, the events rebuilt from the attempts) and yielded last, so a subscriber from offset 0 always
 * ends with every delta of the chain, once, and every attempt's event and every stop the history tells, once,
 * even one that fell behind or started after earlier runs had closed. The same holds when the run has used up Temporal's updates per run
 * (each poll is one; 2,000 by default): a subscriber from 0 then waits for the run to close and reads the rest
 * from its history; one from another offset fails with Temporal's error.
 */
export async function* subscribeCallStream(
  client: Client,
  workflowId: string,
  options: SubscribeCallStreamOptions = {},
): AsyncGenerator<CallStreamItem, void, undefined> {
  const stream = followToCurrentRun(WorkflowStreamClient.create(client, workflowId), client, workflowId);
  const items = stream.subscribe<StreamDelta | StreamEvent>(
    [DELTA_TOPIC, EVENT_TOPIC],
    options.fromOffset ?? 0,
    { pollCooldown: options.pollCooldownMs ?? 100, resultType: true },
  );
  const seen = new Map<string, number>();
  const seenEvents = new Set<string>();
  try {
    for await (const item of items) {
      if (item.topic === DELTA_TOPIC) {
        const delta = item.data as StreamDelta;
        seen.set(delta.modelCallId, (seen.get(delta.modelCallId) ?? 0) + 1);
        yield { kind: 'delta', offset: item.offset, delta };
      } else {
        const event = item.data as StreamEvent;
        seenEvents.add(eventKey(event));
        yield { kind: 'event', offset: item.offset, event };
      }
    }
  } catch (error) {
    // Cancelling the workflow cancels the poll waiting in it: the stream ends with the run.
    const cancelled = error instanceof WorkflowUpdateFailedError && error.cause instanceof CancelledFailure;
    if (!cancelled && !(updatesExhausted(error) && (options.fromOffset ?? 0) === 0)) throw error;
    // No poll is admitted any more (the run was cancelled, or took all the updates Temporal allows it), but
    // deltas may still come (a cancelled attempt publishes until it notices): once the run has closed, the rest
    // of the stream is read from its history (late, but complete).
    await client.workflow
      .getHandle(workflowId)
      .result()
      .catch(() => undefined);
  }
  if ((options.fromOffset ?? 0) !== 0) return;
  for (const events of await chainEvents(client, workflowId)) {
    for (const item of runTail(events)) {
      if (item.kind === 'event') {
        const key = eventKey(item.event);
        if (seenEvents.has(key)) continue;
        seenEvents.add(key);
        yield { kind: 'event', offset: undefined, event: item.event };
        continue;
      }
      const count = seen.get(item.modelCallId) ?? 0;
      if (item.index < count) continue;
      seen.set(item.modelCallId, item.index + 1);
      yield { kind: 'delta', offset: undefined, delta: { modelCallId: item.modelCallId, text: item.text } };
    }
  }
}

/**
 * The stream client follows continue-as-new by describing the run its last poll was admitted to, and keeps
 * describing that run until another poll is admitted. A subscriber whose last poll was in a run that continued
 * as new, and whose next poll finds the whole chain closed (a slow reader, or one paused between two polls),
 * was told "continued as new, follow" for ever (a hang, busy with requests). Following now moves the run it
 * describes to the chain's current one, so the next refused poll sees that run closed and ends the subscription.
 * (`followContinueAsNew` and `polledRunId` are the client's own members in @temporalio/workflow-streams 1.23.)
 */
function followToCurrentRun(
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

interface FollowingClient {
  polledRunId: string | undefined;
  followContinueAsNew(): Promise<boolean>;
}

/**
 * The decoded events of every run of workflow `workflowId`'s chain, oldest run first: a subscriber that fell
 * behind (or started) after earlier runs closed finds their deltas only in their own histories.
 */
async function chainEvents(client: Client, workflowId: string): Promise<HistoryEvent[][]> {
  const runs: HistoryEvent[][] = [];
  let runId: string | undefined;
  do {
    const history = await fetchDecodedHistory(client.workflow.getHandle(workflowId, runId));
    const events = history.events ?? [];
    runs.unshift(events);
    runId = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  } while (runId !== undefined);
  return runs;
}

/** Whether `error` is Temporal refusing an update because the run has had as many as it may. */
function updatesExhausted(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (isGrpcServiceError(e))
      return e.code === FAILED_PRECONDITION && /number of .*updates/i.test(e.message);
  }
  return false;
}

const FAILED_PRECONDITION = 9;

/**
 * The answer text a reader shows: the deltas of the latest attempt that started (an attempt that delivered
 * nothing and failed is replaced by the next one). Feed it every item; `text` is what to show so far.
 */
export class StreamedText {
  private attempt: string | undefined;
  text = '';

  /** Takes an item; returns the text to append to what was shown, or `undefined` when nothing new. */
  take(item: CallStreamItem): string | undefined {
    if (item.kind === 'event') {
      if (item.event.type === 'attempt') this.attempt = item.event.modelCallId;
      return undefined;
    }
    if (this.attempt !== undefined && item.delta.modelCallId !== this.attempt) return undefined;
    this.text += item.delta.text;
    return item.delta.text;
  }
}
