/**
 * Publishes a streamed attempt's text deltas into its workflow's stream (`@temporalio/workflow-streams`), in
 * batches: deltas collect for `batchMs`, then go out as one signal, and the next batch waits for that signal's
 * acknowledgement, so batches arrive in order. What was not yet sent when the attempt fails is dropped (it never
 * reached the caller, so the attempt may still be retried cleanly); what was sent is in the workflow's log.
 */
import { log } from '@temporalio/activity';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { DELTA_TOPIC } from '../../common/stream.js';
import type { StreamDelta, StreamPart } from '../../common/stream.js';

/** A streamed attempt's publisher. */
export interface DeltaPublisher {
  /** Queues one provider delta (or another part of the answer); the batch it joins goes out at most `batchMs` later. */
  add(text: string, part?: StreamPart): void;
  /** The answer is complete: sends what is queued and waits until every batch was acknowledged. */
  finish(): Promise<void>;
  /** The attempt failed: drops what is queued and waits for a batch already on its way (sent or not). */
  abandon(): Promise<void>;
  /** How many deltas were handed to the stream so far (acknowledged or on their way). */
  readonly sent: number;
}

/** How a publisher reaches the stream; by default the activity's own workflow. */
export type StreamClientFactory = () => WorkflowStreamClient;

const fromActivity: StreamClientFactory = () =>
  // The batching is ours (`batchMs`); the client's own flusher only runs on our explicit flushes.
  WorkflowStreamClient.fromWithinActivity({ batchInterval: '1 hour', maxRetryDuration: '30 seconds' });

/** A publisher for attempt `modelCallId` that sends a batch every `batchMs`. */
export function createDeltaPublisher(
  modelCallId: string,
  batchMs: number,
  open: StreamClientFactory = fromActivity,
): DeltaPublisher {
  let client: WorkflowStreamClient | undefined;
  let queued: StreamDelta[] = [];
  let timer: NodeJS.Timeout | undefined;
  let chain: Promise<void> = Promise.resolve();
  let sent = 0;

  const send = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (queued.length === 0) return chain;
    const batch = queued;
    queued = [];
    client ??= open();
    const target = client;
    const topic = target.topic<StreamDelta>(DELTA_TOPIC);
    sent += batch.length;
    chain = chain.then(async () => {
      for (const delta of batch) topic.publish(delta);
      try {
        await target.flush();
      } catch (error) {
        log.warn('streamed deltas could not be published', { modelCallId, error: String(error) });
      }
    });
    return chain;
  };
  const dispose = async (): Promise<void> => {
    if (client) await client[Symbol.asyncDispose]().catch(() => undefined);
  };

  return {
    add(text, part) {
      if (text === '' && part === undefined) return;
      queued.push(part === undefined ? { modelCallId, text } : { modelCallId, text, part });
      timer ??= setTimeout(() => void send(), batchMs);
    },
    async finish() {
      await send();
      await dispose();
    },
    async abandon() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      queued = [];
      await chain;
      await dispose();
    },
    get sent() {
      return sent;
    },
  };
}
