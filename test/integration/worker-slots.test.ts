import { describe, expect, it } from 'vitest';
import { ok } from '../../loopback/index.js';
import { useFixture } from '../harness/fixture.js';
import { runCall } from '../harness/model-call.js';

/**
 * A worker must not take more attempts than it can heartbeat: 5,000 calls queued on one worker with 500 fixed
 * activity slots lost half as `WorkerLost` (BENCHMARKS.md 11). model-retry's worker, as `createModelRetryWorkers`
 * builds it, takes its activity slots from Temporal's resource-based supplier, and still runs calls.
 */
describe("a model-retry worker's activity slots", () => {
  const { fx } = useFixture({ worker: false });

  it('follow the machine (Temporal resource-based supplier, 100 to 500), and the worker runs calls', async () => {
    const worker = await fx.temporal.startWorker({ deps: { providers: fx.providers } });
    try {
      expect(worker.worker.options.tuner.activityTaskSlotSupplier).toMatchObject({
        type: 'resource-based',
        minimumSlots: 100,
        maximumSlots: 500,
      });
      expect(worker.worker.options.tuner.workflowTaskSlotSupplier).toEqual({
        type: 'fixed-size',
        numSlots: 40,
      });
      const m = fx.model();
      fx.lp.script(m.id, [ok('answered')]);
      const run = await runCall(fx, worker, { model: m.name, prompt: 'hi' });
      expect(run.result?.output.text).toBe('answered');
    } finally {
      await worker.stop();
    }
  });
});
