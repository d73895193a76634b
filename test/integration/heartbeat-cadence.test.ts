import { WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { optionalTsToMs } from '@temporalio/common/lib/time.js';
import { describe, expect, it } from 'vitest';
import { ok, slow } from '../../loopback/index.js';
import { startModelCall } from '../../client/model-call-client.js';
import { attemptsQuery } from '../../common/queries.js';
import { useFixture } from '../harness/fixture.js';
import { until } from '../harness/until.js';

/** The heartbeat timeout of every attempt the run scheduled, in ms, from its `ActivityTaskScheduled` events. */
async function heartbeatTimeouts(handle: WorkflowHandle): Promise<(number | undefined)[]> {
  const { events } = await handle.fetchHistory();
  return (events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'modelRequest')
    .map((a) => optionalTsToMs(a?.heartbeatTimeout));
}

/**
 * The attempt's heartbeat cadence as the contract gives it ("What a call costs on Temporal"): every c (the
 * worker's `maxHeartbeatThrottleInterval`, default 5 s), a heartbeat timeout of 3c, and a cancel that reaches the
 * request within c plus a round trip.
 */
describe('the heartbeat cadence', () => {
  const { fx } = useFixture({ worker: false });

  it('at the default 5 s: a cancelled 30 s attempt ends CANCELED, its request aborted within one beat plus a round trip', async () => {
    const worker = await fx.temporal.startWorker({ deps: { providers: fx.providers } });
    try {
      const m = fx.model();
      fx.lp.script(m.id, [slow(30_000, ok('never'))]);
      const handle = await startModelCall(
        fx.temporal.client,
        { model: m.name, prompt: 'hi', retry: { waits: [10] } },
        { taskQueue: worker.taskQueue },
      );
      await until('the request', async () => (fx.lp.requestCount(m.id) === 1 ? true : undefined));
      const cancelledAt = Date.now();
      await handle.cancel();
      const error = await handle.result().catch((e: unknown) => e);
      const endedAt = Date.now();
      expect(error).toBeInstanceOf(WorkflowFailedError);
      expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      expect((await handle.query(attemptsQuery)).map((r) => r.outcome)).toEqual(['cancelled']);
      await fx.lp.idle();
      const [request] = fx.lp.requests(m.id);
      expect(request?.outcome).toBe('client-aborted');
      // The contract's bound: the cancel waits at most one beat (5 s), plus a round trip (a workflow task that
      // cancels the attempt, and the heartbeat's answer), given room for a loaded machine. Not a speed measure:
      // at the old 250 ms cadence it is under a second, at a 10 s one up to 10 s (bench/profile/measure-cadence.ts).
      expect((request?.endedAt ?? Infinity) - cancelledAt).toBeLessThanOrEqual(5000 + 4000);
      expect(endedAt).toBeGreaterThanOrEqual(request?.endedAt ?? 0);
      expect(await heartbeatTimeouts(handle)).toEqual([15_000]);
      fx.histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
    } finally {
      await worker.stop();
    }
  });

  it("gives attempts a heartbeat timeout of three beats of their worker's cadence", async () => {
    const worker = await fx.temporal.startWorker({
      deps: { providers: fx.providers },
      heartbeatThrottleMs: 1000,
    });
    try {
      const m = fx.model();
      fx.lp.script(m.id, [ok('at once')]);
      const handle = await startModelCall(
        fx.temporal.client,
        { model: m.name, prompt: 'hi' },
        { taskQueue: worker.taskQueue },
      );
      await handle.result();
      expect(await heartbeatTimeouts(handle)).toEqual([3000]);
      fx.histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
    } finally {
      await worker.stop();
    }
  });
});
