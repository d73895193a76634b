import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { healthWorkflowId } from '../../common/health.js';
import { eventTypeName } from '../../client/history-format.js';
import { startModelCall } from '../../client/model-call-client.js';
import { ok, rateLimited } from '../../loopback/index.js';
import { useFixture } from '../harness/fixture.js';
import { finishCall, loopbackProviders } from '../harness/model-call.js';
import type { CallRun } from '../harness/model-call.js';

/** The task queue of each attempt activity scheduled in `history`, in order. */
function attemptQueues(run: CallRun): string[] {
  return (run.history.events ?? []).flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    return a && a.activityType?.name === 'modelRequest' ? [a.taskQueue?.name ?? ''] : [];
  });
}

/** How many markers (local activities) the call's history has. */
const markers = (run: CallRun): number =>
  (run.history.events ?? []).map(eventTypeName).filter((t) => t === 'MarkerRecorded').length;

/** An attempt on a cooling backend sends nothing, so it must not wait for the backend's rate either. */
describe('limits and fleet health: a cooling backend takes no rate token', () => {
  const { fx } = useFixture({ worker: false });
  const id = `gated-${randomUUID().slice(0, 8)}`;
  const model = `gated:${id}`;

  it("fails an open backend's attempts at once on the call's queue, not through its limit queue", async () => {
    const providers = loopbackProviders(fx.lp, {
      gated: {
        health: { coolDownMs: 120_000 },
        // One attempt every 10 s: an attempt that waited for a token would wait that long per call.
        models: { [id]: { limits: { requestsPerSecond: 0.1 } } },
      },
    });
    const worker = await fx.temporal.startWorker({
      deps: { providers, health: { flushMs: 100, refreshMs: 200 } },
    });
    const limitQueue = `${worker.taskQueue}/limit/${model}`;
    fx.lp.script(id, [rateLimited(600), { ...ok('never'), repeat: true }]);
    const call = async (): Promise<CallRun> =>
      finishCall(
        fx,
        await startModelCall(
          fx.temporal.client,
          { model, prompt: 'hi', retry: { maxAttempts: 1 } },
          { taskQueue: worker.taskQueue },
        ),
      );
    // A 429 with a retry-after opens the backend for the fleet (this worker's copy at once).
    const first = await call();
    expect(first.records.map((r) => r.failure?.class)).toEqual(['RateLimited']);
    expect(attemptQueues(first)).toEqual([limitQueue]);
    // The worker's config, and the cooling check before the attempt on a rate-limited backend: a marker each.
    expect(markers(first)).toBe(2);

    const cooled = await Promise.all([call(), call(), call()]);
    for (const run of cooled) {
      expect(run.records.map((r) => r.failure?.class)).toEqual(['CoolingDown']);
      expect(run.records[0]?.failure?.retryAfterMs).toBeGreaterThan(60_000);
      expect(attemptQueues(run)).toEqual([worker.taskQueue]);
    }
    expect(fx.lp.requestCount(id)).toBe(1);
    await fx.temporal.client.workflow
      .getHandle(healthWorkflowId(worker.taskQueue, model))
      .terminate('test over');
    await worker.stop();
  });
});
