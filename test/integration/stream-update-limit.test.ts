import { describe, expect, it } from 'vitest';
import { subscribeCallStream } from '../../client/call-stream.js';
import { startModelCall } from '../../client/model-call-client.js';
import { ok } from '../../loopback/index.js';
import { useOwnServer } from '../harness/fixture.js';

/**
 * Every subscriber poll is a workflow update, and Temporal allows a run only so many (2,000 by default). This file
 * runs its own dev server with the allowance lowered to a few, so a streamed answer outlasts it.
 */
describe('a stream that outlasts the updates Temporal allows a run', () => {
  const fx = useOwnServer({
    extraArgs: ['--dynamic-config-value', 'history.maxTotalUpdates=6'],
    taskQueue: 'stream-update-limit',
  });

  it('still gives a subscriber from the start every delta, read from history once the run has closed', async () => {
    const chunks = Array.from({ length: 40 }, (_, i) => `w${i} `);
    fx.lp.script('long', [ok(undefined, { chunks, chunkDelayMs: 40 })]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model: 'local:long', prompt: 'hi', stream: { batchMs: 20 } },
      { taskQueue: fx.taskQueue },
    );
    let text = '';
    let live = 0;
    let fromHistory = 0;
    for await (const item of subscribeCallStream(fx.temporal.client, handle.workflowId, {
      pollCooldownMs: 10,
    })) {
      if (item.kind !== 'delta') continue;
      text += item.delta.text;
      if (item.offset === undefined) fromHistory += 1;
      else live += 1;
    }
    const result = await handle.result();
    expect(result.output.text).toBe(chunks.join(''));
    expect(text).toBe(chunks.join(''));
    // Some deltas came live, until the polls were refused; the rest from the closed run's history.
    expect(live).toBeGreaterThan(0);
    expect(fromHistory).toBeGreaterThan(0);
    const history = await handle.fetchHistory();
    fx.histories.push({ workflowId: handle.workflowId, history });
    const updates = (history.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
    expect(updates.length).toBeLessThanOrEqual(6);
  });
});
