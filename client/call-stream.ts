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
import { eventKey, runTail } from './stream-tail.js';
import type { CarriedLog, TailItem } from './stream-tail.js';
import { chainEvents, followToCurrentRun, gapBefore, stillGoing } from './stream-chain.js';
import type { FollowingClient } from './stream-chain.js';
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
 * ends with every delta of the chain, once, even one that fell behind or started after earlier runs had closed;
 * and with every attempt's event and every stop the history tells that came after what it read live, once. The same holds when the run has used up Temporal's updates per run
 * (each poll is one; 2,000 by default): a subscriber from 0 then waits for the run to close and reads the rest
 * from its history; one from another offset fails with Temporal's error.
 */
export async function* subscribeCallStream(
  client: Client,
  workflowId: string,
  options: SubscribeCallStreamOptions = {},
): AsyncGenerator<CallStreamItem, void, undefined> {
  const stream = followToCurrentRun(WorkflowStreamClient.create(client, workflowId), client, workflowId);
  const polledRun = () => (stream as unknown as Partial<FollowingClient>).polledRunId;
  const pollCooldown = options.pollCooldownMs ?? 100;
  const read = new ReadSoFar();
  const fromStart = (options.fromOffset ?? 0) === 0;
  let next = options.fromOffset ?? 0;
  let run = polledRun();
  let refusals = 0;
  for (;;) {
    const items = stream.subscribe<StreamDelta | StreamEvent>([DELTA_TOPIC, EVENT_TOPIC], next, {
      pollCooldown,
      resultType: true,
    });
    try {
      for await (const item of items) {
        refusals = 0;
        // The poll moved to another run and resumed past items it had not read: the log a turn carried into
        // that run was cut there. Those items are in the closed runs' histories: they come now, in order, before
        // the carried ones. (Within a run, a skipped offset is an item of another topic.)
        const moved = polledRun() !== run;
        run = polledRun();
        if (fromStart && moved && item.offset > next)
          yield* read.fill(...(await gapBefore(client, workflowId, item.offset)));
        next = item.offset + 1;
        yield read.live(item);
      }
      // The library also ends a subscription whose poll timed out in a run that still runs (a quiet stream, a long
      // wait): the stream has not ended, so it polls again. Asked of the run it polled: a new run that took the
      // workflow id after that one closed is another stream.
      if (!(await stillGoing(client, workflowId, polledRun()))) break;
      await sleep(Math.max(pollCooldown, MIN_REPOLL_MS));
    } catch (error) {
      // A poll refused because the workflow task that was to admit it failed (its worker died, say): the run goes
      // on with another task, so the subscription polls again from where it was, backing off while it fails.
      if (workflowTaskFailed(error)) {
        await sleep(
          Math.min(MAX_RETRY_MS, Math.max(pollCooldown, RETRY_AFTER_TASK_FAILURE_MS) * 2 ** refusals),
        );
        refusals += 1;
        continue;
      }
      // Cancelling the workflow cancels the poll waiting in it: the stream ends with the run.
      const cancelled = error instanceof WorkflowUpdateFailedError && error.cause instanceof CancelledFailure;
      if (!cancelled && !(updatesExhausted(error) && fromStart)) throw error;
      // No poll is admitted any more (the run was cancelled, or took all the updates Temporal allows it), but
      // deltas may still come (a cancelled attempt publishes until it notices): once the run has closed, the rest
      // of the stream is read from its history (late, but complete).
      await client.workflow
        .getHandle(workflowId)
        .result()
        .catch(() => undefined);
      break;
    }
  }
  if (!fromStart) return;
  const chain = await chainEvents(client, workflowId, polledRun());
  yield* read.fill(chain.flatMap((events) => runTail(events)));
}

/**
 * What a subscriber from offset 0 has read: of each attempt, how many deltas (always its first ones: what it
 * read is the log from 0 on, or from histories in the same order), and the events by `eventKey`.
 */
class ReadSoFar {
  private readonly deltas = new Map<string, number>();
  private readonly events = new Set<string>();

  live(item: { topic: string; offset: number; data: unknown }): CallStreamItem {
    if (item.topic === DELTA_TOPIC) {
      const delta = item.data as StreamDelta;
      this.deltas.set(delta.modelCallId, (this.deltas.get(delta.modelCallId) ?? 0) + 1);
      return { kind: 'delta', offset: item.offset, delta };
    }
    const event = item.data as StreamEvent;
    this.events.add(eventKey(event));
    return { kind: 'event', offset: item.offset, event };
  }

  /**
   * The items of `tail` not read yet, in its order; with `carried`, not those the log carried into the next
   * run holds either (they come live next: each attempt's newest deltas, its events). An event placed before the
   * last item read is not rebuilt: missed in the middle (behind a cut the gap did not cover), it would come
   * after later ones and tell a reader that an old attempt started; its deltas still come.
   */
  *fill(tail: readonly TailItem[], carried?: CarriedLog): Generator<CallStreamItem> {
    const total = new Map<string, number>();
    for (const item of tail)
      if (item.kind === 'delta') total.set(item.modelCallId, (total.get(item.modelCallId) ?? 0) + 1);
    const upTo = (id: string) => (total.get(id) ?? 0) - (carried?.deltas.get(id) ?? 0);
    const isRead = (item: TailItem) =>
      item.kind === 'event'
        ? this.events.has(eventKey(item.event))
        : item.index < (this.deltas.get(item.modelCallId) ?? 0);
    const lastRead = tail.findLastIndex(isRead);
    for (const [i, item] of tail.entries()) {
      if (isRead(item)) continue;
      if (item.kind === 'event') {
        const key = eventKey(item.event);
        if (i < lastRead || carried?.events.has(key)) continue;
        this.events.add(key);
        yield { kind: 'event', offset: undefined, event: item.event };
        continue;
      }
      if (item.index >= upTo(item.modelCallId)) continue;
      this.deltas.set(item.modelCallId, item.index + 1);
      const { modelCallId, text, part } = item;
      yield {
        kind: 'delta',
        offset: undefined,
        delta: { modelCallId, text, ...(part !== undefined ? { part } : {}) },
      };
    }
    // What the carried log holds of an attempt follows what came from history, as its next deltas.
    for (const id of carried?.deltas.keys() ?? []) this.deltas.set(id, Math.max(0, upTo(id)));
  }
}

/** The least wait before a subscription the library ended polls again, ms (`pollCooldownMs` may be 0). */
const MIN_REPOLL_MS = 50;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * How long a subscription waits before it polls again after a workflow task failed to admit its poll, ms: doubled
 * at each refusal in a row, up to `MAX_RETRY_MS`.
 */
const RETRY_AFTER_TASK_FAILURE_MS = 500;
const MAX_RETRY_MS = 30_000;

/**
 * Whether `error` is Temporal refusing an update because the workflow task that was to admit it failed
 * (`FAILED_PRECONDITION`, "... unexpected workflow task failure"): not the subscription's fault, nor the end.
 */
function workflowTaskFailed(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (isGrpcServiceError(e))
      return e.code === FAILED_PRECONDITION && /workflow task failure/i.test(e.message);
  }
  return false;
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
