import { describe, expect, it } from 'vitest';
import { ProvidersConfigError, parseProvidersConfig } from '../../../activities/providers/config.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import { InFlightLimits, NoSlotError } from '../../../activities/attempt/in-flight.js';
import { attemptQueueOf, limitKeyOf, limitKeysOf, queueRates } from '../../../common/limits.js';

const local = { type: 'openai-compatible', baseURL: 'http://127.0.0.1:8080/v1' } as const;

/** The problems a config is refused with. */
function problems(config: unknown): readonly string[] {
  try {
    parseProvidersConfig(config, 'test.json');
  } catch (error) {
    if (error instanceof ProvidersConfigError) return error.problems;
    throw error;
  }
  throw new Error('the config was accepted');
}

describe('limits in the providers file', () => {
  it('accepts limits on a provider and on one of its models, and reads them by key', () => {
    const registry = createProviderRegistry({
      local: {
        ...local,
        limits: { requestsPerSecond: 5 },
        models: { fast: { limits: { maxInFlight: 2 } }, plain: {} },
      },
      other: { ...local },
    });
    expect(registry.limits?.()).toEqual({
      local: { requestsPerSecond: 5 },
      'local:fast': { maxInFlight: 2 },
    });
  });

  it.each([
    [{ limits: { requestsPerSecond: 0 } }, '`local.limits.requestsPerSecond` must be a number above 0'],
    [{ limits: { requestsPerSecond: '5' } }, '`local.limits.requestsPerSecond` must be a number above 0'],
    [{ limits: { maxInFlight: 1.5 } }, '`local.limits.maxInFlight` must be a whole number of at least 1'],
    [{ limits: { maxInFlight: 0 } }, '`local.limits.maxInFlight` must be a whole number of at least 1'],
    [
      { limits: { tokensPerMinute: 0 } },
      '`local.limits.tokensPerMinute` must be a whole number of at least 1',
    ],
    [
      { limits: { tokensPerMinute: 1.5 } },
      '`local.limits.tokensPerMinute` must be a whole number of at least 1',
    ],
    [
      { limits: { rps: 5 } },
      '`local.limits.rps` is not a known limit (known: requestsPerSecond, maxInFlight, tokensPerMinute)',
    ],
    [{ limits: 5 }, '`local.limits` must be an object like'],
    [{ models: [] }, '`local.models` must be an object of model names to settings'],
    [{ models: { fast: { limits: { maxInFlight: -1 } } } }, '`local.models.fast.limits.maxInFlight` must be'],
    // One `models` map holds a model's limits and its pricing (budgets): anything else is refused.
    [
      { models: { fast: { price: {} } } },
      '`local.models.fast.price` is not a known field of a model (known: pricing, limits, prefill, maxOutputTokens)',
    ],
  ])('refuses %j naming the field', (extra, message) => {
    expect(problems({ local: { ...local, ...extra } }).join('\n')).toContain(message);
  });
});

describe('which limits hold for a backend, and where its attempts run', () => {
  const limits = { local: { requestsPerSecond: 5 }, 'local:fast': { maxInFlight: 2 } };

  it("takes the model's own entry over its provider's, else the provider's, else none", () => {
    expect(limitKeyOf('local:fast', limits)).toBe('local:fast');
    expect(limitKeyOf('local:slow', limits)).toBe('local');
    expect(limitKeyOf('other:fast', limits)).toBeUndefined();
    expect(limitKeyOf('local:fast', undefined)).toBeUndefined();
  });

  it('runs an attempt on its limit queue only when its key has a requestsPerSecond', () => {
    expect(attemptQueueOf('q', 'local:slow', limits)).toBe('q/limit/local');
    // Its own maxInFlight does not lift its provider's requestsPerSecond: both hold.
    expect(attemptQueueOf('q', 'local:fast', limits)).toBe('q/limit/local');
    expect(attemptQueueOf('q', 'other:x', limits)).toBeUndefined();
    const own = { ...limits, 'local:fast': { requestsPerSecond: 1 } };
    expect(attemptQueueOf('q', 'local:fast', own)).toBe('q/limit/local:fast');
  });

  it("holds a model's limits and its provider's both: provider first, then model", () => {
    expect(limitKeysOf('local:fast', limits)).toEqual(['local', 'local:fast']);
    expect(limitKeysOf('local:slow', limits)).toEqual(['local']);
    expect(limitKeysOf('other:fast', limits)).toEqual([]);
  });

  it("gives a provider's queue what its models' own queues leave of its rate", () => {
    const rates = (l: Record<string, { requestsPerSecond?: number }>) => Object.fromEntries(queueRates(l));
    expect(rates({ a: { requestsPerSecond: 10 }, 'a:m': { requestsPerSecond: 2 }, b: {} })).toEqual({
      a: 8,
      'a:m': 2,
    });
    // The models would take more than half: scaled down together to half, the provider's queue keeps half.
    expect(
      rates({
        a: { requestsPerSecond: 10 },
        'a:m': { requestsPerSecond: 10 },
        'a:n': { requestsPerSecond: 30 },
      }),
    ).toEqual({
      a: 5,
      'a:m': 1.25,
      'a:n': 3.75,
    });
    expect(rates({ 'a:m': { requestsPerSecond: 3 } })).toEqual({ 'a:m': 3 });
  });
});

describe('maxInFlight slots', () => {
  const slots = () => new InFlightLimits(() => ({ 'local:fast': { maxInFlight: 1 } }));
  const never = new AbortController().signal;

  it('gives a slot at once to an unlimited backend, and to the first request of a limited one', async () => {
    const inFlight = slots();
    await inFlight.acquire('local:other', never, 1000);
    await inFlight.acquire('local:other', never, 1000);
    const release = await inFlight.acquire('local:fast', never, 1000);
    release();
  });

  it('makes the next request wait until a slot is released', async () => {
    const inFlight = slots();
    const release = await inFlight.acquire('local:fast', never, 1000);
    let granted = false;
    const next = inFlight.acquire('local:fast', never, 10_000).then((r) => ((granted = true), r));
    await new Promise((r) => setTimeout(r, 20));
    expect(granted).toBe(false);
    release();
    (await next)();
  });

  it('gives up a wait on cancellation (leaving the queue) and at the timeout', async () => {
    const inFlight = slots();
    const release = await inFlight.acquire('local:fast', never, 1000);
    const cancel = new AbortController();
    const cancelled = inFlight.acquire('local:fast', cancel.signal, 10_000);
    cancel.abort();
    await expect(cancelled).rejects.toMatchObject({ reason: 'aborted', key: 'local:fast' });
    await expect(inFlight.acquire('local:fast', never, 10)).rejects.toBeInstanceOf(NoSlotError);
    release();
    // The cancelled and timed-out waits did not keep a place: the slot is free for the next one.
    (await inFlight.acquire('local:fast', never, 10))();
  });

  it("takes a slot of the provider's maxInFlight and of the model's: both hold, and a failed wait gives back both", async () => {
    const inFlight = new InFlightLimits(() => ({
      local: { maxInFlight: 1 },
      'local:fast': { maxInFlight: 5 },
    }));
    const release = await inFlight.acquire('local:fast', never, 1000);
    // The provider's one slot is taken, by another of its models too.
    await expect(inFlight.acquire('local:slow', never, 10)).rejects.toMatchObject({ key: 'local' });
    await expect(inFlight.acquire('local:fast', never, 10)).rejects.toMatchObject({ key: 'local' });
    release();
    release(); // twice gives back once
    const again = await inFlight.acquire('local:slow', never, 10);
    await expect(inFlight.acquire('local:fast', never, 10)).rejects.toMatchObject({ key: 'local' });
    again();
    (await inFlight.acquire('local:fast', never, 10))();
  });
});
