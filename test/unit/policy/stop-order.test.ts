import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type {
  AfterAttemptFacts,
  CallState,
  Failure,
  FailureClass,
  HistoryOutlook,
} from '../../../policy/index.js';
import {
  AFTER_ATTEMPT_QUESTIONS,
  BEFORE_STEP_QUESTIONS,
  FAILURE_CLASSES,
  MB,
  decide,
  firstStopReason,
  historyLimitStop,
  initialState,
  startDecision,
  stopAfterAttempt,
  stopBeforeStep,
  validatePlan,
} from '../../../policy/index.js';
import { fail, fixedRandom, plan, seededRandom } from './harness.js';

/** A history that the next attempt would take past the default limit. */
const full: HistoryOutlook = { now: { bytes: 40 * MB, events: 1_000 }, perAttempt: [], inputBytes: 100 };
/** A history with room to spare. */
const roomy: HistoryOutlook = { now: { bytes: 1_000, events: 10 }, perAttempt: [], inputBytes: 100 };

const after = (backendCount: number, overrides: Partial<CallState>): CallState => ({
  ...initialState(backendCount),
  attempts: 1,
  ...overrides,
});

describe('the questions after every attempt', () => {
  it('are asked in the order of the contract', () => {
    expect(AFTER_ATTEMPT_QUESTIONS.map((q) => q.reason)).toEqual([
      'cancelled',
      'succeeded',
      'stream-interrupted',
      'non-retryable',
      'budget',
      'attempts-exhausted',
      'history-limit',
      'retry-after-exceeded',
      'deadline',
    ]);
  });

  it.each([
    [{ cancelRequested: true, answered: true }, 'cancelled'],
    [{ answered: true, pastDeadline: true }, 'succeeded'],
    [{ streamInterrupted: true, nonRetryable: true }, 'stream-interrupted'],
    [{ nonRetryable: true, attemptsUsed: true }, 'non-retryable'],
    [{ overBudget: true, attemptsUsed: true }, 'budget'],
    [{ attemptsUsed: true, overHistoryLimit: true }, 'attempts-exhausted'],
    [{ overHistoryLimit: true, overRetryAfterCeiling: true, pastDeadline: true }, 'history-limit'],
    [{ overRetryAfterCeiling: true, pastDeadline: true }, 'retry-after-exceeded'],
    [{ pastDeadline: true }, 'deadline'],
    [{ answered: false, pastDeadline: false }, undefined],
    [{}, undefined],
  ] as const)('%j -> %s', (facts, reason) => {
    expect(stopAfterAttempt(facts)).toBe(reason);
  });

  it('the first question answered yes is the reason that wins when several apply', () => {
    const facts = fc.record(
      Object.fromEntries(AFTER_ATTEMPT_QUESTIONS.map((q) => [q.fact, fc.boolean()])) as Record<
        keyof AfterAttemptFacts,
        fc.Arbitrary<boolean>
      >,
    );
    fc.assert(
      fc.property(facts, (f) => {
        const yes = AFTER_ATTEMPT_QUESTIONS.filter((q) => f[q.fact]).map((q) => q.reason);
        expect(stopAfterAttempt(f)).toBe(firstStopReason(...yes));
      }),
    );
  });
});

describe('decide asks them in that order', () => {
  it('a stream interrupted on the last allowed attempt, past the history limit: stream-interrupted', () => {
    const d = decide(
      plan({ waits: [10], maxAttempts: 1 }),
      after(1, {}),
      fail('StreamInterrupted'),
      0,
      fixedRandom(0),
      {
        history: full,
      },
    );
    expect(d).toMatchObject({ kind: 'stop', reason: 'stream-interrupted' });
  });

  it('an abort on the last allowed attempt, past the history limit: non-retryable', () => {
    const d = decide(
      plan({ waits: [10], maxAttempts: 1 }),
      after(1, {}),
      fail('BadRequest'),
      0,
      fixedRandom(0),
      {
        history: full,
      },
    );
    expect(d).toMatchObject({ kind: 'stop', reason: 'non-retryable' });
  });

  it('the last backend dropped, past the history limit: non-retryable', () => {
    const d = decide(plan({ waits: [10] }), after(1, {}), fail('AuthFailed'), 0, fixedRandom(0), {
      history: full,
    });
    expect(d).toMatchObject({ kind: 'stop', reason: 'non-retryable' });
  });

  it('maxAttempts made, past the history limit: attempts-exhausted', () => {
    const d = decide(
      plan({ waits: [10], maxAttempts: 1 }),
      after(1, {}),
      fail('ServerError'),
      0,
      fixedRandom(0),
      {
        history: full,
      },
    );
    expect(d).toMatchObject({ kind: 'stop', reason: 'attempts-exhausted' });
  });

  it('every wait used and no backend left, past the history limit: attempts-exhausted', () => {
    const d = decide(
      plan({ waits: [10] }),
      after(1, { waitsTaken: 1 }),
      fail('ServerError'),
      0,
      fixedRandom(0),
      {
        history: full,
      },
    );
    expect(d).toMatchObject({ kind: 'stop', reason: 'attempts-exhausted' });
  });

  it('past the history limit with a retry-after over the ceiling: history-limit', () => {
    const p = plan({ waits: [10], retryAfter: { maxMs: 1_000 } });
    const failure = fail('RateLimited', { retryAfterMs: 60_000 });
    expect(decide(p, after(1, {}), failure, 0, fixedRandom(0))).toMatchObject({
      reason: 'retry-after-exceeded',
    });
    expect(decide(p, after(1, {}), failure, 0, fixedRandom(0), { history: full })).toMatchObject({
      kind: 'stop',
      reason: 'history-limit',
      action: 'advance',
    });
  });

  it('past the history limit with no room before the deadline: history-limit', () => {
    const p = plan({ waits: [10], deadlineInMs: 100_000, reserveMs: 10_000, minAttemptMs: 1_000 });
    expect(decide(p, after(2, {}), fail('RateLimited'), 95_000, fixedRandom(0))).toMatchObject({
      reason: 'deadline',
    });
    expect(
      decide(p, after(2, {}), fail('RateLimited'), 95_000, fixedRandom(0), { history: full }),
    ).toMatchObject({
      reason: 'history-limit',
    });
  });

  it('a retry-after over the ceiling with no room before the deadline: retry-after-exceeded', () => {
    const p = plan({ waits: [10], deadlineInMs: 100_000, reserveMs: 10_000, retryAfter: { maxMs: 1_000 } });
    const d = decide(p, after(1, {}), fail('RateLimited', { retryAfterMs: 60_000 }), 95_000, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'stop', reason: 'retry-after-exceeded' });
  });

  it('an attempt that would pass the history limit is not made: the state is the one before it', () => {
    const d = decide(plan({ waits: [10] }), after(2, {}), fail('ServerError'), 0, fixedRandom(0), {
      history: full,
    });
    expect(d).toMatchObject({ kind: 'stop', reason: 'history-limit', action: 'retry-same' });
    expect(d.state).toMatchObject({ attempts: 1, waitsTaken: 0, backend: 0, sameBackendRetries: 0 });
    expect(d.why).toMatch(
      /^ServerError: retry-same \(default table\); the next attempt would take the run's history/,
    );
  });

  it('with room in the history, the decision is the one without an outlook', () => {
    const d = decide(plan({ waits: [10] }), after(2, {}), fail('ServerError'), 0, fixedRandom(0), {
      history: roomy,
    });
    expect(d).toEqual(decide(plan({ waits: [10] }), after(2, {}), fail('ServerError'), 0, fixedRandom(0)));
  });

  it('before the first attempt: every backend dropped, then the history limit, then the deadline', () => {
    const p = plan({ waits: [10], deadlineInMs: 100_000, reserveMs: 10_000 });
    const dropped = { ...initialState(1), dropped: [0] };
    expect(startDecision(p, dropped, 95_000, { history: full })).toMatchObject({ reason: 'non-retryable' });
    expect(startDecision(p, initialState(1), 95_000, { history: full })).toMatchObject({
      reason: 'history-limit',
    });
    expect(startDecision(p, initialState(1), 95_000, { history: roomy })).toMatchObject({
      reason: 'deadline',
    });
    expect(startDecision(p, initialState(1), 0, { history: roomy })).toMatchObject({ kind: 'attempt' });
  });
});

const CLASSES: readonly FailureClass[] = FAILURE_CLASSES;

describe('for random decisions', () => {
  it('the history limit only turns a decision into history-limit, when its check fails and no earlier reason applies', () => {
    const arb = fc.record({
      waits: fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 3 }),
      deadline: fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: undefined }),
      maxAttempts: fc.integer({ min: 1, max: 5 }),
      retryAfterMaxMs: fc.integer({ min: 0, max: 30_000 }),
      backends: fc.integer({ min: 1, max: 3 }),
      backend: fc.nat(2),
      attempts: fc.integer({ min: 1, max: 5 }),
      waitsTaken: fc.nat(4),
      failure: fc.record(
        { class: fc.constantFrom(...CLASSES), retryAfterMs: fc.integer({ min: 0, max: 40_000 }) },
        { requiredKeys: ['class'] },
      ),
      nowMs: fc.integer({ min: 0, max: 70_000 }),
      historyBytes: fc.integer({ min: 0, max: 45 * MB }),
      inputBytes: fc.integer({ min: 0, max: 3 * MB }),
      seed: fc.integer(),
    });
    fc.assert(
      fc.property(arb, (c) => {
        const p = validatePlan(
          {
            waits: c.waits,
            maxAttempts: c.maxAttempts,
            retryAfter: { maxMs: c.retryAfterMaxMs },
            reserveMs: 1_000,
            minAttemptMs: 500,
            ...(c.deadline === undefined ? {} : { deadlineInMs: 1_500 + c.deadline }),
          },
          { nowMs: 0, chainStartMs: 0 },
        );
        const state = after(c.backends, {
          backend: Math.min(c.backend, c.backends - 1),
          attempts: c.attempts,
          waitsTaken: c.waitsTaken,
        });
        const history: HistoryOutlook = {
          now: { bytes: c.historyBytes, events: 100 },
          perAttempt: [],
          inputBytes: c.inputBytes,
        };
        const failure: Failure = c.failure;
        const without = decide(p, state, failure, c.nowMs, seededRandom(c.seed));
        const withIt = decide(p, state, failure, c.nowMs, seededRandom(c.seed), { history });
        const over = historyLimitStop(p, history) !== undefined;
        const expected =
          without.kind === 'stop'
            ? firstStopReason(without.reason, over ? 'history-limit' : undefined)
            : over
              ? 'history-limit'
              : undefined;
        if (expected === undefined || (without.kind === 'stop' && expected === without.reason)) {
          expect(withIt).toEqual(without);
        } else {
          expect(withIt).toMatchObject({
            kind: 'stop',
            reason: 'history-limit',
            state: { attempts: state.attempts },
          });
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("the questions before an agent turn's step", () => {
  it('are asked in the order of the contract: the deadline before maxSteps', () => {
    expect(BEFORE_STEP_QUESTIONS.map((q) => q.reason)).toEqual(['deadline', 'max-steps']);
  });

  it('stop deadline, not max-steps, when the turn is at maxSteps and past its deadline', () => {
    expect(stopBeforeStep({ stepsUsed: true, pastDeadline: true })).toBe('deadline');
  });

  it('stop for the one that applies, and go on when neither does', () => {
    expect(stopBeforeStep({ stepsUsed: true })).toBe('max-steps');
    expect(stopBeforeStep({ pastDeadline: true })).toBe('deadline');
    expect(stopBeforeStep({})).toBeUndefined();
  });
});
