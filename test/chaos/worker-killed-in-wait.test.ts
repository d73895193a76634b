import { describe, expect, it } from 'vitest';
import { eventTimeMs } from '../../client/history-format.js';
import { startModelCall } from '../../client/model-call-client.js';
import { fail, ok } from '../../loopback/index.js';
import { settleCall, workflowTaskIdentity } from '../harness/chaos.js';
import { until } from '../harness/until.js';
import { story } from '../harness/model-call.js';
import { useChaosFixture } from '../harness/fixture.js';

/** A dead worker's sticky queue takes up to 10 s to give up; the contract allows 15 s after the wait's end. */
const RESUME_GRACE_MS = 15_000;
const WAIT_MS = 8000;

describe('a worker killed -9 during a durable wait', () => {
  const { fx, workers } = useChaosFixture({ workers: 2 });

  it('is replaced by another worker that finishes the call without repeating an attempt', async () => {
    fx.lp.script('in-wait', [fail(502), ok('after the wait')]);
    const handle = await startModelCall(
      fx.client,
      { model: 'local:in-wait', prompt: 'hi', retry: { waits: [WAIT_MS] } },
      { taskQueue: fx.taskQueue, workflowId: 'chaos-killed-in-wait' },
    );
    const timerStarted = await until('the durable wait to start', async () =>
      ((await handle.fetchHistory()).events ?? []).find((e) => e.timerStartedEventAttributes),
    );
    // Kill the worker that holds the call: the one whose workflow task started the timer.
    const history = await handle.fetchHistory();
    const holder = workflowTaskIdentity(
      history,
      Number(timerStarted.timerStartedEventAttributes?.workflowTaskCompletedEventId),
    );
    const victim = workers.find((w) => holder?.startsWith(w.identityPrefix));
    const survivor = workers.find((w) => w !== victim);
    expect(victim, `the holder ${holder} is one of our workers`).toBeDefined();
    const firesAt = eventTimeMs(timerStarted) + WAIT_MS;
    const killedAt = Date.now();
    expect(((await handle.fetchHistory()).events ?? []).some((e) => e.timerFiredEventAttributes)).toBe(false);
    await victim?.kill9();

    const run = await settleCall(fx.lp, handle);
    expect(run.result?.output.text).toBe('after the wait');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: WAIT_MS },
      { backend: 0, outcome: 'succeeded' },
    ]);
    expect(fx.lp.requestCount('in-wait')).toBe(2);
    expect(workflowTaskIdentity(run.history)?.startsWith(survivor?.identityPrefix ?? '-')).toBe(true);

    // A contract bound, not a speed measurement: resumed within the remaining wait plus the sticky timeout.
    const resumedAt = fx.lp.requests('in-wait')[1]?.receivedAt ?? Number.POSITIVE_INFINITY;
    const remainingMs = Math.max(0, firesAt - killedAt);
    console.info(
      `worker killed ${remainingMs} ms before the timer fired; the call resumed ${resumedAt - killedAt} ms after the kill`,
    );
    expect(resumedAt - killedAt).toBeLessThanOrEqual(remainingMs + RESUME_GRACE_MS);
  });
});
