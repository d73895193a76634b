import protoPackage from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { eventTimeMs } from '../../client/history-format.js';
import { startModelCall } from '../../client/model-call-client.js';
import { hang, ok } from '../../loopback/index.js';
import { HEARTBEAT_TIMEOUT_MS } from '../../workflows/call/model-call.js';
import { settleCall } from '../harness/chaos.js';
import { story } from '../harness/model-call.js';
import { until } from '../harness/until.js';
import { useChaosFixture } from '../harness/fixture.js';

const proto = protoPackage.temporal;

/** Far beyond the heartbeat timeout: were the loss noticed by start-to-close, the test would time out. */
const ATTEMPT_TIMEOUT_MS = 120_000;

describe('a worker killed -9 during an in-flight request', () => {
  const { fx, workers } = useChaosFixture({ workers: 2 });

  it('is noticed by the heartbeat timeout, recorded as WorkerLost, and the request is sent once more', async () => {
    fx.lp.script('in-request', [hang(), ok('from the survivor')]);
    const handle = await startModelCall(
      fx.client,
      {
        model: 'local:in-request',
        prompt: 'hi',
        retry: { waits: [10], attemptTimeoutMs: ATTEMPT_TIMEOUT_MS },
      },
      { taskQueue: fx.taskQueue, workflowId: 'chaos-killed-in-request' },
    );
    await fx.lp.waitForRequests(1, 'in-request');
    // Kill the worker running the attempt, as Temporal knows it.
    const runner = await until('the attempt to be started by a worker', async () => {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      return pending[0]?.lastWorkerIdentity || undefined;
    });
    const victim = workers.find((w) => runner.startsWith(w.identityPrefix));
    expect(victim, `the runner ${runner} is one of our workers`).toBeDefined();
    const killedAt = Date.now();
    await victim?.kill9();

    const run = await settleCall(fx.lp, handle);
    expect(run.result?.output.text).toBe('from the survivor');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'WorkerLost', action: 'retry-same', retryInMs: 10 },
      { backend: 0, outcome: 'succeeded' },
    ]);
    // Exactly one extra request; the first one ended when the dead worker's socket closed.
    expect(fx.lp.requests('in-request').map((r) => r.outcome)).toEqual(['client-aborted', 'completed']);

    // Temporal noticed by the heartbeat timeout, long before the start-to-close timeout could fire.
    const timedOut = (run.history.events ?? []).find((e) => e.activityTaskTimedOutEventAttributes);
    const timeout = timedOut?.activityTaskTimedOutEventAttributes?.failure?.timeoutFailureInfo;
    expect(timeout?.timeoutType).toBe(proto.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT);
    const noticedMs = eventTimeMs(timedOut ?? {}) - killedAt;
    console.info(`the lost attempt timed out ${noticedMs} ms after the kill`);
    expect(noticedMs).toBeLessThan(HEARTBEAT_TIMEOUT_MS + 15_000);
    expect(run.records[0]?.failure?.message).toMatch(/heartbeat/);
  });
});
