import { describe, expect, it } from 'vitest';
import { decide, failureOf, initialState, startDecision } from '../../../policy/index.js';
import { backendsOf, fail, fixedRandom, plan, run, scripted, waitsOf } from './harness.js';

const A = 0;
const B = 1;
const C = 2;

describe('a call with waits [10, 30]', () => {
  it('fails twice then answers: retry in 10, then in 30', () => {
    const result = run({
      plan: plan({ waits: [10, 30] }),
      script: scripted([fail('ServerError'), fail('ServerError'), 'ok']),
    });
    expect(result.outcome).toBe('succeeded');
    expect(waitsOf(result)).toEqual([10, 30]);
    expect(result.attempts.map((a) => a.action)).toEqual([undefined, 'retry-same', 'retry-same']);
  });

  it('without a deadline, the list is the bound', () => {
    const result = run({
      plan: plan({ waits: [10, 30], retriesPerBackend: 10 }),
      script: () => fail('ServerError'),
    });
    expect(result.attempts).toHaveLength(3);
    expect(result.outcome).toBe('attempts-exhausted');
    expect(result.last.why).toMatch(/every planned wait is used/);
  });

  it('with a deadline, the last wait repeats and the call stops while the reserve is still left', () => {
    const p = plan({
      waits: [10, 30],
      deadlineInMs: 5_000,
      reserveMs: 1_000,
      minAttemptMs: 500,
      retriesPerBackend: 1000,
    });
    const result = run({ plan: p, script: () => fail('ServerError'), attemptMs: 100 });
    const waits = waitsOf(result);
    expect(result.outcome).toBe('deadline');
    expect(waits.slice(0, 2)).toEqual([10, 30]);
    expect(waits.length).toBeGreaterThan(10);
    expect(new Set(waits.slice(1))).toEqual(new Set([30]));
    const last = result.attempts.at(-1);
    expect(last!.endMs).toBeLessThanOrEqual(5_000 - 1_000);
    expect(last!.endMs + 30 + 500 + 1_000).toBeGreaterThan(5_000);
  });
});

describe('a call without a plan', () => {
  it('makes one attempt and does not retry', () => {
    const result = run({ plan: plan(undefined), script: scripted([fail('ServerError')]) });
    expect(result.attempts).toHaveLength(1);
    expect(result.outcome).toBe('attempts-exhausted');
  });

  it('does not try the next backend either', () => {
    const result = run({ plan: plan(false), backends: 3, script: scripted([fail('RateLimited')]) });
    expect(backendsOf(result)).toEqual([A]);
  });
});

describe('a 400', () => {
  it('is not retried', () => {
    const result = run({
      plan: plan({ waits: [10, 30] }),
      backends: 2,
      script: scripted([fail('BadRequest')]),
    });
    expect(result.attempts).toHaveLength(1);
    expect(result.outcome).toBe('non-retryable');
    expect(result.last).toMatchObject({ kind: 'stop', action: 'abort' });
  });

  it('with x-should-retry: true is retried on the same backend', () => {
    const result = run({
      plan: plan({ waits: [10] }),
      script: scripted([fail('BadRequest', { shouldRetry: 'retry-same' }), 'ok']),
    });
    expect(result.attempts.map((a) => [a.backend, a.waitMs, a.action])).toEqual([
      [A, 0, undefined],
      [A, 10, 'retry-same'],
    ]);
  });

  it("stays non-retryable when the plan's own action says abort, whatever the header says", () => {
    const d = decide(
      plan({ waits: [10], actions: { BadRequest: 'abort' } }),
      { ...initialState(1), attempts: 1 },
      fail('BadRequest', { shouldRetry: 'retry-same' }),
      0,
      fixedRandom(0),
    );
    expect(d).toMatchObject({ kind: 'stop', reason: 'non-retryable', action: 'abort' });
    expect(d.why).toMatch(/\(plan\)/);
  });
});

describe('retry-after', () => {
  it('a 429 with retry-after: 1 waits 1000 ms', () => {
    const limited = failureOf({ status: 429, headers: { 'retry-after': '1' } }, 100);
    const result = run({ plan: plan({ waits: [10] }), script: scripted([limited, 'ok']) });
    expect(waitsOf(result)).toEqual([1000]);
    expect(result.attempts[1]?.startMs).toBe(result.attempts[0]!.endMs + 1000);
  });

  it('a 503 with retry-after: 2 on the only backend waits 2000 ms before the same backend', () => {
    const unavailable = failureOf({ status: 503, headers: { 'retry-after': '2' } }, 100);
    const result = run({ plan: plan({ waits: [10] }), script: scripted([unavailable, 'ok']) });
    expect(result.attempts.map((a) => [a.backend, a.waitMs, a.action])).toEqual([
      [A, 0, undefined],
      [A, 2000, 'retry-same'],
    ]);
  });

  it('a retry-after shorter than the planned wait keeps the planned wait', () => {
    const result = run({
      plan: plan({ waits: [1000] }),
      script: scripted([fail('RateLimited', { retryAfterMs: 5 }), 'ok']),
    });
    expect(waitsOf(result)).toEqual([1000]);
  });

  it('is ignored when the plan does not honour it', () => {
    const p = plan({ waits: [10], retryAfter: { honor: false } });
    const result = run({ plan: p, script: scripted([fail('ServerError', { retryAfterMs: 60_000 }), 'ok']) });
    expect(waitsOf(result)).toEqual([10]);
  });

  it('a backend inside its retry-after is skipped in a later round', () => {
    const result = run({
      plan: plan({ waits: [10] }),
      backends: 3,
      script: scripted([
        fail('RateLimited'),
        fail('RateLimited', { retryAfterMs: 5_000 }),
        fail('RateLimited'),
        fail('RateLimited'),
        'ok',
      ]),
    });
    expect(backendsOf(result)).toEqual([A, B, C, A, C]);
    expect(waitsOf(result)).toEqual([0, 0, 10, 0]);
  });

  it('the next round starts at the first backend whose retry-after has ended', () => {
    const result = run({
      plan: plan({ waits: [10] }),
      backends: 3,
      script: scripted([
        fail('RateLimited', { retryAfterMs: 5_000 }),
        fail('RateLimited'),
        fail('RateLimited'),
        'ok',
      ]),
    });
    expect(backendsOf(result)).toEqual([A, B, C, B]);
    expect(waitsOf(result)).toEqual([0, 0, 10]);
  });

  it('when every backend left is inside its retry-after, waits once, until the earliest ends', () => {
    const result = run({
      plan: plan({ waits: [10] }),
      backends: 2,
      attemptMs: 100,
      script: scripted([
        fail('RateLimited', { retryAfterMs: 5_000 }),
        fail('RateLimited', { retryAfterMs: 2_000 }),
        'ok',
      ]),
    });
    expect(backendsOf(result)).toEqual([A, B, B]);
    expect(waitsOf(result)).toEqual([0, 2_000]);
    expect(result.last.why).toMatch(/retry-after/);
  });

  it('a retry-after over the ceiling stops with retry-after-exceeded when no other backend is left', () => {
    const p = plan({ waits: [10], retryAfter: { maxMs: 5_000 } });
    const result = run({ plan: p, script: scripted([fail('RateLimited', { retryAfterMs: 10_000 })]) });
    expect(result.outcome).toBe('retry-after-exceeded');
    expect(result.last.why).toMatch(/over retryAfter\.maxMs/);
  });

  it('a retry-after over the ceiling on a retry-same failure advances to another backend', () => {
    const p = plan({ waits: [10], retryAfter: { maxMs: 5_000 } });
    const result = run({
      plan: p,
      backends: 2,
      script: scripted([fail('ServerError', { retryAfterMs: 10_000 }), 'ok']),
    });
    expect(result.attempts.map((a) => [a.backend, a.waitMs, a.action])).toEqual([
      [A, 0, undefined],
      [B, 0, 'advance'],
    ]);
    expect(result.decisions[1]?.decision.why).toMatch(/over retryAfter\.maxMs, so advance/);
  });

  it('a retry-after beyond what the deadline allows advances if another backend is left, else stops', () => {
    const p = plan({ waits: [10], deadlineInMs: 30_000, reserveMs: 5_000, minAttemptMs: 1_000 });
    const toB = run({
      plan: p,
      backends: 2,
      script: scripted([fail('ServerError', { retryAfterMs: 25_000 }), 'ok']),
    });
    expect(backendsOf(toB)).toEqual([A, B]);
    const alone = run({ plan: p, script: scripted([fail('ServerError', { retryAfterMs: 25_000 })]) });
    expect(alone.outcome).toBe('retry-after-exceeded');
    expect(alone.last.why).toMatch(/beyond the deadline/);
  });
});

describe('the attempt bound', () => {
  it('maxAttempts stops the call with attempts-exhausted', () => {
    const result = run({
      plan: plan({ backoff: { jitterMs: 0 }, maxAttempts: 3, retriesPerBackend: 10 }),
      script: () => fail('ServerError'),
    });
    expect(result.attempts).toHaveLength(3);
    expect(result.outcome).toBe('attempts-exhausted');
  });

  it('counts attempts across backends, immediate advances included', () => {
    const result = run({
      plan: plan({ waits: [10], maxAttempts: 2 }),
      backends: 3,
      script: () => fail('RateLimited'),
    });
    expect(backendsOf(result)).toEqual([A, B]);
    expect(result.outcome).toBe('attempts-exhausted');
  });

  it('a non-retryable failure on the last allowed attempt is non-retryable, not exhausted', () => {
    const result = run({
      plan: plan({ waits: [10], maxAttempts: 2 }),
      script: scripted([fail('ServerError'), fail('BadRequest')]),
    });
    expect(result.outcome).toBe('non-retryable');
  });

  it('a stream interrupted on the last allowed attempt is stream-interrupted', () => {
    const result = run({
      plan: plan({ waits: [10], maxAttempts: 1 }),
      script: scripted([fail('StreamInterrupted')]),
    });
    expect(result.outcome).toBe('stream-interrupted');
  });
});

describe('backoff', () => {
  it('grows, stops at the cap, and keeps its jitter after the cap', () => {
    const result = run({
      plan: plan({
        backoff: { initialMs: 100, factor: 2, maxMs: 500, jitterMs: 50 },
        maxAttempts: 7,
        retriesPerBackend: 100,
      }),
      script: () => fail('ServerError'),
      random: fixedRandom(0.5),
    });
    expect(waitsOf(result)).toEqual([125, 225, 425, 525, 525, 525]);
  });

  it('an immediate advance does not count as a wait: the next wait is the first', () => {
    const result = run({
      plan: plan({ backoff: { initialMs: 100, factor: 2, maxMs: 10_000, jitterMs: 0 } }),
      backends: 2,
      script: scripted([
        fail('RateLimited'),
        fail('RateLimited'),
        fail('RateLimited'),
        fail('RateLimited'),
        'ok',
      ]),
    });
    expect(waitsOf(result)).toEqual([0, 100, 0, 200]);
  });
});

describe('the deadline', () => {
  const p = plan({ waits: [10], deadlineInMs: 100_000, reserveMs: 10_000, minAttemptMs: 1_000 });

  it('an expired deadline stops the call before its first attempt', () => {
    const d = startDecision(p, initialState(2), 95_000);
    expect(d).toMatchObject({ kind: 'stop', reason: 'deadline' });
    expect(d.state.attempts).toBe(0);
  });

  it('a deadline with room starts at the first backend at once', () => {
    expect(startDecision(p, initialState(2), 89_000)).toMatchObject({
      kind: 'attempt',
      backend: A,
      waitMs: 0,
    });
  });

  it('a deadline without room for another attempt stops even an immediate advance', () => {
    const d = decide(p, { ...initialState(2), attempts: 1 }, fail('RateLimited'), 89_001, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'stop', reason: 'deadline', action: 'advance' });
  });

  it('a backoff that would outlive the deadline stops with deadline', () => {
    const slow = plan({
      backoff: { initialMs: 20_000, jitterMs: 0 },
      deadlineInMs: 100_000,
      reserveMs: 10_000,
    });
    const d = decide(slow, { ...initialState(1), attempts: 1 }, fail('ServerError'), 70_000, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'stop', reason: 'deadline', action: 'retry-same' });
    const inTime = decide(
      slow,
      { ...initialState(1), attempts: 1 },
      fail('ServerError'),
      69_000,
      fixedRandom(0),
    );
    expect(inTime).toMatchObject({ kind: 'attempt', waitMs: 20_000 });
  });

  it('a SCHEDULE_TO_CLOSE timeout (the time up to the reserve is spent) stops with deadline', () => {
    const d = decide(p, { ...initialState(2), attempts: 1 }, fail('ResponseTimeout'), 90_000, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'stop', reason: 'deadline' });
  });
});

describe('the chain of backends', () => {
  it('a 429 on backend A advances to B with no wait and no wait used', () => {
    const d = decide(
      plan({ waits: [10, 30] }),
      { ...initialState(2), attempts: 1 },
      fail('RateLimited'),
      0,
      fixedRandom(0),
    );
    expect(d).toMatchObject({ kind: 'attempt', backend: B, waitMs: 0, action: 'advance' });
    expect(d.state.waitsTaken).toBe(0);
  });

  it('a parse failure advances and never spends a same-backend retry', () => {
    const result = run({
      plan: plan({ waits: [10, 30] }),
      backends: 2,
      script: scripted([fail('ParseFailed'), fail('ParseFailed'), 'ok']),
    });
    expect(result.attempts.map((a) => [a.backend, a.waitMs, a.action])).toEqual([
      [A, 0, undefined],
      [B, 0, 'advance'],
      [A, 10, 'advance'],
    ]);
    expect(result.decisions.every((d) => d.decision.state.sameBackendRetries === 0)).toBe(true);
  });

  it('a one-backend chain turns advance into a wait', () => {
    const result = run({
      plan: plan({ waits: [10, 30] }),
      script: scripted([fail('RateLimited'), fail('ResponseTimeout'), 'ok']),
    });
    expect(backendsOf(result)).toEqual([A, A, A]);
    expect(waitsOf(result)).toEqual([10, 30]);
    expect(result.decisions.map((d) => d.decision.state.round)).toEqual([1, 2, 3]);
  });

  it('503 three times on A hands over to B', () => {
    const result = run({
      plan: plan({ waits: [10, 30] }),
      backends: 2,
      script: scripted([fail('ServerError'), fail('ServerError'), fail('ServerError'), 'ok']),
    });
    expect(backendsOf(result)).toEqual([A, A, A, B]);
    expect(waitsOf(result)).toEqual([10, 30, 0]);
    expect(result.decisions[3]?.decision.why).toMatch(
      /retriesPerBackend \(2\) used on backend 0, so advance/,
    );
  });

  it('same-backend retries count again from 0 on the next backend', () => {
    const result = run({
      plan: plan({ waits: [1], deadlineInMs: 600_000, reserveMs: 0, retriesPerBackend: 1 }),
      backends: 2,
      script: scripted([
        fail('ServerError'),
        fail('ServerError'),
        fail('ServerError'),
        fail('ServerError'),
        fail('ServerError'),
        'ok',
      ]),
    });
    expect(backendsOf(result)).toEqual([A, A, B, B, A, A]);
  });

  it('retriesPerBackend 0 makes retry-same an advance at once', () => {
    const d = decide(
      plan({ waits: [10], retriesPerBackend: 0 }),
      { ...initialState(2), attempts: 1 },
      fail('ServerError'),
      0,
      fixedRandom(0),
    );
    expect(d).toMatchObject({ kind: 'attempt', backend: B, waitMs: 0, action: 'advance' });
  });

  it('a 401 on the only backend stops at once', () => {
    const result = run({ plan: plan({ waits: [10, 30] }), script: scripted([fail('AuthFailed')]) });
    expect(result.attempts).toHaveLength(1);
    expect(result.last).toMatchObject({ kind: 'stop', reason: 'non-retryable', action: 'drop' });
    expect(result.last.why).toMatch(/every backend is dropped/);
  });

  it('a dropped backend is not tried again in later rounds', () => {
    const result = run({
      plan: plan({ waits: [10], deadlineInMs: 600_000, reserveMs: 0 }),
      backends: 3,
      script: scripted([
        fail('RateLimited'),
        fail('ContextTooLong'),
        fail('RateLimited'),
        fail('RateLimited'),
        fail('RateLimited'),
        'ok',
      ]),
    });
    expect(backendsOf(result)).toEqual([A, B, C, A, C, A]);
    expect(result.decisions.at(-1)?.decision.state.dropped).toEqual([B]);
  });

  it('every backend dropped stops the call as non-retryable', () => {
    const result = run({
      plan: plan({ waits: [10] }),
      backends: 2,
      script: scripted([fail('QuotaExhausted'), fail('ModelNotFound')]),
    });
    expect(backendsOf(result)).toEqual([A, B]);
    expect(result.outcome).toBe('non-retryable');
  });

  it('x-should-retry: false drops a backend that would have been retried', () => {
    const result = run({
      plan: plan({ waits: [10] }),
      backends: 2,
      script: scripted([fail('ServerError', { shouldRetry: 'drop' }), fail('ServerError'), 'ok']),
    });
    expect(backendsOf(result)).toEqual([A, B, B]);
    expect(result.attempts[1]?.action).toBe('drop');
  });

  it("a plan's override wins over the default table", () => {
    const result = run({
      plan: plan({ waits: [10], actions: { RateLimited: 'retry-same' } }),
      backends: 2,
      script: scripted([fail('RateLimited'), 'ok']),
    });
    expect(result.attempts.map((a) => [a.backend, a.waitMs])).toEqual([
      [A, 0],
      [A, 10],
    ]);
  });
});

describe('a stream interrupted after its first delta', () => {
  it('stops the call whatever the header says', () => {
    const d = decide(
      plan({ waits: [10] }),
      { ...initialState(2), attempts: 1 },
      fail('StreamInterrupted', { shouldRetry: 'retry-same' }),
      0,
      fixedRandom(0),
    );
    expect(d).toMatchObject({ kind: 'stop', reason: 'stream-interrupted' });
    expect(d.kind === 'stop' && d.action).toBeUndefined();
  });
});

describe('every default action, decided once', () => {
  it.each([
    ['Misconfigured', 'drop', B],
    ['ContentFiltered', 'drop', B],
    ['ContextTooLong', 'drop', B],
    ['QuotaExhausted', 'drop', B],
    ['AuthFailed', 'drop', B],
    ['ModelNotFound', 'drop', B],
    ['RateLimited', 'advance', B],
    ['RequestTimeout', 'retry-same', A],
    ['ServerError', 'retry-same', A],
    ['ConnectFailed', 'retry-same', A],
    ['ConnectionLost', 'retry-same', A],
    ['OutputLimit', 'drop', B],
    ['ParseFailed', 'advance', B],
    ['ResponseTimeout', 'advance', B],
    ['WorkerLost', 'retry-same', A],
    ['Unknown', 'retry-same', A],
  ] as const)('%s on A of [A, B] -> %s to backend %i', (cls, action, backend) => {
    const d = decide(
      plan({ waits: [10] }),
      { ...initialState(2), attempts: 1 },
      fail(cls),
      0,
      fixedRandom(0),
    );
    expect(d).toMatchObject({ kind: 'attempt', action, backend, waitMs: action === 'retry-same' ? 10 : 0 });
    expect(d.state.dropped).toEqual(action === 'drop' ? [A] : []);
  });
});
