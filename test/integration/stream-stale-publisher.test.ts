import { defaultPayloadConverter } from '@temporalio/common';
import { WorkflowStreamClient } from '@temporalio/workflow-streams/client';
import { decodePayloadWire, workflowStreamPublishSignal } from '@temporalio/workflow-streams/workflow';
import type { PublishInput } from '@temporalio/workflow-streams/workflow';
import { describe, expect, it } from 'vitest';
import { fail, ok } from '../../loopback/index.js';
import { startModelCall } from '../../client/model-call-client.js';
import { subscribeCallStream } from '../../client/call-stream.js';
import { StreamDeliveries } from '../../client/history-stream.js';
import { DELTA_TOPIC } from '../../common/stream.js';
import type { StreamDelta } from '../../common/stream.js';
import { attemptsQuery } from '../../common/queries.js';
import { finishCall } from '../harness/model-call.js';
import { useFixture } from '../harness/fixture.js';
import { until } from '../harness/until.js';

const WORDS = ['The ', 'quick ', 'brown ', 'fox ', 'jumps ', 'over ', 'the ', 'lazy ', 'dog.'];
const ANSWER = WORDS.join('');

/** Every delta the history's publish signals carried, whether the workflow let it in or not. */
function signalledDeltas(events: readonly { workflowExecutionSignaledEventAttributes?: unknown }[]) {
  const out: StreamDelta[] = [];
  for (const event of events) {
    const signal = event.workflowExecutionSignaledEventAttributes as
      { signalName?: string; input?: { payloads?: unknown[] } } | undefined;
    if (signal?.signalName !== workflowStreamPublishSignal.name) continue;
    const input = defaultPayloadConverter.fromPayload<PublishInput>(
      signal.input?.payloads?.[0] as Parameters<typeof defaultPayloadConverter.fromPayload>[0],
    );
    for (const item of input.items)
      if (item.topic === DELTA_TOPIC)
        out.push(defaultPayloadConverter.fromPayload<StreamDelta>(decodePayloadWire(item.data)));
  }
  return out;
}

describe('a delta from an attempt the workflow no longer runs', () => {
  const { fx, worker } = useFixture();

  it('never reaches the stream, a subscriber, or the history reader, while the retry streams', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(502), ok(undefined, { chunks: WORDS, chunkDelayMs: 150 })]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', stream: { batchMs: 20 }, retry: { waits: [10] } },
      { taskQueue: worker.taskQueue },
    );
    const items: string[] = [];
    const reading = (async () => {
      for await (const item of subscribeCallStream(fx.temporal.client, handle.workflowId, {
        pollCooldownMs: 20,
      }))
        if (item.kind === 'delta') items.push(item.delta.text);
    })();
    // The first attempt failed and the second streams: a publisher of the first (presumed dead, its partition
    // healed) and one of an attempt never scheduled publish now.
    await until(
      'the second attempt is in flight',
      async () => ((await handle.query(attemptsQuery)).at(-1)?.attempt === 2 ? true : undefined),
      20_000,
      20,
    );
    const stale = WorkflowStreamClient.create(fx.temporal.client, handle.workflowId);
    stale.topic<StreamDelta>(DELTA_TOPIC).publish({ modelCallId: 'c1.1', text: 'GHOST ' });
    stale.topic<StreamDelta>(DELTA_TOPIC).publish({ modelCallId: 'c7.1', text: 'PHANTOM ' });
    await stale.flush();

    const run = await finishCall(fx, handle); // records equal the history reader's
    await reading;
    expect(signalledDeltas(run.history.events ?? []).map((d) => d.text)).toEqual(
      expect.arrayContaining(['GHOST ', 'PHANTOM ']),
    );
    expect(items.join('')).toBe(ANSWER);
    expect(run.records.map((r) => [r.outcome, r.streamedDeltas])).toEqual([
      ['failed', 0],
      ['succeeded', WORDS.length],
    ]);
    const fromHistory = new StreamDeliveries(run.history.events ?? []).all();
    expect(fromHistory.map((d) => d.text).join('')).toBe(ANSWER);
  });
});
