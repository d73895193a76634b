import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startModelCall } from '../../client/model-call-client.js';
import { ok, slow } from '../../loopback/index.js';
import { useFixture } from '../harness/fixture.js';
import { finishCall, loopbackProviders } from '../harness/model-call.js';

/**
 * An attempt that gets its `maxInFlight` slot only with less than the plan's `minAttemptMs` left before the
 * call's deadline sends nothing: it stops waiting when a slot could no longer leave `minAttemptMs`, fails
 * `CoolingDown` (not billed), and the call stops on `deadline`. Dev server and loopback provider.
 */
describe('limits: too little time left to send', () => {
  const { fx } = useFixture({ worker: false });
  const model = `late-${randomUUID().slice(0, 8)}`;

  it('fails the attempt unsent, and the deadline rule stops the call', async () => {
    const providers = loopbackProviders(fx.lp, {
      held: {
        models: { [model]: { limits: { maxInFlight: 1 } } },
      },
    });
    const worker = await fx.temporal.startWorker({ deps: { providers } });
    const backend = `held:${model}`;
    // The holder keeps the one slot for 9 s; then the waiter's answer would come at once.
    fx.lp.script(model, [slow(9_000, ok('held answer')), ok('late answer')]);
    const opts = { taskQueue: worker.taskQueue };
    const holder = await startModelCall(fx.temporal.client, { model: backend, prompt: 'hi' }, opts);
    await fx.lp.waitForRequests(1, model);
    // 13 s to spend, 8 s of it needed for an attempt: a slot later than ~5 s into the wait is of no use (before
    // the fix, the attempt waited for the slot at ~9 s and sent with ~4 s left).
    const retry = { deadlineInMs: 14_000, reserveMs: 1_000, minAttemptMs: 8_000, attemptTimeoutMs: 60_000 };
    const waiter = await finishCall(
      fx,
      await startModelCall(
        fx.temporal.client,
        { model: backend, prompt: 'hi', retry, budget: { maxTotalTokens: 1_000_000 } },
        opts,
      ),
    );
    expect(waiter.records.map((r) => r.failure?.class)).toEqual(['CoolingDown']);
    expect(waiter.details?.stopReason).toBe('deadline');
    expect(waiter.details?.spent?.totalTokens ?? 0).toBe(0);
    expect((await finishCall(fx, holder)).result?.output.text).toBe('held answer');
    expect(fx.lp.requestCount(model)).toBe(1);
    await worker.stop();
  });
});
