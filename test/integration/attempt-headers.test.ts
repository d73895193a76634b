import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkflowFailedError } from '@temporalio/client';
import { attemptHeadersHeld } from '../../activities/health/attempt-headers.js';
import { fail, hang, ok, rateLimited } from '../../loopback/index.js';
import { startModelCall } from '../../client/model-call-client.js';
import type { ModelCallInput } from '../../common/call.js';
import { finishCall, loopbackProviders } from '../harness/model-call.js';
import { until } from '../harness/until.js';
import { useFixture } from '../harness/fixture.js';
import type { TestWorker } from '../harness/temporal.js';

/**
 * The response headers an attempt saw (fleet health reads a rate-limit reset from them) are kept only while the
 * attempt runs: a worker answering calls for days holds none of them once its calls are done, whether fleet
 * health watches the backend or not (off is the default).
 */
describe("an attempt's response headers", () => {
  const { fx } = useFixture({ worker: false });
  const taskQueue = `attempt-headers-${Date.now()}`;
  let worker: TestWorker;
  let n = 0;
  const model = (provider: 'off' | 'on') => {
    n += 1;
    return { id: `ah-${provider}-${n}`, name: `${provider}:ah-${provider}-${n}` };
  };

  beforeAll(async () => {
    const providers = loopbackProviders(fx.lp, {
      // No health entry, on a worker without fleet health: the default.
      off: {},
      // Watched, with a trip no test here reaches.
      on: { health: { trip: { failures: 1_000, windowMs: 60_000 } } },
    });
    worker = await fx.temporal.startWorker({ deps: { providers, env: {} }, taskQueue });
  });
  afterAll(async () => {
    await worker.stop();
    for await (const w of fx.temporal.client.workflow.list({
      query: `WorkflowId STARTS_WITH "model-retry-health:${taskQueue}:"`,
    })) {
      if (w.status.name === 'RUNNING')
        await fx.temporal.client.workflow.getHandle(w.workflowId).terminate('test over');
    }
  });

  const run = async (input: ModelCallInput) =>
    finishCall(fx, await startModelCall(fx.temporal.client, input, { taskQueue }));

  for (const provider of ['off', 'on'] as const) {
    it(`are let go when the attempt ends (answered, failed or cancelled), fleet health ${provider}`, async () => {
      const before = attemptHeadersHeld();
      const m = model(provider);
      fx.lp.script(m.id, [
        ok('one'),
        ok('two'),
        fail(503),
        ok('after a 503'),
        rateLimited(0),
        ok('after a 429'),
        hang(),
      ]);
      const retry = { waits: [10, 10], retriesPerBackend: 2 };
      for (let i = 0; i < 2; i++) expect((await run({ model: m.name, prompt: 'hi' })).result).toBeDefined();
      const failedOnce = await run({ model: m.name, prompt: 'hi', retry });
      expect(failedOnce.records.map((r) => r.failure?.class)).toEqual(['ServerError', undefined]);
      const limited = await run({ model: m.name, prompt: 'hi', retry });
      expect(limited.records.map((r) => r.failure?.class)).toEqual(['RateLimited', undefined]);
      // A cancelled attempt: its request is in flight when the call is cancelled.
      const handle = await startModelCall(fx.temporal.client, { model: m.name, prompt: 'hi' }, { taskQueue });
      await until('the hanging request', async () => (fx.lp.requestCount(m.id) === 7 ? true : undefined));
      await handle.cancel();
      await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
      fx.histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
      // Every attempt of these calls has ended (each call's workflow closed after its attempts reported).
      expect(attemptHeadersHeld() - before).toBe(0);
    });
  }
});
