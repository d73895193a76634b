import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InFlightLimits } from '../../../activities/attempt/in-flight.js';
import { createModelRequest } from '../../../activities/attempt/model-request.js';
import type { ModelRequestInput } from '../../../activities/index.js';
import { ok, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { attemptFailure, input, loopbackRegistry, quietEnvironment } from './helpers.js';

/**
 * An attempt that can send only with less than the plan's `minAttemptMs` left (it waited in its rate-limit queue,
 * or for a `maxInFlight` slot) sends nothing: `CoolingDown`, no usage, no request at the loopback provider.
 * The activity runs in a real activity context against the loopback provider; its clock is given (`now`), so
 * the time left is exact however loaded the machine is.
 */
let lp: LoopbackProvider;
beforeEach(async () => {
  lp = await startLoopbackProvider();
});
afterEach(async () => {
  await lp.close();
});

const T0 = Date.parse('2026-01-01T00:00:00Z');

function attempt(extra: Partial<ModelRequestInput>, now: () => number, inFlight?: InFlightLimits) {
  const modelRequest = createModelRequest({
    providers: () => loopbackRegistry(lp),
    now,
    ...(inFlight ? { inFlight } : {}),
  });
  return quietEnvironment().run(modelRequest, input('local:m', extra));
}

describe('an attempt with less than minAttemptMs left when it could send', () => {
  it.each([
    // [ms left before spendUntil as the activity starts, minAttemptMs, sent?]
    [5_000, 5_000, true],
    [4_999, 5_000, false],
    [30, 1_000, false],
    [0, 0, false],
    [-50, 1_000, false],
    [10_000, 0, true],
  ] as const)('%i ms left, minAttemptMs %i: sent %s', async (left, minAttemptMs, sent) => {
    lp.script('m', [ok('answer')]);
    const run = attempt({ timeoutMs: 30_000, spendUntil: T0 + left, minAttemptMs }, () => T0);
    if (sent) {
      await expect(run).resolves.toMatchObject({ text: 'answer' });
      expect(lp.requestCount('m')).toBe(1);
      return;
    }
    const { details } = await attemptFailure(run);
    expect(details.class).toBe('CoolingDown');
    expect(details.message).toMatch(/less than minAttemptMs \(\d+ ms\): nothing was sent/);
    expect(details.usage).toBeUndefined();
    expect(details.retryAfterMs).toBeUndefined();
    expect(lp.requestCount('m')).toBe(0);
  });

  it('also without a deadline: the wait for a slot counts toward T, and the slot is given back', async () => {
    lp.script('m', [ok('answer')]);
    const inFlight = new InFlightLimits(() => ({ 'local:m': { maxInFlight: 1 } }));
    const holder = await inFlight.acquire('local:m', new AbortController().signal, 1_000);
    let clock = T0;
    const run = attempt({ timeoutMs: 5_000, minAttemptMs: 1_000 }, () => clock, inFlight);
    // The slot frees when (by the attempt's clock) 4.5 s of its 5 s went by waiting: 500 ms left.
    setTimeout(() => {
      clock += 4_500;
      holder();
    }, 50);
    const { details } = await attemptFailure(run);
    expect(details.class).toBe('CoolingDown');
    expect(details.message).toContain('only 500 ms');
    expect(lp.requestCount('m')).toBe(0);
    // The slot it took on its way out is free again.
    (await inFlight.acquire('local:m', new AbortController().signal, 0))();
  });

  it('stops waiting for a slot once a slot could no longer leave minAttemptMs', async () => {
    /** Keeps how long each wait for a slot was allowed to last. */
    class RecordingLimits extends InFlightLimits {
      readonly waits: number[] = [];
      override acquire(model: string, signal: AbortSignal, timeoutMs: number) {
        this.waits.push(timeoutMs);
        return super.acquire(model, signal, timeoutMs);
      }
    }
    const inFlight = new RecordingLimits(() => ({ 'local:m': { maxInFlight: 1 } }));
    const holder = await inFlight.acquire('local:m', new AbortController().signal, 1_000);
    // 1.2 s left, at least 1 s needed: a slot coming after 200 ms is of no use, so the wait ends there.
    const run = attempt({ timeoutMs: 1_200, minAttemptMs: 1_000 }, () => T0, inFlight);
    const { details } = await attemptFailure(run);
    expect(inFlight.waits).toEqual([1_000, 200]);
    expect(details.class).toBe('CoolingDown');
    expect(details.message).toMatch(/no free slot for "local:m"/);
    holder();
    expect(lp.requestCount('m')).toBe(0);
  });

  it('a slot wait that fails for another reason than no slot is not CoolingDown (nothing says the backend is cooling)', async () => {
    class BrokenLimits extends InFlightLimits {
      override acquire(): Promise<() => void> {
        return Promise.reject(new RangeError('a bug in the slot wait'));
      }
    }
    const inFlight = new BrokenLimits(() => ({ 'local:m': { maxInFlight: 1 } }));
    const run = attempt({ timeoutMs: 30_000 }, () => T0, inFlight);
    const { details } = await attemptFailure(run);
    expect(details.class).not.toBe('CoolingDown');
    expect(details.message).toContain('a bug in the slot wait');
    expect(lp.requestCount('m')).toBe(0);
  });
});
