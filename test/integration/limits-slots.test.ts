import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readHealth } from '../../activities/health/read.js';
import { healthWorkflowId } from '../../common/health.js';
import type { HealthSnapshot } from '../../common/health.js';
import { startModelCall } from '../../client/model-call-client.js';
import { ok, slow } from '../../loopback/index.js';
import { useFixture } from '../harness/fixture.js';
import { finishCall, loopbackProviders } from '../harness/model-call.js';
import { until } from '../harness/until.js';

/**
 * `maxInFlight` slots that never come, a model's limits beside its provider's (both hold), and the order they
 * are taken in (the model's first), on the dev server and the loopback provider.
 */
describe('limits: slots and layered limits', () => {
  const { fx } = useFixture({ worker: false });
  const tag = randomUUID().slice(0, 8);
  const single = `single-${tag}`;
  const layered = `layered-${tag}`;
  const capped = `capped-${tag}`;
  const free = `free-${tag}`;

  const start = () => {
    const providers = loopbackProviders(fx.lp, {
      held: {
        // One transient failure would trip it: a slot timeout must not.
        health: { trip: { failures: 1, windowMs: 60_000 }, coolDownMs: 60_000 },
        models: { [single]: { limits: { maxInFlight: 1 } } },
      },
      both: {
        limits: { maxInFlight: 1 },
        // The model's own limit is looser: the provider's still holds for it.
        models: { [layered]: { limits: { maxInFlight: 3 } } },
      },
      shared: {
        limits: { maxInFlight: 2 },
        models: { [capped]: { limits: { maxInFlight: 1 } } },
      },
    });
    return fx.temporal.startWorker({ deps: { providers, health: { flushMs: 100, refreshMs: 200 } } });
  };

  it('a slot that never came is CoolingDown: nothing sent, nothing counted as spent, no trip', async () => {
    const worker = await start();
    const model = `held:${single}`;
    fx.lp.script(single, [slow(6_000, ok('held answer'))]);
    const holder = await startModelCall(
      fx.temporal.client,
      { model, prompt: 'hi', retry: { attemptTimeoutMs: 120_000 } },
      { taskQueue: worker.taskQueue },
    );
    await fx.lp.waitForRequests(1, single);
    const waiter = await finishCall(
      fx,
      await startModelCall(
        fx.temporal.client,
        {
          model,
          prompt: 'hi',
          retry: { attemptTimeoutMs: 1_000, maxAttempts: 1 },
          budget: { maxTotalTokens: 1_000_000 },
        },
        { taskQueue: worker.taskQueue },
      ),
    );
    expect(waiter.records.map((r) => r.failure?.class)).toEqual(['CoolingDown']);
    expect(waiter.records[0]?.failure?.retryAfterMs).toBeUndefined();
    expect(waiter.details?.stopReason).toBe('attempts-exhausted');
    // Not a request that may have been billed (a ResponseTimeout would count its worst case).
    expect(waiter.details?.spent?.totalTokens ?? 0).toBe(0);
    expect(fx.lp.requestCount(single)).toBe(1);
    const held = await finishCall(fx, holder);
    expect(held.result?.output.text).toBe('held answer');
    // The backend's health saw the holder's answer and nothing of the waiter's attempt: still closed.
    const id = healthWorkflowId(worker.taskQueue, model);
    const seen = await until('the answer reported', async () => {
      const s: HealthSnapshot | undefined = await readHealth(fx.temporal.client, id);
      return s !== undefined && s.breaker.recent.length > 0 ? s : undefined;
    });
    expect(seen.breaker.recent.map((r) => r.outcome)).toEqual(['succeeded']);
    expect(seen.breaker.phase).toBe('closed');
    await fx.temporal.client.workflow.getHandle(id).terminate('test over');
    await worker.stop();
  });

  it("a model's maxInFlight and its provider's both hold: the stricter one wins", async () => {
    const worker = await start();
    fx.lp.script(layered, [slow(3_000, ok('first'))]);
    const model = `both:${layered}`;
    const input = { model, prompt: 'hi', retry: { attemptTimeoutMs: 60_000 } };
    const first = await startModelCall(fx.temporal.client, input, { taskQueue: worker.taskQueue });
    await fx.lp.waitForRequests(1, layered);
    // The provider's one slot is taken: a second attempt waits for it and gives up, sending nothing.
    const second = await finishCall(
      fx,
      await startModelCall(
        fx.temporal.client,
        { model, prompt: 'hi', retry: { attemptTimeoutMs: 1_000, maxAttempts: 1 } },
        { taskQueue: worker.taskQueue },
      ),
    );
    expect(second.records.map((r) => r.failure?.class)).toEqual(['CoolingDown']);
    expect(fx.lp.requestCount(layered)).toBe(1);
    expect((await finishCall(fx, first)).result?.output.text).toBe('first');
    await worker.stop();
  });

  it("attempts queued for a model's own slot hold none of its provider's: another model is served", async () => {
    const worker = await start();
    const opts = { taskQueue: worker.taskQueue };
    const retry = { attemptTimeoutMs: 60_000 };
    fx.lp.script(capped, [slow(8_000, ok('first')), ok('second'), ok('third')]);
    fx.lp.script(free, [ok('other model')]);
    const call = (model: string) =>
      startModelCall(fx.temporal.client, { model: `shared:${model}`, prompt: 'hi', retry }, opts);
    const first = await call(capped);
    await fx.lp.waitForRequests(1, capped);
    // Two more attempts on the capped model, started and waiting for its one slot.
    const queued = [await call(capped), await call(capped)];
    for (const handle of queued) {
      await until('the queued attempt to start', async () => {
        const pending = (await handle.describe()).raw.pendingActivities ?? [];
        return pending[0]?.lastWorkerIdentity || undefined;
      });
    }
    await new Promise((r) => setTimeout(r, 300));
    // The provider has two slots and one request out: the other model goes now, not after the capped queue.
    const other = await finishCall(fx, await call(free));
    expect(other.result?.output.text).toBe('other model');
    expect(fx.lp.requestCount(capped)).toBe(1);
    const texts = await Promise.all(
      [first, ...queued].map(async (h) => (await finishCall(fx, h)).result?.output.text),
    );
    expect(texts.sort()).toEqual(['first', 'second', 'third']);
    await worker.stop();
  });
});
