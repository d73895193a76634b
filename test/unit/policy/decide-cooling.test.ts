import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COOLING_JITTER_MS, decide, initialState } from '../../../policy/index.js';
import type { CallState } from '../../../policy/index.js';
import { fail, fixedRandom, plan, run, seededRandom } from './harness.js';

const cooling = (ms: number) => fail('CoolingDown', { retryAfterMs: ms });
const first = (n: number): CallState => ({ ...initialState(n), attempts: 1 });

describe('CoolingDown in the call policy', () => {
  it('advances at once to the next backend (default action advance), using no wait and no same-backend retry', () => {
    const d = decide(plan({ waits: [100] }), first(2), cooling(30_000), 0, fixedRandom(0.5));
    expect(d).toMatchObject({ kind: 'attempt', backend: 1, waitMs: 0, action: 'advance' });
    expect(d.state).toMatchObject({ attempts: 2, waitsTaken: 0, sameBackendRetries: 0 });
  });

  it('keeps the cooling backend out of later rounds until its until', () => {
    const p = plan({ waits: [100] });
    const a = decide(p, first(2), cooling(30_000), 0, fixedRandom(0));
    // B fails and advances: the new round skips A (cooling for 30 s) and takes B after the planned wait.
    const b = decide(p, a.state, fail('RateLimited'), 10, fixedRandom(0));
    expect(b).toMatchObject({ kind: 'attempt', backend: 1, waitMs: 100 });
    expect(b.state.waitsTaken).toBe(1);
  });

  it('when every backend left is cooling: one wait until the earliest + a jitter in [0, 1 s), no entry of waits', () => {
    const p = plan({ waits: [100], deadlineInMs: 600_000 });
    const a = decide(p, first(2), cooling(30_000), 0, fixedRandom(0));
    const b = decide(p, a.state, cooling(20_000), 5, fixedRandom(0.25));
    expect(b).toMatchObject({ kind: 'attempt', backend: 1, waitMs: 20_000 + 250, action: 'advance' });
    expect(b.state).toMatchObject({ waitsTaken: 0, round: 2, attempts: 3 });
  });

  it('the cooling wait starts another backend afresh: no repair of the last one carries over', () => {
    const p = plan({ waits: [100], deadlineInMs: 600_000 });
    const a = decide(p, first(2), cooling(30_000), 0, fixedRandom(0));
    // B was repairing (one repair in a row) when it went cooling too: A is tried next, with the original request.
    const b = decide(p, { ...a.state, repairs: 1 }, cooling(40_000), 5, fixedRandom(0));
    expect(b).toMatchObject({ kind: 'attempt', backend: 0 });
    expect(b.state.repairs).toBe(0);
  });

  it('with a deadline, a single cooling backend waits for itself even with the waits used up (the last repeats)', () => {
    const p = plan({ waits: [100], deadlineInMs: 600_000 });
    const s: CallState = { ...first(1), waitsTaken: 1 };
    const d = decide(p, s, cooling(5_000), 0, fixedRandom(0.999));
    expect(d).toMatchObject({ kind: 'attempt', backend: 0, waitMs: 5_999 });
  });

  it('ignores retryAfter.honor: false (the cooling is fleet health, not the provider)', () => {
    const p = plan({ waits: [100], retryAfter: { honor: false } });
    const d = decide(p, first(1), cooling(5_000), 0, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'attempt', waitMs: 5_000 });
  });

  it('stops retry-after-exceeded when the wait does not fit the deadline rule (as a retry-after would)', () => {
    const p = plan({ waits: [100], deadlineInMs: 70_000, reserveMs: 1_000, minAttemptMs: 1_000 });
    const d = decide(p, first(1), cooling(300_000), 0, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'stop', reason: 'retry-after-exceeded' });
    expect(d.why).toMatch(/cooling down/);
    expect(d.why).toMatch(/beyond the deadline/);
  });

  it('stops retry-after-exceeded when the earliest cool-down is over retryAfter.maxMs, even without a deadline', () => {
    const p = plan({ waits: [100], retryAfter: { maxMs: 10_000 } });
    const a = decide(p, first(2), cooling(30_000), 0, fixedRandom(0));
    const b = decide(p, a.state, cooling(20_000), 5, fixedRandom(0));
    expect(b).toMatchObject({ kind: 'stop', reason: 'retry-after-exceeded', action: 'advance' });
    expect(b.why).toContain('cooling down, the earliest for 20000 ms: over retryAfter.maxMs (10000)');
    // Within maxMs it waits as before.
    const c = decide(
      plan({ waits: [100], retryAfter: { maxMs: 20_000 } }),
      a.state,
      cooling(20_000),
      5,
      fixedRandom(0),
    );
    expect(c).toMatchObject({ kind: 'attempt', waitMs: 20_000 });
  });

  it('counts toward maxAttempts', () => {
    const p = plan({ waits: [100], maxAttempts: 2 });
    const d = decide(p, { ...first(2), attempts: 2, backend: 1 }, cooling(1_000), 0, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'stop', reason: 'attempts-exhausted' });
  });

  it('property: the cooling wait is at least the earliest until and under it + 1 s, and waits are never used', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 300_000 }), { minLength: 1, maxLength: 4 }),
        fc.integer(),
        (untils, seed) => {
          const p = plan({ waits: [100] });
          const random = seededRandom(seed);
          let state = first(untils.length);
          let d;
          for (const [i, ms] of untils.entries()) {
            d = decide(p, { ...state, backend: i }, cooling(ms), 0, random);
            state = d.state;
          }
          expect(d?.kind).toBe('attempt');
          const earliest = Math.min(...untils);
          if (d?.kind === 'attempt') {
            expect(d.waitMs).toBeGreaterThanOrEqual(earliest);
            expect(d.waitMs).toBeLessThan(earliest + COOLING_JITTER_MS);
            expect(untils[d.backend]).toBe(earliest);
          }
          expect(state.waitsTaken).toBe(0);
        },
      ),
    );
  });
});

describe('without a deadline, cooling waits count against the waits list (the call is bounded)', () => {
  const noDeadline = plan({ waits: [100] });
  const withDeadline = plan({ waits: [100], deadlineInMs: 600_000 });
  const table: {
    name: string;
    plan: typeof noDeadline;
    state: Partial<CallState>;
    expected: { kind: 'attempt' } | { kind: 'stop'; reason: string };
  }[] = [
    { name: 'no wait taken yet', plan: noDeadline, state: {}, expected: { kind: 'attempt' } },
    {
      name: 'the only wait taken by a planned wait',
      plan: noDeadline,
      state: { waitsTaken: 1 },
      expected: { kind: 'stop', reason: 'attempts-exhausted' },
    },
    {
      name: 'the only wait taken by an earlier cooling wait',
      plan: noDeadline,
      state: { coolingWaits: 1 },
      expected: { kind: 'stop', reason: 'attempts-exhausted' },
    },
    {
      name: 'with a deadline, the last wait repeats: cooling waits go on',
      plan: withDeadline,
      state: { waitsTaken: 1, coolingWaits: 5 },
      expected: { kind: 'attempt' },
    },
    {
      name: 'a backoff without a deadline has no list: maxAttempts is its bound',
      plan: plan({ backoff: { initialMs: 100 } }),
      state: { waitsTaken: 3, coolingWaits: 5 },
      expected: { kind: 'attempt' },
    },
  ];
  for (const row of table) {
    it(`one backend cooling, ${row.name}: ${row.expected.kind === 'stop' ? row.expected.reason : 'waits'}`, () => {
      const d = decide(row.plan, { ...first(1), ...row.state }, cooling(5_000), 0, fixedRandom(0));
      expect(d).toMatchObject(row.expected);
      if (d.kind === 'stop')
        expect(d.why).toMatch(/every backend left is cooling down.*every planned wait is used/);
    });
  }

  it('a cooling wait counts once and takes no entry: the next planned wait is still the first of the list', () => {
    const p = plan({ waits: [100, 5_000] });
    const a = decide(p, first(1), cooling(2_000), 0, fixedRandom(0));
    expect(a).toMatchObject({ kind: 'attempt', waitMs: 2_000 });
    expect(a.state).toMatchObject({ waitsTaken: 0, coolingWaits: 1 });
    const b = decide(p, a.state, fail('ServerError'), 2_100, fixedRandom(0));
    expect(b).toMatchObject({ kind: 'attempt', waitMs: 100, action: 'retry-same' });
    const c = decide(p, b.state, fail('ServerError'), 2_300, fixedRandom(0));
    expect(c).toMatchObject({ kind: 'stop', reason: 'attempts-exhausted' });
  });

  it('waits: [100] on one backend that stays cooling: two attempts, then attempts-exhausted', () => {
    const result = run({ plan: plan({ waits: [100] }), script: () => cooling(300_000) });
    expect(result.attempts).toHaveLength(2);
    expect(result.outcome).toBe('attempts-exhausted');
    // The same with a chain: every backend cooling, one wait for the earliest, then the list is used.
    const chain = run({ plan: plan({ waits: [100] }), backends: 3, script: () => cooling(60_000) });
    expect(chain.attempts.map((a) => a.backend)).toEqual([0, 1, 2, 0, 1, 2]);
    expect(chain.outcome).toBe('attempts-exhausted');
  });

  it('the bound is asked before the retry-after ceiling: attempts-exhausted wins over retry-after-exceeded', () => {
    const p = plan({ waits: [100], retryAfter: { maxMs: 1_000 } });
    const d = decide(p, { ...first(1), waitsTaken: 1 }, cooling(5_000), 0, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'stop', reason: 'attempts-exhausted' });
  });

  it('property: without a deadline, a call waits (planned or cooling) at most as often as its list has entries', () => {
    const faults = fc.array(
      fc.oneof(
        fc.integer({ min: 0, max: 300_000 }).map((ms) => cooling(ms)),
        fc.constantFrom(
          fail('ServerError'),
          fail('RateLimited'),
          fail('CoolingDown'),
          fail('ResponseTimeout'),
        ),
      ),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2_000 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 3 }),
        faults,
        fc.integer(),
        (waits, backends, script, seed) => {
          const p = plan({ waits, retryAfter: { maxMs: 300_000 }, maxAttempts: 1000 });
          const result = run({
            plan: p,
            backends,
            random: seededRandom(seed),
            script: (n) => script[n - 1] ?? cooling(1_000),
          });
          // Each wait starts a new stretch of attempts at once, each on a backend not yet tried in its round.
          expect(result.attempts.length).toBeLessThanOrEqual((waits.length + 1) * backends);
          const s = result.last.state;
          expect(s.waitsTaken + (s.coolingWaits ?? 0)).toBeLessThanOrEqual(waits.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
