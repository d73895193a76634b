import { describe, expect, it } from 'vitest';
import { StreamedText, subscribeCallStream } from '../../client/call-stream.js';
import { startModelCall } from '../../client/model-call-client.js';
import { continuing, ok } from '../../loopback/index.js';
import type { ModelCallFailedDetails } from '../../common/call.js';
import { settleCall } from '../harness/chaos.js';
import { until } from '../harness/until.js';
import { useChaosFixture } from '../harness/fixture.js';

describe('a worker killed -9 in the middle of a streamed answer', () => {
  const { fx, workers } = useChaosFixture({ workers: 2 });

  it('ends stream-interrupted with the text that reached the stream, and the request is never sent again', async () => {
    const chunks = Array.from({ length: 400 }, (_, i) => `w${i} `);
    fx.lp.script('mid-stream', [ok(undefined, { chunks, chunkDelayMs: 50 }), ok('a second answer')]);
    const handle = await startModelCall(
      fx.client,
      { model: 'local:mid-stream', prompt: 'hi', stream: { batchMs: 50 }, retry: { waits: [10, 10] } },
      { taskQueue: fx.taskQueue, workflowId: 'chaos-killed-mid-stream' },
    );
    let seen = '';
    const reading = (async () => {
      for await (const item of subscribeCallStream(fx.client, handle.workflowId, { pollCooldownMs: 20 })) {
        if (item.kind === 'delta') seen += item.delta.text;
      }
    })();
    await until('deltas at the subscriber', async () => (seen.length > 0 ? true : undefined));
    const runner = await until('the attempt to be started by a worker', async () => {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      return pending[0]?.lastWorkerIdentity || undefined;
    });
    const victim = workers.find((w) => runner.startsWith(w.identityPrefix));
    expect(victim, `the runner ${runner} is one of our workers`).toBeDefined();
    await victim?.kill9();

    const run = await settleCall(fx.lp, handle);
    await reading;
    const details = run.failure?.details?.[0] as ModelCallFailedDetails | undefined;
    expect(details?.stopReason).toBe('stream-interrupted');
    // One request, cut when the dead worker's socket closed; the survivor never sent it again.
    expect(fx.lp.requests('mid-stream').map((r) => r.outcome)).toEqual(['client-aborted']);
    expect(run.records).toHaveLength(1);
    const [record] = run.records;
    expect(record?.failure?.class).toBe('StreamInterrupted');
    expect(record?.failure?.message).toMatch(/^WorkerLost after \d+ streamed deltas: /);
    const delivered = record?.streamedDeltas ?? 0;
    expect(delivered).toBeGreaterThan(0);
    expect(delivered).toBeLessThan(chunks.length);
    expect(details?.partialText).toBe(chunks.slice(0, delivered).join(''));
    expect(seen).toBe(details?.partialText);
    fx.lp.reset();
  });
  it('with onCut continue, the text goes on from the last delivered character on the survivor and the next backend', async () => {
    // The case above killed one of the two workers: one more, so a survivor is left after this kill.
    workers.push(await fx.startWorker());
    const text = Array.from({ length: 400 }, (_, i) => `w${i} `).join('');
    fx.lp.script('mid-stream-a', [continuing(text, 'exact', { chunkDelayMs: 50 })]);
    fx.lp.script('mid-stream-b', [continuing(text)]);
    const handle = await startModelCall(
      fx.client,
      {
        model: ['local:mid-stream-a', 'local:mid-stream-b'],
        prompt: 'hi',
        stream: { batchMs: 50, onCut: 'continue' },
        retry: { waits: [10, 10], actions: { WorkerLost: 'advance' } },
      },
      { taskQueue: fx.taskQueue, workflowId: 'chaos-killed-mid-stream-continued' },
    );
    const shown = new StreamedText();
    const reading = (async () => {
      for await (const item of subscribeCallStream(fx.client, handle.workflowId, { pollCooldownMs: 20 })) {
        shown.take(item);
      }
    })();
    await until('deltas at the subscriber', async () => (shown.text.length > 0 ? true : undefined));
    const runner = await until('the attempt to be started by a worker', async () => {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      return pending[0]?.lastWorkerIdentity || undefined;
    });
    const victim = workers.find((w) => runner.startsWith(w.identityPrefix));
    expect(victim, `the runner ${runner} is one of our workers`).toBeDefined();
    await victim?.kill9();

    const run = await settleCall(fx.lp, handle);
    await reading;
    expect(run.result?.output.text).toBe(text);
    // Every character once: what the subscriber read is the answer.
    expect(shown.text).toBe(text);
    expect(run.records).toMatchObject([
      { backend: 0, failure: { class: 'WorkerLost', action: 'advance' } },
      { backend: 1, outcome: 'succeeded', continues: 'c1.1' },
    ]);
    const delivered = run.records[0]?.deliveredChars ?? 0;
    expect(delivered).toBeGreaterThan(0);
    expect(delivered).toBeLessThan(text.length);
    expect(fx.lp.requests('mid-stream-b')[0]?.continuation).toEqual({
      delivered: text.slice(0, delivered),
      form: 'instruction',
    });
    fx.lp.reset();
  });
});
