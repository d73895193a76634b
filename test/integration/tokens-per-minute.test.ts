import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startModelCall } from '../../client/model-call-client.js';
import { TENANT_QUERY, TENANT_SETTLE_SIGNAL } from '../../common/tenants.js';
import type { TenantSnapshot } from '../../common/tenants.js';
import type { ModelCallInput } from '../../common/call.js';
import { ok } from '../../loopback/index.js';
import { TOKEN_BUCKET_ID_PREFIX } from '../../activities/tenants/with-token-buckets.js';
import { useFixture } from '../harness/fixture.js';
import { finishCall, loopbackProviders } from '../harness/model-call.js';

/**
 * `limits.tokensPerMinute`: a fleet-wide bucket per backend, kept by a ledger workflow on the dev server. An
 * attempt reserves its bound (input estimate + `maxOutputTokens`) before it sends; one that does not fit sends
 * nothing and fails `CoolingDown` with when tokens free up; the provider's remaining-tokens headers cap it too.
 */
describe('limits: tokens per minute', () => {
  const { fx } = useFixture({ worker: false });
  const tag = randomUUID().slice(0, 8);
  const bucket = `bucket-${tag}`;
  const told = `told-${tag}`;

  const start = () =>
    fx.temporal.startWorker({
      deps: {
        providers: loopbackProviders(fx.lp, {
          tpm: {
            models: {
              [bucket]: { limits: { tokensPerMinute: 1_000 } },
              [told]: { limits: { tokensPerMinute: 100_000 } },
            },
          },
        }),
      },
    });

  const call = (model: string, retry: ModelCallInput['retry'] = { maxAttempts: 1 }): ModelCallInput => ({
    model: `tpm:${model}`,
    prompt: 'hi',
    settings: { maxOutputTokens: 300 },
    retry,
  });

  it('holds a backend to its tokens per minute across calls: the attempt that does not fit sends nothing', async () => {
    const worker = await start();
    fx.lp.script(bucket, [
      { ...ok('fits', { usage: { inputTokens: 10, outputTokens: 290 } }), repeat: true },
    ]);
    const runs = [];
    for (let i = 0; i < 4; i++) {
      runs.push(await finishCall(fx, await startModelCall(fx.temporal.client, call(bucket), worker)));
    }
    // Three fit (300 billed each, the fourth's 301 reserved would pass 1,000): it waits instead of being sent.
    expect(runs.slice(0, 3).map((r) => r.result?.output.text)).toEqual(['fits', 'fits', 'fits']);
    const refused = runs[3]?.records[0]?.failure;
    expect(refused?.class).toBe('CoolingDown');
    expect(refused?.message).toMatch(/^tokensPerMinute 1000 of tpm:bucket-\w+: \d+ tokens left/);
    expect(refused?.retryAfterMs).toBeGreaterThan(30_000);
    expect(fx.lp.requestCount(bucket)).toBe(3);
    const ledger = fx.temporal.client.workflow.getHandle(`${TOKEN_BUCKET_ID_PREFIX}tpm:${bucket}`);
    const seen = await ledger.query<TenantSnapshot>(TENANT_QUERY);
    expect(seen.envelope).toEqual({ maxTotalTokens: 1_000, windowMs: 60_000 });
    expect(seen.spent.tokens + seen.held.tokens).toBeLessThanOrEqual(1_000);
    await ledger.terminate('test over');
    await worker.stop();
  });

  it("waits for the provider's reset when its headers say no tokens are left, then sends", async () => {
    const worker = await start();
    const spent = { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '2s' };
    fx.lp.script(told, [
      ok('first', { usage: { inputTokens: 10, outputTokens: 290 }, headers: spent }),
      { ...ok('after the reset', { usage: { inputTokens: 10, outputTokens: 20 } }), repeat: true },
    ]);
    const first = await finishCall(fx, await startModelCall(fx.temporal.client, call(told), worker));
    expect(first.result?.output.text).toBe('first');
    const second = await finishCall(
      fx,
      await startModelCall(
        fx.temporal.client,
        call(told, {
          maxAttempts: 3,
          waits: [100],
          deadlineInMs: 30_000,
          reserveMs: 500,
          minAttemptMs: 1_000,
        }),
        worker,
      ),
    );
    expect(second.records.map((r) => r.failure?.class ?? r.outcome)).toEqual(['CoolingDown', 'succeeded']);
    expect(second.records[0]?.failure?.retryAfterMs).toBeLessThanOrEqual(2_000);
    expect(second.result?.output.text).toBe('after the reset');
    expect(fx.lp.requestCount(told)).toBe(2);
    // A stopping worker settles the lease it still holds (else its room stays counted until it leaves the window).
    const ledger = fx.temporal.client.workflow.getHandle(`${TOKEN_BUCKET_ID_PREFIX}tpm:${told}`);
    const settles = async () =>
      ((await ledger.fetchHistory()).events ?? []).filter(
        (e) => e.workflowExecutionSignaledEventAttributes?.signalName === TENANT_SETTLE_SIGNAL,
      ).length;
    const before = await settles();
    await worker.stop();
    expect(await settles()).toBe(before + 1);
    await ledger.terminate('test over');
  });
});
