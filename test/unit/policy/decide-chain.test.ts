import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decide,
  fitsDeadline,
  initialState,
  remainingBackends,
  validatePlan,
} from '../../../policy/index.js';
import type { CallState, FailureClass } from '../../../policy/index.js';
import { backendsOf, fail, fixedRandom, plan, run, scripted, seededRandom, waitsOf } from './harness.js';

const A = 0;
const B = 1;
const C = 2;

/** A call over `backendCount` backends that has made `attempts` attempts, the latest on `backend`. */
const after = (backendCount: number, overrides: Partial<CallState>): CallState => ({
  ...initialState(backendCount),
  attempts: 1,
  ...overrides,
});

describe('a retry-same that has no wait left advances at once to a backend not yet tried in this round', () => {
  it('A, B, C with waits [100] and A failing 503: A twice, then B and C at once, then attempts-exhausted', () => {
    const result = run({ plan: plan({ waits: [100] }), backends: 3, script: () => fail('ServerError') });
    expect(backendsOf(result)).toEqual([A, A, B, C]);
    expect(waitsOf(result)).toEqual([100, 0, 0]);
    expect(result.attempts.map((a) => a.action)).toEqual([undefined, 'retry-same', 'advance', 'advance']);
    expect(result.decisions[2]?.decision.why).toMatch(
      /every planned wait is used, so advance; backend 1 at once/,
    );
    expect(result.outcome).toBe('attempts-exhausted');
    expect(result.last.why).toMatch(/every planned wait is used, and no backend is left in this round/);
  });

  it('B answers once A has used the only wait', () => {
    const result = run({
      plan: plan({ waits: [100] }),
      backends: 3,
      script: scripted([fail('ServerError'), fail('ServerError'), 'ok']),
    });
    expect(result.outcome).toBe('succeeded');
    expect(backendsOf(result)).toEqual([A, A, B]);
  });

  it('spends no wait and restarts the same-backend count on the next backend', () => {
    const d = decide(
      plan({ waits: [100] }),
      after(3, { waitsTaken: 1, sameBackendRetries: 1 }),
      fail('ServerError'),
      0,
      fixedRandom(0),
    );
    expect(d).toMatchObject({ kind: 'attempt', backend: B, waitMs: 0, action: 'advance' });
    expect(d.state).toMatchObject({ attempts: 2, waitsTaken: 1, sameBackendRetries: 0, round: 1 });
  });

  it('does not go back to a backend before the current one: a new round would need a wait', () => {
    const d = decide(
      plan({ waits: [100] }),
      after(3, { backend: C, waitsTaken: 1 }),
      fail('ServerError'),
      0,
      fixedRandom(0),
    );
    expect(d).toMatchObject({ kind: 'stop', reason: 'attempts-exhausted', action: 'retry-same' });
  });

  it('skips a dropped backend', () => {
    const d = decide(
      plan({ waits: [100] }),
      after(3, { waitsTaken: 1, dropped: [B] }),
      fail('ServerError'),
      0,
      fixedRandom(0),
    );
    expect(d).toMatchObject({ kind: 'attempt', backend: C, waitMs: 0 });
  });

  it('skips a backend inside its retry-after, in this round too', () => {
    const state = after(3, { waitsTaken: 1, notBefore: [0, 50_000, 0] });
    const d = decide(plan({ waits: [100] }), state, fail('ServerError'), 1_000, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'attempt', backend: C, waitMs: 0 });
  });

  it('stops attempts-exhausted when every backend left in this round is inside its retry-after', () => {
    const state = after(3, { waitsTaken: 1, notBefore: [0, 50_000, 60_000] });
    const d = decide(plan({ waits: [100] }), state, fail('ServerError'), 1_000, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'stop', reason: 'attempts-exhausted' });
  });

  it('a backend whose retry-after has just ended is free', () => {
    const state = after(3, { waitsTaken: 1, notBefore: [0, 1_000, 0] });
    const d = decide(plan({ waits: [100] }), state, fail('ServerError'), 1_000, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'attempt', backend: B, waitMs: 0 });
  });

  it('a retry-after on the failing backend does not keep the others waiting', () => {
    const result = run({
      plan: plan({ waits: [100] }),
      backends: 2,
      script: scripted([fail('ServerError'), fail('ServerError', { retryAfterMs: 5_000 }), 'ok']),
    });
    expect(backendsOf(result)).toEqual([A, A, B]);
    expect(waitsOf(result)).toEqual([100, 0]);
  });

  it('holds for every retry-same class: WorkerLost, ConnectFailed, ConnectionLost, RequestTimeout, Unknown', () => {
    for (const cls of [
      'WorkerLost',
      'ConnectFailed',
      'ConnectionLost',
      'RequestTimeout',
      'Unknown',
    ] as const) {
      const result = run({
        plan: plan({ waits: [10] }),
        backends: 2,
        script: scripted([fail(cls), fail(cls), 'ok']),
      });
      expect(backendsOf(result)).toEqual([A, A, B]);
    }
  });

  it('a call without a plan still makes one attempt: its plan has no retry at all', () => {
    const result = run({ plan: plan(undefined), backends: 3, script: scripted([fail('ServerError')]) });
    expect(backendsOf(result)).toEqual([A]);
    expect(result.outcome).toBe('attempts-exhausted');
  });

  it('maxAttempts still bounds it', () => {
    const result = run({
      plan: plan({ waits: [100], maxAttempts: 3 }),
      backends: 3,
      script: () => fail('ServerError'),
    });
    expect(backendsOf(result)).toEqual([A, A, B]);
    expect(result.outcome).toBe('attempts-exhausted');
  });
});

describe('a round that started past the first backend wraps around to the backends before it', () => {
  it('A inside its retry-after when round 2 starts: B, then A at once when B has no wait left', () => {
    const result = run({
      plan: plan({ waits: [100] }),
      backends: 2,
      // B's second attempt takes 3 s: A's retry-after (2 s) has ended when B runs out of waits.
      attemptMs: (n) => (n === 3 ? 3_000 : 10),
      script: scripted([
        fail('RateLimited', { retryAfterMs: 2_000 }),
        fail('RateLimited'),
        fail('ServerError'),
        'ok',
      ]),
    });
    expect(backendsOf(result)).toEqual([A, B, B, A]);
    expect(waitsOf(result)).toEqual([0, 100, 0]);
    expect(result.attempts.map((a) => a.action)).toEqual([undefined, 'advance', 'advance', 'advance']);
    expect(result.decisions[3]?.decision.why).toMatch(
      /every planned wait is used, so advance; backend 0 at once/,
    );
    expect(result.outcome).toBe('succeeded');
  });

  // Three backends, the only wait used; the round started at `roundStart`, the latest attempt on `backend`.
  const table: {
    name: string;
    state: Partial<CallState>;
    failure: FailureClass;
    expected: { kind: 'attempt'; backend: number; waitMs: number } | { kind: 'stop'; reason: string };
  }[] = [
    {
      name: 'started at B, on B: C first (chain order), A after it',
      state: { roundStart: B, backend: B },
      failure: 'ServerError',
      expected: { kind: 'attempt', backend: C, waitMs: 0 },
    },
    {
      name: 'started at B, on C: A, wrapping around',
      state: { roundStart: B, backend: C },
      failure: 'ServerError',
      expected: { kind: 'attempt', backend: A, waitMs: 0 },
    },
    {
      name: 'started at C, on C: A, then B',
      state: { roundStart: C, backend: C },
      failure: 'ServerError',
      expected: { kind: 'attempt', backend: A, waitMs: 0 },
    },
    {
      name: 'started at B, on A after wrapping: every backend tried in this round',
      state: { roundStart: B, backend: A },
      failure: 'ServerError',
      expected: { kind: 'stop', reason: 'attempts-exhausted' },
    },
    {
      name: 'started at B, on C, A dropped: nothing before B is left',
      state: { roundStart: B, backend: C, dropped: [A] },
      failure: 'ServerError',
      expected: { kind: 'stop', reason: 'attempts-exhausted' },
    },
    {
      name: 'started at B, on C, A still inside its retry-after: nothing free',
      state: { roundStart: B, backend: C, notBefore: [5_000, 0, 0] },
      failure: 'ServerError',
      expected: { kind: 'stop', reason: 'attempts-exhausted' },
    },
    {
      name: 'an advance too: started at B, on C, A at once instead of a new round',
      state: { roundStart: B, backend: C },
      failure: 'RateLimited',
      expected: { kind: 'attempt', backend: A, waitMs: 0 },
    },
  ];
  for (const row of table) {
    it(row.name, () => {
      const state = after(3, { waitsTaken: 1, ...row.state });
      const d = decide(plan({ waits: [100] }), state, fail(row.failure), 1_000, fixedRandom(0));
      expect(d).toMatchObject(row.expected);
      // A wrap stays in the round, and the round keeps where it started.
      if (d.kind === 'attempt') expect(d.state).toMatchObject({ round: 1, roundStart: row.state.roundStart });
    });
  }

  it('a new round starts where its first free backend is, and remembers it', () => {
    const state = after(3, { backend: C, notBefore: [50_000, 0, 0] });
    const d = decide(plan({ waits: [100, 100] }), state, fail('RateLimited'), 1_000, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'attempt', backend: B, waitMs: 100 });
    expect(d.state).toMatchObject({ round: 2, roundStart: B });
  });
});

describe('a retry-same whose wait does not fit the deadline rule advances at once if an attempt still fits', () => {
  // Deadline 20 s, reserve 5 s, minAttemptMs 1 s: an attempt may start up to 14 s in.
  const p = plan({ waits: [10_000], deadlineInMs: 20_000, reserveMs: 5_000, minAttemptMs: 1_000 });

  it('a 10 s wait at 8 s does not fit, an attempt at once does: B at once', () => {
    const d = decide(p, after(3, {}), fail('ServerError'), 8_000, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'attempt', backend: B, waitMs: 0, action: 'advance' });
    expect(d.why).toMatch(/a wait of 10000 ms leaves no room for an attempt before the deadline, so advance/);
  });

  it('the same wait at 4 s fits: the same backend after it', () => {
    const d = decide(p, after(3, {}), fail('ServerError'), 4_000, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'attempt', backend: A, waitMs: 10_000, action: 'retry-same' });
  });

  it('stops deadline when not even an attempt at once fits', () => {
    const d = decide(p, after(3, {}), fail('ServerError'), 14_001, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'stop', reason: 'deadline', action: 'retry-same' });
    expect(d.why).toMatch(/no room for another attempt before the deadline/);
  });

  it('stops deadline when no backend is left in this round', () => {
    const d = decide(p, after(3, { backend: C }), fail('ServerError'), 8_000, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'stop', reason: 'deadline', action: 'retry-same' });
    expect(d.why).toMatch(/no backend is left in this round/);
  });

  it('a whole call: A until its wait no longer fits, then B and C at once, then deadline', () => {
    const result = run({ plan: p, backends: 3, attemptMs: 3_000, script: () => fail('ServerError') });
    // A at 0 (ends 3 s): 3 + 10 + 6 = 19 s fits, so A again at 13 s, cut at 15 s by its own timeout (the
    // reserve); at 15 s not even an attempt at once fits (15 + 6 = 21 s).
    expect(backendsOf(result)).toEqual([A, A]);
    expect(result.outcome).toBe('deadline');
    const earlier = run({ plan: p, backends: 3, attemptMs: 5_000, script: () => fail('ServerError') });
    // A at 0 (ends 5 s): 5 + 10 + 6 = 21 s > 20 s, so B at once (ends 10 s), C at once (ends 15 s), deadline.
    expect(backendsOf(earlier)).toEqual([A, B, C]);
    expect(waitsOf(earlier)).toEqual([0, 0]);
    expect(earlier.outcome).toBe('deadline');
  });
});

const retrySameHeavy = fc.record({
  waits: fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 3 }),
  deadline: fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: undefined }),
  reserveMs: fc.integer({ min: 0, max: 5_000 }),
  minAttemptMs: fc.integer({ min: 0, max: 2_000 }),
  retriesPerBackend: fc.integer({ min: 0, max: 3 }),
  backends: fc.integer({ min: 1, max: 4 }),
  failures: fc.array(
    fc.record(
      {
        class: fc.constantFrom<FailureClass>(
          'ServerError',
          'ServerError',
          'WorkerLost',
          'RateLimited',
          'AuthFailed',
        ),
        retryAfterMs: fc.integer({ min: 0, max: 20_000 }),
      },
      { requiredKeys: ['class'] },
    ),
    { maxLength: 30 },
  ),
  tookMs: fc.integer({ min: 0, max: 8_000 }),
  seed: fc.integer(),
});

describe('a round that passed over a backend kept out by a retry-after', () => {
  it('comes back to it once it is free, before the plan counts its waits used up', () => {
    // Backend 2 is inside its 4 ms retry-after when backend 1 fails in round 2: the round goes on to backend 0 and
    // then, 2 ms later, offers backend 2 (free by then) instead of stopping attempts-exhausted.
    const p = validatePlan(
      { waits: [0], reserveMs: 0, minAttemptMs: 0, attemptTimeoutMs: 10_001, retriesPerBackend: 0 },
      { nowMs: 0, chainStartMs: 0 },
    );
    const failures = [
      fail('ServerError', { retryAfterMs: 7 }),
      fail('ServerError', { retryAfterMs: 0 }),
      fail('ServerError', { retryAfterMs: 4 }),
      fail('ServerError'),
      fail('ServerError'),
    ];
    const result = run({
      plan: p,
      backends: 3,
      random: seededRandom(0),
      attemptMs: 3,
      script: (n) => failures[n - 1] ?? 'ok',
    });
    expect(result.attempts.map((a) => a.backend)).toEqual([0, 1, 2, 1, 0, 2]);
    expect(result.outcome).toBe('succeeded');
  });
});

describe('for random chains, plans and failures', () => {
  it('a call stops for want of time or waits only when no backend of the round (wrapping around) is free for an attempt at once', () => {
    fc.assert(
      fc.property(retrySameHeavy, (c) => {
        const p = validatePlan(
          {
            waits: c.waits,
            ...(c.deadline === undefined ? {} : { deadlineInMs: c.reserveMs + c.minAttemptMs + c.deadline }),
            reserveMs: c.reserveMs,
            minAttemptMs: c.minAttemptMs,
            attemptTimeoutMs: Math.max(1, c.minAttemptMs) + 10_000,
            retriesPerBackend: c.retriesPerBackend,
          },
          { nowMs: 0, chainStartMs: 0 },
        );
        const result = run({
          plan: p,
          backends: c.backends,
          random: seededRandom(c.seed),
          attemptMs: c.tookMs,
          script: (n) => c.failures[n - 1] ?? 'ok',
        });
        for (const [k, { from, decision, nowMs }] of result.decisions.entries()) {
          if (k === 0 || decision.kind !== 'stop') continue;
          if (!['attempts-exhausted', 'deadline', 'retry-after-exceeded'].includes(decision.reason)) continue;
          if (from.attempts >= p.maxAttempts) continue;
          // The backends tried in the stopping round, read from the attempts (decision j scheduled attempt j).
          const tried = new Set(
            result.attempts
              .filter((_, j) => result.decisions[j]?.decision.state.round === from.round)
              .map((a) => a.backend),
          );
          const free = remainingBackends(decision.state).filter(
            (i) => !tried.has(i) && (decision.state.notBefore[i] ?? 0) <= nowMs,
          );
          if (free.length > 0) expect(fitsDeadline(p, nowMs, 0)).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });
});
