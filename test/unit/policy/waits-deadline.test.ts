import { describe, expect, it } from 'vitest';
import {
  attemptTimeoutMs,
  backoffWait,
  fitsDeadline,
  plannedWait,
  scheduleToCloseMs,
  startToCloseMs,
} from '../../../policy/index.js';
import { fixedRandom, plan } from './harness.js';

const never = () => {
  throw new Error('random must not be drawn here');
};

describe('explicit waits', () => {
  it('are taken in order and, without a deadline, end with the list', () => {
    const p = plan({ waits: [10, 30] });
    expect([0, 1, 2, 3].map((n) => plannedWait(p, n, never))).toEqual([10, 30, undefined, undefined]);
  });

  it('repeat their last wait under a deadline', () => {
    const p = plan({ waits: [10, 30], deadlineInMs: 600_000 });
    expect([0, 1, 2, 50].map((n) => plannedWait(p, n, never))).toEqual([10, 30, 30, 30]);
  });

  it('do not exist without a plan', () => {
    expect(plannedWait(plan(undefined), 0, never)).toBeUndefined();
  });
});

describe('exponential backoff', () => {
  const backoff = { initialMs: 100, factor: 2, maxMs: 500, jitterMs: 50 };

  it('grows by its factor from initialMs and stops at maxMs', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffWait(backoff, n, fixedRandom(0)))).toEqual([
      100, 200, 400, 500, 500, 500,
    ]);
  });

  it('adds a jitter in [0, jitterMs) after the cap', () => {
    expect(backoffWait(backoff, 1, fixedRandom(0.5))).toBe(125);
    expect(backoffWait(backoff, 10, fixedRandom(0.5))).toBe(525);
    expect(backoffWait(backoff, 10, fixedRandom(0.999_999))).toBe(549);
  });

  it('keeps the jitter below jitterMs even if the random source returns 1 or garbage', () => {
    expect(backoffWait(backoff, 10, fixedRandom(1))).toBe(549);
    expect(backoffWait(backoff, 10, fixedRandom(NaN))).toBe(500);
    expect(backoffWait(backoff, 10, fixedRandom(-3))).toBe(500);
  });

  it('does not draw from the random source without jitter', () => {
    expect(backoffWait({ ...backoff, jitterMs: 0 }, 2, never)).toBe(200);
  });

  it('stays at the cap for a huge wait number (no overflow to Infinity or NaN)', () => {
    expect(backoffWait(backoff, 5000, fixedRandom(0))).toBe(500);
    expect(backoffWait({ ...backoff, initialMs: 0, maxMs: 0 }, 5000, fixedRandom(0))).toBe(0);
  });

  it('counts waits taken: the n-th wait of the plan is backoff wait n', () => {
    const p = plan({ backoff: { initialMs: 1000, factor: 3, maxMs: 1e6, jitterMs: 0 } });
    expect([0, 1, 2].map((taken) => plannedWait(p, taken, never))).toEqual([1000, 3000, 9000]);
  });

  it('is the default schedule, with its default jitter', () => {
    expect(plannedWait(plan({}), 0, fixedRandom(0.5))).toBe(1250);
    expect(plannedWait(plan({}), 20, fixedRandom(0))).toBe(30_000);
  });
});

describe('the deadline rule: now + wait + minAttemptMs + reserveMs ≤ deadline', () => {
  const p = plan({ deadlineInMs: 100_000, reserveMs: 10_000, minAttemptMs: 2_000 });

  it('allows a wait that leaves exactly minAttemptMs before the reserve', () => {
    expect(fitsDeadline(p, 80_000, 8_000)).toBe(true);
  });

  it('refuses a wait one ms longer', () => {
    expect(fitsDeadline(p, 80_000, 8_001)).toBe(false);
  });

  it('refuses everything once the deadline is past', () => {
    expect(fitsDeadline(p, 100_001, 0)).toBe(false);
  });

  it('always allows without a deadline', () => {
    expect(fitsDeadline(plan({}), Number.MAX_SAFE_INTEGER / 2, 1e12)).toBe(true);
  });
});

describe('the attempt timeout T = min(attemptTimeoutMs, deadline − reserve − start)', () => {
  const p = plan({ deadlineInMs: 100_000, reserveMs: 10_000, attemptTimeoutMs: 30_000, minAttemptMs: 1000 });

  it('is attemptTimeoutMs while the deadline is far', () => {
    expect(attemptTimeoutMs(p, 0)).toBe(30_000);
  });

  it('shrinks to the time left before the reserve', () => {
    expect(attemptTimeoutMs(p, 75_000)).toBe(15_000);
  });

  it('is never negative', () => {
    expect(attemptTimeoutMs(p, 95_000)).toBe(0);
  });

  it('is attemptTimeoutMs without a deadline', () => {
    expect(attemptTimeoutMs(plan({ attemptTimeoutMs: 42_000 }), 1e15)).toBe(42_000);
  });

  it("backs Temporal's timeouts: start-to-close is T plus a grace, schedule-to-close ends at the reserve", () => {
    expect(startToCloseMs(p, 75_000)).toBe(20_000);
    expect(startToCloseMs(p, 75_000, 1_000)).toBe(16_000);
    expect(scheduleToCloseMs(p, 75_000)).toBe(15_000);
    expect(scheduleToCloseMs(plan({}), 75_000)).toBeUndefined();
  });
});
