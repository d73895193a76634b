import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Action, Failure, FailureClass, OverridableClass, ResolvedPlan } from '../../../policy/index.js';
import {
  ACTIONS,
  DEFAULT_ACTIONS,
  FAILURE_CLASSES,
  attemptTimeoutMs,
  decide,
  validatePlan,
} from '../../../policy/index.js';
import type { RunResult } from './harness.js';
import { run, seededRandom } from './harness.js';

const OVERRIDABLE = FAILURE_CLASSES.filter((c): c is OverridableClass => c !== 'StreamInterrupted');

/** A raw plan as a user might write it: every field in a range that validates, or no plan at all. */
const rawPlan = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 9,
    arbitrary: fc
      .record({
        schedule: fc.oneof(
          fc.record({ waits: fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 4 }) }),
          fc.record({
            initialMs: fc.integer({ min: 0, max: 2_000 }),
            factor: fc.double({ min: 1, max: 3, noNaN: true }),
            capExtra: fc.integer({ min: 0, max: 10_000 }),
            jitterMs: fc.integer({ min: 0, max: 500 }),
          }),
        ),
        maxAttempts: fc.integer({ min: 1, max: 40 }),
        deadlineExtra: fc.option(fc.integer({ min: 0, max: 300_000 }), { nil: undefined }),
        reserveMs: fc.integer({ min: 0, max: 20_000 }),
        minAttemptMs: fc.integer({ min: 0, max: 3_000 }),
        timeoutExtra: fc.integer({ min: 0, max: 60_000 }),
        honor: fc.boolean(),
        retryAfterMaxMs: fc.integer({ min: 0, max: 30_000 }),
        actions: fc
          .dictionary(fc.constantFrom(...OVERRIDABLE), fc.constantFrom(...ACTIONS), { maxKeys: 4 })
          // Only SchemaMismatch may be repaired (validatePlan refuses the rest).
          .map((a) =>
            Object.fromEntries(
              Object.entries(a).filter(([k, v]) => v !== 'repair' || k === 'SchemaMismatch'),
            ),
          ),
        retriesPerBackend: fc.integer({ min: 0, max: 3 }),
      })
      .map((r) => ({
        ...('waits' in r.schedule
          ? { waits: r.schedule.waits }
          : {
              backoff: {
                initialMs: r.schedule.initialMs,
                factor: r.schedule.factor,
                maxMs: r.schedule.initialMs + r.schedule.capExtra,
                jitterMs: r.schedule.jitterMs,
              },
            }),
        maxAttempts: r.maxAttempts,
        ...(r.deadlineExtra === undefined
          ? {}
          : { deadlineInMs: r.reserveMs + r.minAttemptMs + r.deadlineExtra }),
        reserveMs: r.reserveMs,
        minAttemptMs: r.minAttemptMs,
        attemptTimeoutMs: Math.max(1, r.minAttemptMs) + r.timeoutExtra,
        retryAfter: { honor: r.honor, maxMs: r.retryAfterMaxMs },
        actions: r.actions,
        retriesPerBackend: r.retriesPerBackend,
      })),
  },
);

/** One failed attempt: its class, what the provider said, and how long it took. */
const failedAttempt = fc.record({
  failure: fc.record(
    {
      class: fc.oneof(
        { weight: 30, arbitrary: fc.constantFrom(...OVERRIDABLE) },
        // Fleet health's cool-downs, often enough that every backend of a chain meets one in a row.
        { weight: 6, arbitrary: fc.constant<FailureClass>('CoolingDown') },
        { weight: 1, arbitrary: fc.constant<FailureClass>('StreamInterrupted') },
      ),
      retryAfterMs: fc.integer({ min: 0, max: 40_000 }),
      shouldRetry: fc.constantFrom<'retry-same' | 'drop'>('retry-same', 'drop'),
    },
    { requiredKeys: ['class'] },
  ),
  tookMs: fc.integer({ min: 0, max: 70_000 }),
});

const call = fc.record({
  raw: rawPlan,
  backends: fc.integer({ min: 1, max: 4 }),
  failures: fc.array(failedAttempt, { maxLength: 60 }),
  startMs: fc.integer({ min: 0, max: 2_000_000_000_000 }),
  seed: fc.integer(),
  repairs: fc.integer({ min: 0, max: 3 }),
});

interface Played {
  plan: ResolvedPlan;
  result: RunResult;
}

type Call = typeof call extends fc.Arbitrary<infer T> ? T : never;

function play(c: Call): Played {
  const plan = validatePlan(c.raw, { nowMs: c.startMs, chainStartMs: c.startMs });
  const result = run({
    plan,
    backends: c.backends,
    startMs: c.startMs,
    random: seededRandom(c.seed),
    script: (n) => c.failures[n - 1]?.failure ?? 'ok',
    attemptMs: (n) => c.failures[n - 1]?.tookMs ?? 0,
    repairs: c.repairs,
  });
  return { plan, result };
}

/**
 * The action each failed attempt of a run got, worked out here independently of the policy's own code: the asked
 * action, except that a `repair` on a backend whose last `repairs` attempts in a row were repairs is a `drop`.
 */
function actionsTaken(plan: ResolvedPlan, result: RunResult, repairs: number): (Action | undefined)[] {
  let inARow = 0;
  return result.attempts.map((attempt, i) => {
    const before = result.attempts[i - 1];
    if (
      before === undefined ||
      before.backend !== attempt.backend ||
      attempt.action === 'advance' ||
      attempt.action === 'drop'
    )
      inARow = 0;
    if (attempt.action === 'repair') inARow += 1;
    const asked = attempt.failure && askedAction(plan, attempt.failure);
    return asked === 'repair' && inARow >= repairs ? 'drop' : asked;
  });
}

/** The action a failure asks for, worked out here independently of the policy's own code. */
function askedAction(plan: ResolvedPlan, failure: Failure): Action | undefined {
  if (failure.class === 'StreamInterrupted') return undefined;
  return plan.actions[failure.class] ?? failure.shouldRetry ?? DEFAULT_ACTIONS[failure.class];
}

const RUNS = { numRuns: 400 };

describe('decide, for random plans and failure sequences', () => {
  it('never makes more attempts than maxAttempts, nor more waits than an explicit list without a deadline', () => {
    fc.assert(
      fc.property(call, (c) => {
        const { plan, result } = play(c);
        expect(result.attempts.length).toBeLessThanOrEqual(plan.maxAttempts);
        const finalState = result.last.state;
        if (plan.waits !== undefined && plan.deadlineMs === undefined) {
          // Every wait counts, the waits for cooling backends (fleet health's) too.
          expect(finalState.waitsTaken + (finalState.coolingWaits ?? 0)).toBeLessThanOrEqual(
            plan.waits.length,
          );
          // So the call is bounded by the list: between two waits, each backend once per round, with its repairs.
          const bound = (plan.waits.length + 1) * c.backends * (c.repairs + 1);
          expect(result.attempts.length).toBeLessThanOrEqual(bound);
        }
        if (!plan.retry) expect(result.attempts).toHaveLength(1);
      }),
      RUNS,
    );
  });

  it('never schedules an attempt that could end inside the reserve', () => {
    fc.assert(
      fc.property(call, (c) => {
        const { plan, result } = play(c);
        if (plan.deadlineMs === undefined) return;
        const spendUntil = plan.deadlineMs - plan.reserveMs;
        for (const attempt of result.attempts) {
          expect(attempt.startMs + plan.minAttemptMs).toBeLessThanOrEqual(spendUntil);
          expect(attempt.startMs + attemptTimeoutMs(plan, attempt.startMs)).toBeLessThanOrEqual(spendUntil);
          expect(attempt.endMs).toBeLessThanOrEqual(spendUntil);
        }
      }),
      RUNS,
    );
  });

  it('never cuts an honoured retry-after short', () => {
    fc.assert(
      fc.property(call, (c) => {
        const { plan, result } = play(c);
        const notBefore = new Map<number, number>();
        for (const attempt of result.attempts) {
          expect(attempt.startMs).toBeGreaterThanOrEqual(notBefore.get(attempt.backend) ?? -Infinity);
          const ra = attempt.failure?.retryAfterMs;
          if (plan.retryAfter.honor && ra !== undefined) {
            notBefore.set(
              attempt.backend,
              Math.max(notBefore.get(attempt.backend) ?? -Infinity, attempt.endMs + ra),
            );
          }
        }
      }),
      RUNS,
    );
  });

  it('never tries a dropped backend again', () => {
    fc.assert(
      fc.property(call, (c) => {
        const { plan, result } = play(c);
        const dropped = new Set<number>();
        const taken = actionsTaken(plan, result, c.repairs);
        result.attempts.forEach((attempt, i) => {
          expect(dropped.has(attempt.backend)).toBe(false);
          if (taken[i] === 'drop') dropped.add(attempt.backend);
        });
        expect(new Set(result.last.state.dropped)).toEqual(dropped);
      }),
      RUNS,
    );
  });

  it('stops at once, with the stop reason the precedence names, when a failure asks to stop', () => {
    fc.assert(
      fc.property(call, (c) => {
        const { plan, result } = play(c);
        const lastFailure = result.attempts.at(-1)?.failure;
        for (const attempt of result.attempts.slice(0, -1)) {
          expect(attempt.failure?.class).not.toBe('StreamInterrupted');
          expect(attempt.failure && askedAction(plan, attempt.failure)).not.toBe('abort');
        }
        if (lastFailure?.class === 'StreamInterrupted') expect(result.outcome).toBe('stream-interrupted');
        else if (lastFailure && askedAction(plan, lastFailure) === 'abort')
          expect(result.outcome).toBe('non-retryable');
        else if (result.attempts.length === 0) expect(result.outcome).toBe('deadline');
      }),
      RUNS,
    );
  });

  it('waits only for a reason: an attempt at once continues the round, a wait starts a new one or retries the same backend', () => {
    fc.assert(
      fc.property(call, (c) => {
        const { result } = play(c);
        for (const [k, { from, decision }] of result.decisions.entries()) {
          if (k === 0 || decision.kind !== 'attempt') continue;
          expect(decision.waitMs).toBeGreaterThanOrEqual(0);
          expect(decision.state.attempts).toBe(from.attempts + 1);
          const waited = decision.state.waitsTaken - from.waitsTaken;
          expect([0, 1]).toContain(waited);
          // A wait for cooling backends (fleet health) uses no entry of the plan's waits and starts a new round.
          const coolingWait = waited === 0 && decision.state.round === from.round + 1;
          if (coolingWait) expect(decision.why).toMatch(/every backend left is cooling down/);
          if (decision.action === 'repair') {
            // A repair: the same backend at once, in the same round, counted apart from same-backend retries.
            expect(waited).toBe(0);
            expect(decision.backend).toBe(from.backend);
            expect(decision.state.round).toBe(from.round);
            expect(decision.state.sameBackendRetries).toBe(from.sameBackendRetries);
            expect(decision.state.repairs).toBe((from.repairs ?? 0) + 1);
          } else if (waited === 0 && !coolingWait) {
            expect(decision.waitMs).toBe(0);
            expect(decision.state.round).toBe(from.round);
            // A backend not yet tried in this round (in chain order, wrapping around past the last).
            const triedInRound = result.attempts
              .slice(0, k)
              .filter((_, j) => result.decisions[j]?.decision.state.round === from.round)
              .map((a) => a.backend);
            expect(triedInRound).not.toContain(decision.backend);
          }
        }
      }),
      RUNS,
    );
  });

  it('is a pure function: same arguments, same decision; inputs untouched; plain JSON in and out', () => {
    fc.assert(
      fc.property(call, fc.integer(), (c, seed) => {
        const { plan, result } = play(c);
        for (const { from, nowMs, failure } of result.decisions.slice(1)) {
          if (failure === undefined) continue;
          const frozenPlan = deepFreeze(structuredClone(plan));
          const frozenState = deepFreeze(structuredClone(from));
          const frozenFailure = deepFreeze(structuredClone(failure));
          const before = JSON.stringify([frozenPlan, frozenState, frozenFailure]);
          const run = { repairs: c.repairs };
          const first = decide(frozenPlan, frozenState, frozenFailure, nowMs, seededRandom(seed), run);
          const again = decide(
            JSON.parse(JSON.stringify(plan)) as ResolvedPlan,
            JSON.parse(JSON.stringify(from)) as typeof from,
            JSON.parse(JSON.stringify(failure)) as Failure,
            nowMs,
            seededRandom(seed),
            run,
          );
          expect(again).toEqual(first);
          expect(JSON.stringify([frozenPlan, frozenState, frozenFailure])).toBe(before);
          expect(JSON.parse(JSON.stringify(first))).toEqual(first);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('repair, for random plans and failure sequences', () => {
  it('tries the same backend at once at most `repairs` times in a row, each after a SchemaMismatch, and never after another backend was tried', () => {
    fc.assert(
      fc.property(call, (c) => {
        const { plan, result } = play(c);
        let inARow = 0;
        result.attempts.forEach((attempt, i) => {
          const before = result.attempts[i - 1];
          if (attempt.action !== 'repair') {
            // A same-backend retry keeps the count; anything else is another backend or a new round.
            if (attempt.action !== 'retry-same') inARow = 0;
            return;
          }
          inARow += 1;
          expect(before?.failure?.class).toBe('SchemaMismatch');
          expect(before && askedAction(plan, before.failure as Failure)).toBe('repair');
          expect(attempt.backend).toBe(before?.backend);
          // At once, unless the backend asked for a retry-after that the plan honours.
          if (!plan.retryAfter.honor || before?.failure?.retryAfterMs === undefined)
            expect(attempt.waitMs).toBe(0);
          expect(inARow).toBeLessThanOrEqual(c.repairs);
        });
      }),
      RUNS,
    );
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
