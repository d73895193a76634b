/**
 * The workflow's one stream (`@temporalio/workflow-streams`): streamed attempts publish their text deltas into
 * it from the activity, and the workflow publishes call events (an attempt started, a call stopped) itself.
 * The workflow decides whether a failed attempt delivered anything from this log alone.
 */
import {
  allHandlersFinished,
  CancellationScope,
  condition,
  defaultPayloadConverter,
  setHandler,
} from '@temporalio/workflow';
import {
  WorkflowStream,
  decodePayloadWire,
  workflowStreamPublishSignal,
} from '@temporalio/workflow-streams/workflow';
import type { PublishInput, WorkflowStreamState } from '@temporalio/workflow-streams/workflow';
import { countsAsDelivered, DELTA_TOPIC, EVENT_TOPIC } from '../common/stream.js';
import type { StreamDelta, StreamEvent } from '../common/stream.js';

let current: WorkflowStream | undefined;
/** The streamed attempts in flight, in the workflow's view: only their deltas are let into the log. */
const openAttempts = new Set<string>();

/**
 * The workflow's stream, created on first use (module state is per workflow run in Temporal's sandbox). A
 * workflow that has its own `WorkflowStream` passes it to `callModel` instead (a workflow has one stream:
 * constructing a second replaces the first one's handlers). `prior` is the state carried over continue-as-new;
 * it only counts on the first call.
 */
export function workflowStream(prior?: WorkflowStreamState): WorkflowStream {
  current ??= guardPublishes(new WorkflowStream(prior));
  return current;
}

/** The stream if this run created or was given one, else `undefined` (nothing was ever published). */
export function existingStream(): WorkflowStream | undefined {
  return current;
}

/** Makes `stream` the workflow's stream (a host's own), so later calls publish into it. */
export function adoptStream(stream: WorkflowStream): WorkflowStream {
  if (current !== stream) current = guardPublishes(stream);
  return stream;
}

/** Streamed attempt `modelCallId` was scheduled: its deltas are let in until `closeAttempt`. */
export function openAttempt(modelCallId: string): void {
  openAttempts.add(modelCallId);
}

/** The workflow has seen attempt `modelCallId` end: what it publishes from now on is dropped. */
export function closeAttempt(modelCallId: string): void {
  openAttempts.delete(modelCallId);
}

/**
 * Takes over the stream's publish signal: a delta from an attempt that the workflow no longer runs (one presumed
 * dead after a heartbeat timeout that publishes once its partition heals, while the retry streams) never reaches
 * the log, so subscribers never print it. Everything else goes through the stream's own handler unchanged
 * (its de-duplication by publisher and sequence included). The history reader applies the same rule.
 */
function guardPublishes(stream: WorkflowStream): WorkflowStream {
  const publish = (stream as unknown as { onPublish(input: PublishInput): void }).onPublish.bind(stream);
  setHandler(workflowStreamPublishSignal, (input: PublishInput) => {
    const items = input.items.filter((item) => {
      if (item.topic !== DELTA_TOPIC) return true;
      const id = deltaOf(item.data)?.modelCallId;
      return id !== undefined && openAttempts.has(id);
    });
    publish({ ...input, items });
  });
  return stream;
}

function deltaOf(data: string): Partial<StreamDelta> | undefined {
  try {
    return defaultPayloadConverter.fromPayload<Partial<StreamDelta>>(decodePayloadWire(data));
  } catch {
    return undefined;
  }
}

/**
 * Before the run ends: releases waiting subscribers with what the log holds (their polls answer now instead of
 * being abandoned) and waits for the handlers in flight, even in a cancelled run. Adds no history event.
 * `undefined` when there is nothing to wait for (no stream, or no handler in flight: nobody subscribed, the usual
 * case): then no scope, no condition and no promise, which Temporal's sandbox pays for with a stack trace each
 *. Handlers start only with an activation's jobs, so none can start before the run ends in this one.
 */
export function closeStream(): Promise<void> | undefined {
  const stream = current;
  if (!stream) return undefined;
  stream.detachPollers();
  if (allHandlersFinished()) return undefined;
  return CancellationScope.nonCancellable(() => condition(allHandlersFinished));
}

/**
 * What an agent turn carries of its stream log across continue-as-new, at most: the newest items up to this many
 * bytes of their wire form. A subscriber that fell further behind resumes from the oldest item carried (the
 * stream client does that on its own when its offset was truncated); the rest stays in the earlier run's history.
 */
export const STREAM_CARRY_BYTES = 256_000;

/**
 * Before continue-as-new: detaches subscribers (they follow to the next run), waits for handlers in flight,
 * drops the log items older than the newest `maxBytes` (so a long streamed turn never carries its whole log
 * into the next run's input), and returns the state the next run resumes the stream from; `undefined` when the
 * run has no stream.
 */
export async function handOverStream(
  maxBytes = STREAM_CARRY_BYTES,
): Promise<WorkflowStreamState | undefined> {
  if (!current) return undefined;
  current.detachPollers();
  await condition(allHandlersFinished);
  const state = current.getState();
  let bytes = 0;
  let keepFrom = state.log.length;
  while (keepFrom > 0) {
    const item = state.log[keepFrom - 1] as { topic: string; data: string };
    bytes += item.topic.length + item.data.length + 32;
    if (bytes > maxBytes) break;
    keepFrom -= 1;
  }
  if (keepFrom === 0) return state;
  current.truncate(state.base_offset + keepFrom);
  return current.getState();
}

/** Publishes a call event (free: it adds no history event, subscribers read it by polling). */
export function publishEvent(stream: WorkflowStream, event: StreamEvent): void {
  stream.topic<StreamEvent>(EVENT_TOPIC).publish(event);
}

/** What an attempt's deltas in the stream log add up to. */
export interface Delivered {
  deltas: number;
  text: string;
}

/**
 * The deltas of attempt `modelCallId` in the stream log, in order: how many, and their text. Reads the log
 * through the stream's public snapshot; called once per streamed attempt, when it ends.
 */
export function deliveredBy(stream: WorkflowStream, modelCallId: string): Delivered {
  let deltas = 0;
  let text = '';
  for (const item of stream.getState().log) {
    if (item.topic !== DELTA_TOPIC) continue;
    const delta = defaultPayloadConverter.fromPayload<Partial<StreamDelta>>(decodePayloadWire(item.data));
    if (delta?.modelCallId !== modelCallId || !countsAsDelivered(delta)) continue;
    deltas += 1;
    text += delta.text ?? '';
  }
  return { deltas, text };
}
