import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import type { Activities } from '../../activities/index.js';
import { startModelCall } from '../../client/model-call-client.js';
import { healthWorkflowId } from '../../common/health.js';
import { ok } from '../../loopback/index.js';
import { useFixture } from '../harness/fixture.js';
import { finishCall, loopbackProviders } from '../harness/model-call.js';

/**
 * Without a deadline the waits list (or maxAttempts) bounds a call: a backend that fleet health keeps cooling is
 * waited for no more often than the list has waits, not once per cool-down until maxAttempts.
 */
describe('a call without a deadline on a backend that stays cooling', () => {
  const { fx } = useFixture({ worker: false });

  it('waits: [100] makes two attempts, both CoolingDown, and stops attempts-exhausted', async () => {
    const id = `stays-${randomUUID().slice(0, 8)}`;
    const model = `staysq:${id}`;
    // Fleet health on, and a rate limit: the workflow asks the worker's copy of the backend before each attempt.
    const providers = loopbackProviders(fx.lp, {
      staysq: { health: {}, models: { [id]: { limits: { requestsPerSecond: 50 } } } },
    });
    const activities = createActivities({ providers, health: { flushMs: 100, refreshMs: 200 } });
    let checks = 0;
    // The worker's copy says the backend is open for another 300 ms at every check: an outage whose probes fail
    // elsewhere in the fleet, shortened so that each cool-down takes a moment (a real one is 30 s to 5 min).
    const staysCooling: Pick<Activities, 'backendCooling'> = {
      backendCooling() {
        checks += 1;
        return Promise.resolve(300);
      },
    };
    const taskQueue = `stays-${randomUUID()}`;
    const worker = await Worker.create({
      connection: fx.temporal.nativeConnection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: { ...activities, ...staysCooling },
    });
    fx.lp.script(id, [{ ...ok('never sent'), repeat: true }]);
    const run = await worker.runUntil(async () => {
      // maxAttempts 12 keeps the old behaviour (a wait per cool-down until maxAttempts) finite in this test.
      const input = { model, prompt: 'hi', retry: { waits: [100], maxAttempts: 12 } };
      return finishCall(fx, await startModelCall(fx.temporal.client, input, { taskQueue }));
    });
    expect(run.records.map((r) => r.failure?.class)).toEqual(['CoolingDown', 'CoolingDown']);
    expect(run.records[0]?.failure?.retryAfterMs).toBe(300);
    expect(run.details?.stopReason).toBe('attempts-exhausted');
    expect(run.details?.lastDecision?.why).toMatch(/cooling down.*every planned wait is used/);
    expect(checks).toBe(2);
    expect(fx.lp.requestCount(id)).toBe(0);
    await fx.temporal.client.workflow
      .getHandle(healthWorkflowId(taskQueue, model))
      .terminate('test over')
      .catch(() => undefined);
  });
});
