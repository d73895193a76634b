import type { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { fail, ok } from '../../loopback/index.js';
import { startModelCall } from '../../client/model-call-client.js';
import { subscribeCallStream } from '../../client/call-stream.js';
import type { CallStreamItem } from '../../client/call-stream.js';
import { readCallHistory } from '../../client/history-reader.js';
import { eventTypeName } from '../../client/history-format.js';
import { attemptsQuery, statusQuery } from '../../common/queries.js';
import { finishCall } from '../harness/model-call.js';
import type { ModelCallFixture } from '../harness/model-call.js';
import { until as untilValue } from '../harness/until.js';
import { useFixture } from '../harness/fixture.js';
import { readWholeStream, streamTrace } from '../harness/stream-trace.js';

/** Waits until `probe` holds (20 s at most, checked every 20 ms). */
const until = (what: string, probe: () => boolean | Promise<boolean>) =>
  untilValue(what, async () => ((await probe()) ? true : undefined), 20_000, 20);

const WORDS = ['The ', 'quick ', 'brown ', 'fox ', 'jumps ', 'over ', 'the ', 'lazy ', 'dog.'];
const ANSWER = WORDS.join('');

/** The events among a stream's items. */
const eventsOf = (items: readonly CallStreamItem[]) =>
  items.flatMap((i) => (i.kind === 'event' ? [i.event] : []));

/** Reads a workflow's stream until it ends, keeping every item. */
function collect(fx: ModelCallFixture, workflowId: string, fromOffset = 0) {
  const items: CallStreamItem[] = [];
  const done = (async () => {
    for await (const item of subscribeCallStream(fx.temporal.client, workflowId, {
      fromOffset,
      pollCooldownMs: 20,
    })) {
      items.push(item);
    }
  })();
  const text = (modelCallId?: string) =>
    items
      .flatMap((i) =>
        i.kind === 'delta' && (modelCallId === undefined || i.delta.modelCallId === modelCallId)
          ? [i.delta.text]
          : [],
      )
      .join('');
  return { items, done, text };
}

describe('streamed model calls', () => {
  const { fx, worker } = useFixture();

  it('delivers every delta of a stream that completes, and the result holds the same text', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok(undefined, { chunks: WORDS, chunkDelayMs: 15 })]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', stream: { batchMs: 20 } },
      { taskQueue: worker.taskQueue },
    );
    const reader = collect(fx, handle.workflowId);
    const run = await finishCall(fx, handle);
    await reader.done;
    expect(run.result?.output.text).toBe(ANSWER);
    expect(reader.text()).toBe(ANSWER);
    const deltas = reader.items.flatMap((i) => (i.kind === 'delta' ? [i.delta] : []));
    // Each text delta once, then the AI SDK's finish part (no text) of the accepted answer.
    expect(deltas.filter((d) => d.text !== '')).toHaveLength(WORDS.length);
    expect(deltas.map((d) => d.part?.type)).toEqual([...WORDS.map(() => undefined), 'finish']);
    expect(deltas.at(-1)?.part).toMatchObject({ type: 'finish', finishReason: { unified: 'stop' } });
    expect(fx.lp.requests(m.id)[0]?.stream).toBe(true);
    expect(run.records).toMatchObject([{ outcome: 'succeeded', streamedDeltas: WORDS.length }]);
    const events = reader.items.flatMap((i) => (i.kind === 'event' ? [i.event] : []));
    expect(events[0]).toEqual({
      type: 'attempt',
      callId: 'c1',
      modelCallId: 'c1.1',
      attempt: 1,
      model: m.name,
    });
    // The stop event is published as the run closes: a subscriber between two polls then reads it rebuilt from
    // the history, the same event.
    expect(events.slice(1)).toEqual([
      { type: 'stop', callId: 'c1', stopReason: 'succeeded', modelCallId: 'c1.1' },
    ]);
  });

  it("gives subscribers the AI SDK's parts besides the text, each once, and the record counts them delivered", async () => {
    const m = fx.model();
    fx.lp.script(m.id, [
      ok(undefined, { chunks: WORDS, chunkDelayMs: 5, reasoning: { text: 'Think first.' } }),
    ]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', stream: { batchMs: 20 } },
      { taskQueue: worker.taskQueue },
    );
    const reader = collect(fx, handle.workflowId);
    const run = await finishCall(fx, handle);
    await reader.done;
    const deltas = reader.items.flatMap((i) => (i.kind === 'delta' ? [i.delta] : []));
    const types = deltas.map((d) => d.part?.type ?? 'text');
    expect(types[0]).toBe('reasoning-start');
    expect(types.filter((t) => t === 'reasoning-start')).toHaveLength(1);
    expect(types.filter((t) => t === 'finish')).toHaveLength(1);
    expect(types.at(-1)).toBe('finish');
    const reasoning = deltas
      .flatMap((d) => (d.part?.type === 'reasoning-delta' ? [d.part.delta] : []))
      .join('');
    expect(reasoning).toBe('Think first.');
    expect(reader.text()).toBe(ANSWER);
    // Every item but the finish counts as delivered (the answer could not be sent again).
    expect(run.records).toMatchObject([{ outcome: 'succeeded', streamedDeltas: deltas.length - 1 }]);
    expect(run.result?.output.content?.[0]).toMatchObject({ type: 'reasoning', text: 'Think first.' });
  });

  it('retries a failure before the first delta, and the caller sees one clean answer', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(502), ok(undefined, { chunks: WORDS, cutAfterChunks: 0 }), ok(ANSWER)]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', stream: { batchMs: 20 }, retry: { waits: [10, 10] } },
      { taskQueue: worker.taskQueue },
    );
    const reader = collect(fx, handle.workflowId);
    const run = await finishCall(fx, handle);
    await reader.done;
    expect(run.records.map((r) => [r.outcome, r.failure?.class, r.streamedDeltas])).toEqual([
      ['failed', 'ServerError', 0],
      ['failed', 'ConnectionLost', 0],
      ['succeeded', undefined, ANSWER.split(' ').length],
    ]);
    expect(reader.text()).toBe(ANSWER);
    expect(run.result?.output.text).toBe(ANSWER);
    // A subscriber from 0 after the run closed reads it all from the history: the events rebuilt from the
    // attempts equal the ones the workflow published.
    const late = await readWholeStream(fx.temporal.client, handle.workflowId);
    expect(streamTrace(late)).toEqual([
      'attempt c1.1',
      'attempt c1.2',
      'attempt c1.3',
      ANSWER,
      'stop c1 succeeded',
    ]);
    expect(eventsOf(late)).toEqual(eventsOf(reader.items));
  });

  it('drops deltas not yet published when the attempt fails: they never reached the caller, so it is retried', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok(undefined, { chunks: WORDS, cutAfterChunks: 3 }), ok(ANSWER)]);
    // A 30 s batch: the three deltas before the cut are still in the attempt's batch when it fails.
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', stream: { batchMs: 30_000 }, retry: { waits: [10] } },
      { taskQueue: worker.taskQueue },
    );
    const reader = collect(fx, handle.workflowId);
    const run = await finishCall(fx, handle);
    await reader.done;
    expect(run.records.map((r) => [r.outcome, r.failure?.class, r.streamedDeltas])).toEqual([
      ['failed', 'ConnectionLost', 0],
      ['succeeded', undefined, ANSWER.split(' ').length],
    ]);
    expect(reader.text()).toBe(ANSWER);
  });

  it('stops stream-interrupted with the partial text when the connection drops after deltas reached the stream, and sends nothing again', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok(undefined, { chunks: WORDS, chunkDelayMs: 40, cutAfterChunks: 5 }), ok(ANSWER)]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', stream: { batchMs: 10 }, retry: { waits: [10, 10, 10] } },
      { taskQueue: worker.taskQueue },
    );
    const reader = collect(fx, handle.workflowId);
    const run = await finishCall(fx, handle);
    await reader.done;
    expect(fx.lp.requestCount(m.id)).toBe(1);
    expect(run.details?.stopReason).toBe('stream-interrupted');
    const partial = run.details?.partialText ?? '';
    // What reached the stream before the cut: at least one delta, at most the five sent.
    const delivered = run.records[0]?.streamedDeltas ?? 0;
    expect(delivered).toBeGreaterThan(0);
    expect(delivered).toBeLessThanOrEqual(5);
    expect(partial).toBe(WORDS.slice(0, delivered).join(''));
    expect(reader.text()).toBe(partial);
    expect(run.records).toHaveLength(1);
    expect(run.records[0]?.failure).toMatchObject({ class: 'StreamInterrupted' });
    expect(run.records[0]?.failure?.message).toMatch(/^ConnectionLost after \d+ streamed deltas: /);
    expect(run.records[0]?.failure?.action).toBeUndefined();
    expect(readCallHistory(run.history).stopReason).toBe('stream-interrupted');
    const late = await readWholeStream(fx.temporal.client, handle.workflowId);
    expect(streamTrace(late)).toEqual(['attempt c1.1', partial, 'stop c1 stream-interrupted']);
    expect(eventsOf(late)).toEqual(eventsOf(reader.items));
    fx.lp.reset();
  });

  it('lets two subscribers read the whole answer, one of them joining late from the start', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok(undefined, { chunks: WORDS, chunkDelayMs: 80 })]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', stream: { batchMs: 10 } },
      { taskQueue: worker.taskQueue },
    );
    const early = collect(fx, handle.workflowId);
    await until('three deltas at the first subscriber', () => early.text().split(' ').length > 3);
    const late = collect(fx, handle.workflowId, 0);
    await finishCall(fx, handle);
    await Promise.all([early.done, late.done]);
    expect(early.text()).toBe(ANSWER);
    expect(late.text()).toBe(ANSWER);
    // Both read the same log: an offset names the same item for both. (A subscriber between two polls when the
    // run closes reads its last deltas from history, without an offset: that tail is compared by text above.)
    const byOffset = (items: CallStreamItem[]) =>
      new Map(items.flatMap((i) => (i.offset === undefined ? [] : [[i.offset, JSON.stringify(i)] as const])));
    const seenEarly = byOffset(early.items);
    const seenLate = byOffset(late.items);
    expect(seenLate.size).toBeGreaterThan(0);
    for (const [offset, item] of seenLate)
      if (seenEarly.has(offset)) expect(item).toBe(seenEarly.get(offset));
  });

  it('ends a wait at once when cancelled', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(502)]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', stream: true, retry: { waits: [60_000] } },
      { taskQueue: worker.taskQueue },
    );
    await until('the wait', async () => (await handle.query(statusQuery))?.state === 'waiting');
    await handle.cancel();
    const error = await handle.result().catch((e: unknown) => e);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    const history = await handle.fetchHistory();
    const types = (history.events ?? []).map(eventTypeName);
    expect(types).toContain('TimerCanceled');
    expect(types).not.toContain('TimerFired');
    expect(fx.lp.requestCount(m.id)).toBe(1);
    expect(readCallHistory(history).attempts).toEqual(await handle.query(attemptsQuery));
    const late = await readWholeStream(fx.temporal.client, handle.workflowId);
    expect(streamTrace(late)).toEqual(['attempt c1.1', 'stop c1 cancelled']);
    fx.histories.push({ workflowId: handle.workflowId, history });
  });

  it('aborts the provider request when cancelled mid-stream', async () => {
    const m = fx.model();
    const chunks = Array.from({ length: 200 }, (_, i) => `w${i} `);
    fx.lp.script(m.id, [ok(undefined, { chunks, chunkDelayMs: 50 })]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: m.name, prompt: 'hi', stream: { batchMs: 10 } },
      { taskQueue: worker.taskQueue },
    );
    const reader = collect(fx, handle.workflowId);
    await until('a delta at the subscriber', () => reader.text().length > 0);
    await handle.cancel();
    const error = await handle.result().catch((e: unknown) => e);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    await reader.done;
    await until('the request to end', () => fx.lp.requests(m.id)[0]?.outcome !== 'pending');
    expect(fx.lp.requests(m.id)[0]?.outcome).toBe('client-aborted');
    const records = await handle.query(attemptsQuery);
    expect(records).toMatchObject([{ outcome: 'cancelled' }]);
    expect(records[0]?.streamedDeltas).toBeGreaterThan(0);
    const history = await handle.fetchHistory();
    expect(readCallHistory(history).attempts).toEqual(records);
    // The subscription ends with the cancelled run, with every delta the attempt delivered before it stopped.
    expect(reader.text()).toBe(chunks.slice(0, records[0]?.streamedDeltas).join(''));
    expect(streamTrace(reader.items)).toEqual(['attempt c1.1', reader.text(), 'stop c1 cancelled']);
    fx.histories.push({ workflowId: handle.workflowId, history });
  });

  it('refuses a bad stream setting before anything starts, naming the field', async () => {
    await expect(
      startModelCall(
        fx.temporal.client,
        { model: 'local:x', prompt: 'hi', stream: { batchMs: 1 } },
        { taskQueue: worker.taskQueue },
      ),
    ).rejects.toThrow(/`stream\.batchMs`: must be a whole number of milliseconds from 10 to 60000/);
  });
});
