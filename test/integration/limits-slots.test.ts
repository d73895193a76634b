import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import { readHealth } from '../../activities/health/read.js';
import { healthWorkflowId } from '../../common/health.js';
import type { HealthSnapshot } from '../../common/health.js';
import { startModelCall } from '../../client/model-call-client.js';
import { ok, slow } from '../../loopback/index.js';
import { useFixture } from '../harness/fixture.js';
import { finishCall, TEST_SECRETS } from '../harness/model-call.js';
import { until } from '../harness/agent-turn.js';

/**
 * `maxInFlight` slots that never come, and a model's limits beside its provider's (both hold), on the dev
 * server and the loopback provider.
 */
describe('limits: slots and layered limits', () => {
  const { fx } = useFixture({ worker: false });
  const tag = randomUUID().slice(0, 8);
  const single = `single-${tag}`;
  const layered = `layered-${tag}`;

  const start = () => {
    const providers = createProviderRegistry(
      {
        held: {
          type: 'openai-compatible',
          baseURL: fx.lp.openaiBaseURL,
          apiKeyEnv: 'LOOPBACK_KEY',
          // One transient failure would trip it: a slot timeout must not.
          health: { trip: { failures: 1, windowMs: 60_000 }, coolDownMs: 60_000 },
          models: { [single]: { limits: { maxInFlight: 1 } } },
        },
        both: {
          type: 'openai-compatible',
          baseURL: fx.lp.openaiBaseURL,
          apiKeyEnv: 'LOOPBACK_KEY',
          limits: { maxInFlight: 1 },
          // The model's own limit is looser: the provider's still holds for it.
          models: { [layered]: { limits: { maxInFlight: 3 } } },
        },
      },
      { env: { LOOPBACK_KEY: TEST_SECRETS.apiKey } },
    );
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
});
