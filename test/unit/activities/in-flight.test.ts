import { describe, expect, it } from 'vitest';
import { InFlightLimits, NoSlotError } from '../../../activities/attempt/in-flight.js';
import type { Release } from '../../../activities/attempt/in-flight.js';

/**
 * `InFlightLimits` with real timers: the order slots are taken in (a model's, then its provider's) and that every
 * way a wait ends gives back what it took.
 */
const never = new AbortController().signal;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A small deterministic PRNG (mulberry32), so a failing sequence can be run again. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('maxInFlight: a model slot, then the provider slot', () => {
  it("lets another model through while one model's attempts queue for their own slot", async () => {
    const inFlight = new InFlightLimits(() => ({ local: { maxInFlight: 2 }, 'local:a': { maxInFlight: 1 } }));
    const first = await inFlight.acquire('local:a', never, 1_000);
    // A queue of attempts on model a, waiting for a's one slot: none of them may sit on a provider slot.
    const cancel = new AbortController();
    const queued = [1, 2, 3].map(() => inFlight.acquire('local:a', cancel.signal, 10_000));
    await sleep(20);
    // The provider has two slots and one request in flight: b gets the other one at once.
    const b = await inFlight.acquire('local:b', never, 200);
    b();
    first();
    await sleep(10);
    cancel.abort();
    const ends = await Promise.allSettled(queued);
    // The one granted when `first` was given back, and the cancelled rest.
    for (const end of ends) if (end.status === 'fulfilled') end.value();
    expect(ends.filter((e) => e.status === 'rejected')).toHaveLength(2);
  });

  it.each(['timeout', 'aborted'] as const)(
    "gives the model's slot back when the provider's wait ends without one (%s)",
    async (how) => {
      const inFlight = new InFlightLimits(() => ({
        local: { maxInFlight: 1 },
        'local:a': { maxInFlight: 1 },
      }));
      const busy = await inFlight.acquire('local:b', never, 1_000);
      const cancel = new AbortController();
      const waiting = inFlight.acquire('local:a', cancel.signal, how === 'timeout' ? 20 : 10_000);
      if (how === 'aborted') setTimeout(() => cancel.abort(), 20);
      await expect(waiting).rejects.toMatchObject({ reason: how, key: 'local' });
      busy();
      // a's slot and the provider's are both free again: taken at once, without waiting.
      (await inFlight.acquire('local:a', never, 0))();
    },
  );

  it('never holds more than a limit, and gives every slot back, whatever way each wait ends', async () => {
    const limits = {
      local: { maxInFlight: 3 },
      'local:a': { maxInFlight: 1 },
      'local:b': { maxInFlight: 2 },
    };
    const max: Record<string, number> = { local: 3, 'local:a': 1, 'local:b': 2 };
    for (const seed of [1, 2, 3]) {
      const inFlight = new InFlightLimits(() => limits);
      const next = random(seed);
      const held: Record<string, number> = { local: 0, 'local:a': 0, 'local:b': 0 };
      const overLimit: string[] = [];
      const attempt = async (model: string): Promise<void> => {
        const cancel = new AbortController();
        const fate = next();
        if (fate < 0.3) setTimeout(() => cancel.abort(), Math.floor(next() * 8));
        let release: Release;
        try {
          release = await inFlight.acquire(model, cancel.signal, fate > 0.8 ? Math.floor(next() * 8) : 5_000);
        } catch (error) {
          if (!(error instanceof NoSlotError)) throw error;
          return;
        }
        for (const key of ['local', model]) {
          held[key] = (held[key] ?? 0) + 1;
          if ((held[key] ?? 0) > (max[key] ?? Infinity)) overLimit.push(`${key} at ${held[key]}`);
        }
        await sleep(Math.floor(next() * 5));
        for (const key of ['local', model]) held[key] = (held[key] ?? 0) - 1;
        release();
        release(); // a second release gives nothing back twice
      };
      const models = ['local:a', 'local:b', 'local:c'];
      await Promise.all(Array.from({ length: 60 }, () => attempt(models[Math.floor(next() * 3)] as string)));
      expect(overLimit, `seed ${seed}`).toEqual([]);
      // Every slot is back: the provider's three at once, a's and b's full counts among them.
      const all = [
        await inFlight.acquire('local:a', never, 0),
        await inFlight.acquire('local:b', never, 0),
        await inFlight.acquire('local:b', never, 0),
      ];
      await expect(inFlight.acquire('local:c', never, 0)).rejects.toMatchObject({ key: 'local' });
      for (const release of all) release();
    }
  });
});

describe('an attempt timeout longer than a Node timer holds', () => {
  // A plan may give attemptTimeoutMs up to 100 years; AbortSignal.timeout throws a RangeError past 2^32 - 1 ms,
  // which the attempt reported as `CoolingDown` (nothing sent) on every attempt.
  it.each([
    ['no limit', undefined],
    ['a maxInFlight limit', { 'local:a': { maxInFlight: 1 } }],
  ])('still gives a slot with %s', async (_name, limits) => {
    const inFlight = new InFlightLimits(() => limits);
    const release = await inFlight.acquire('local:a', never, 5_000_000_000);
    release();
  });
});

describe('maxInFlight waiters are served by their tenant weight', () => {
  const until = async (ok: () => boolean): Promise<void> => {
    while (!ok()) await sleep(1);
  };
  /** Queues `who` (tenant names) in order behind a held slot, then frees slots one by one: the order they got one. */
  async function servedOrder(who: string[], weights: Record<string, number> = {}): Promise<string[]> {
    const inFlight = new InFlightLimits(
      () => ({ local: { maxInFlight: 1 } }),
      (tenant) => weights[tenant] ?? 1,
    );
    const signal = new AbortController().signal;
    const holder = await inFlight.acquire('local:m', signal, 60_000, 'holder');
    const served: string[] = [];
    const releases: Release[] = [];
    const waits = who.map((tenant) =>
      inFlight.acquire('local:m', signal, 60_000, tenant).then((release) => {
        served.push(tenant);
        releases.push(release);
      }),
    );
    holder();
    // Each freed slot goes to one waiter; it gives the slot back once it has it, and the next one is served.
    while (served.length < who.length) {
      const before = served.length;
      await until(() => served.length > before);
      releases.at(-1)?.();
    }
    await Promise.all(waits);
    return served;
  }

  it.each([
    ['one tenant: first come, first served', ['a', 'a', 'a'], {}, ['a', 'a', 'a']],
    [
      "a burst does not hold back another tenant's waiter",
      ['a', 'a', 'a', 'a', 'b'],
      {},
      ['a', 'b', 'a', 'a', 'a'],
    ],
    ['equal weights alternate', ['a', 'a', 'a', 'b', 'b'], {}, ['a', 'b', 'a', 'b', 'a']],
    [
      'a weight of 3 serves three for one',
      ['a', 'a', 'a', 'b', 'b', 'b'],
      { b: 3 },
      ['b', 'b', 'a', 'b', 'a', 'a'],
    ],
  ])('%s', async (_what, who, weights, order) => {
    expect(await servedOrder(who, weights)).toEqual(order);
  });
});
