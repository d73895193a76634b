import { describe, expect, it } from 'vitest';
import type { PlanContext, ResolvedPlan } from '../../../policy/index.js';
import { InvalidRetryPlanError, PLAN_DEFAULTS, validatePlan } from '../../../policy/index.js';

const NOW = Date.UTC(2026, 2, 1, 12);
const ctx = { nowMs: NOW, chainStartMs: NOW - 5_000 };

/** The error `validatePlan` throws for `plan`, or a failure if it throws none. */
function refusal(plan: unknown, context: PlanContext = ctx): InvalidRetryPlanError {
  try {
    validatePlan(plan, context);
  } catch (error) {
    if (error instanceof InvalidRetryPlanError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(plan)} to be refused`);
}

describe('no plan means one attempt', () => {
  it.each([
    ['absent', undefined],
    ['false', false],
    ['null', null],
  ])('%s -> retry off, maxAttempts 1, no deadline', (_name, plan) => {
    const resolved = validatePlan(plan, ctx);
    expect(resolved.retry).toBe(false);
    expect(resolved.maxAttempts).toBe(1);
    expect(resolved.deadlineMs).toBeUndefined();
  });
});

describe('defaults', () => {
  it('an empty plan is the default backoff with every default filled in', () => {
    expect(validatePlan({}, ctx)).toEqual({
      retry: true,
      backoff: { initialMs: 1000, factor: 2, maxMs: 30_000, jitterMs: 500 },
      maxAttempts: 100,
      reserveMs: 60_000,
      attemptTimeoutMs: 300_000,
      minAttemptMs: 1000,
      retryAfter: { honor: true, maxMs: 300_000 },
      actions: {},
      retriesPerBackend: 2,
      historyLimit: { bytes: 41_943_040, events: 40_000 },
    } satisfies ResolvedPlan);
  });

  it('a partial backoff keeps the other defaults', () => {
    expect(validatePlan({ backoff: { factor: 3 } }, ctx).backoff).toEqual({
      ...PLAN_DEFAULTS.backoff,
      factor: 3,
    });
  });

  it('an explicit waits list has no backoff', () => {
    const resolved = validatePlan({ waits: [10, 30] }, ctx);
    expect(resolved.waits).toEqual([10, 30]);
    expect(resolved.backoff).toBeUndefined();
  });

  it('a deadline is stored as an absolute time', () => {
    expect(validatePlan({ deadline: '2026-03-01T13:00:00Z' }, ctx).deadlineMs).toBe(NOW + 3_600_000);
  });

  it('deadlineInMs counts from the start of the workflow chain, not from now', () => {
    expect(validatePlan({ deadlineInMs: 120_000 }, ctx).deadlineMs).toBe(NOW - 5_000 + 120_000);
  });

  it('the resolved plan is plain JSON', () => {
    const resolved = validatePlan(
      {
        waits: [1],
        deadlineInMs: 200_000,
        actions: { RateLimited: 'retry-same' },
        retryAfter: { honor: false },
      },
      ctx,
    );
    expect(JSON.parse(JSON.stringify(resolved))).toEqual(resolved);
  });

  it('keeps a valid override of every overridable class', () => {
    const resolved = validatePlan({ actions: { RateLimited: 'retry-same', BadRequest: 'drop' } }, ctx);
    expect(resolved.actions).toEqual({ RateLimited: 'retry-same', BadRequest: 'drop' });
  });

  it('accepts the edges: maxAttempts 1000, waits of 0, retriesPerBackend 0', () => {
    const resolved = validatePlan({ waits: [0], maxAttempts: 1000, retriesPerBackend: 0 }, ctx);
    expect(resolved).toMatchObject({ waits: [0], maxAttempts: 1000, retriesPerBackend: 0 });
  });

  it('accepts times of up to 100 years (MAX_PLAN_MS), in every field', () => {
    const max = 3_155_760_000_000;
    const resolved = validatePlan(
      { waits: [max], attemptTimeoutMs: max, deadlineInMs: max, retryAfter: { maxMs: max } },
      ctx,
    );
    expect(resolved).toMatchObject({ waits: [max], attemptTimeoutMs: max, retryAfter: { maxMs: max } });
  });

  it('accepts a deadline that leaves exactly reserveMs + minAttemptMs', () => {
    expect(validatePlan({ deadlineInMs: 5_000 + 61_000 }, ctx).deadlineMs).toBe(NOW + 61_000);
  });
});

/** Every refusal the contract lists (and the ones this module adds), with the field it names and a word of its fix. */
const REFUSALS: readonly (readonly [string, unknown, string, RegExp])[] = [
  ['empty waits', { waits: [] }, 'waits', /at least one wait/],
  ['waits that are not a list', { waits: 10 }, 'waits', /list of waits/],
  ['a negative wait', { waits: [10, -1] }, 'waits[1]', /0 or more/],
  ['a non-finite wait', { waits: [Infinity] }, 'waits[0]', /finite/],
  ['a wait that is a string', { waits: ['10'] }, 'waits[0]', /finite number/],
  ['both waits and backoff', { waits: [10], backoff: {} }, 'backoff', /one of `waits`/],
  ['a negative backoff.initialMs', { backoff: { initialMs: -1 } }, 'backoff.initialMs', /at least 0/],
  ['a backoff.factor below 1', { backoff: { factor: 0.5 } }, 'backoff.factor', /at least 1/],
  ['a NaN backoff.maxMs', { backoff: { maxMs: NaN } }, 'backoff.maxMs', /finite number/],
  ['a negative backoff.jitterMs', { backoff: { jitterMs: -5 } }, 'backoff.jitterMs', /at least 0/],
  [
    'backoff.maxMs below initialMs',
    { backoff: { initialMs: 5000, maxMs: 1000 } },
    'backoff.maxMs',
    /cannot be less than `backoff.initialMs`/,
  ],
  ['a backoff that is not an object', { backoff: 'fast' }, 'backoff', /must be an object/],
  ['maxAttempts over 1000', { maxAttempts: 1001 }, 'maxAttempts', /at most 1000/],
  ['maxAttempts 0', { maxAttempts: 0 }, 'maxAttempts', /at least 1/],
  ['a fractional maxAttempts', { maxAttempts: 2.5 }, 'maxAttempts', /whole number/],
  [
    'both deadline and deadlineInMs',
    { deadline: '2026-03-01T13:00:00Z', deadlineInMs: 100_000 },
    'deadlineInMs',
    /one of `deadline`/,
  ],
  ['a deadline without a zone', { deadline: '2026-03-01T13:00:00' }, 'deadline', /ISO 8601 time with a zone/],
  ['a deadline that is a number', { deadline: 1_000 }, 'deadline', /ISO 8601/],
  ['a negative deadlineInMs', { deadlineInMs: -1 }, 'deadlineInMs', /at least 0/],
  [
    'a deadline too close for the reserve',
    { deadline: '2026-03-01T12:00:30Z' },
    'deadline',
    /leaves 30000 ms.*`reserveMs`/,
  ],
  [
    'a deadlineInMs too close for the reserve',
    { deadlineInMs: 60_000 },
    'deadlineInMs',
    /`reserveMs` \+ `minAttemptMs` \(61000 ms\).*lower `reserveMs`/,
  ],
  ['a deadline already past', { deadline: '2026-03-01T11:00:00Z' }, 'deadline', /leaves 0 ms.*`reserveMs`/],
  ['a negative reserveMs', { reserveMs: -1 }, 'reserveMs', /at least 0/],
  ['an attemptTimeoutMs of 0', { attemptTimeoutMs: 0 }, 'attemptTimeoutMs', /more than 0/],
  ['a non-finite attemptTimeoutMs', { attemptTimeoutMs: Infinity }, 'attemptTimeoutMs', /finite/],
  ['a negative minAttemptMs', { minAttemptMs: -1 }, 'minAttemptMs', /at least 0/],
  [
    'minAttemptMs over attemptTimeoutMs',
    { minAttemptMs: 5000, attemptTimeoutMs: 1000 },
    'minAttemptMs',
    /cannot be more than `attemptTimeoutMs`/,
  ],
  ['a negative retriesPerBackend', { retriesPerBackend: -1 }, 'retriesPerBackend', /at least 0/],
  ['a fractional retriesPerBackend', { retriesPerBackend: 1.5 }, 'retriesPerBackend', /whole number/],
  [
    'a retryAfter.honor that is not a boolean',
    { retryAfter: { honor: 'yes' } },
    'retryAfter.honor',
    /true or false/,
  ],
  ['a negative retryAfter.maxMs', { retryAfter: { maxMs: -1 } }, 'retryAfter.maxMs', /at least 0/],
  ['a retryAfter that is not an object', { retryAfter: true }, 'retryAfter', /must be an object/],
  [
    'an override of StreamInterrupted',
    { actions: { StreamInterrupted: 'retry-same' } },
    'actions.StreamInterrupted',
    /cannot be overridden/,
  ],
  [
    'an override of an unknown class',
    { actions: { Overloaded: 'retry-same' } },
    'actions.Overloaded',
    /not a failure class/,
  ],
  ['an unknown action', { actions: { RateLimited: 'retry' } }, 'actions.RateLimited', /'retry-same'/],
  ['actions that are a list', { actions: ['advance'] }, 'actions', /must be an object/],
  ['an unknown key', { retries: 3 }, 'retries', /not a known field: remove it/],
  ['a misspelt key', { maxattempts: 3 }, 'maxattempts', /did you mean `maxAttempts`/],
  ['an unknown backoff key', { backoff: { multiplier: 2 } }, 'backoff.multiplier', /not a known field/],
  ['an unknown retryAfter key', { retryAfter: { max: 1 } }, 'retryAfter.max', /not a known field/],
  ['a plan that is true', true, 'retry', /pass \{\} for the default backoff/],
  ['a plan that is a list', [10, 30], 'retry', /not an array/],
  ['a plan that is a number', 3, 'retry', /must be an object/],
  // Times past what Temporal's durations and JavaScript's dates hold: accepted, they left the call stuck on a
  // workflow task that failed forever (`Invalid time value`), or every attempt failed.
  ['a wait of a billion years', { waits: [10, 1e17] }, 'waits[1]', /at most 3155760000000.*100 years/],
  ['a backoff.maxMs past any date', { backoff: { maxMs: 1e17 } }, 'backoff.maxMs', /at most/],
  [
    'a backoff.initialMs past any date',
    { backoff: { initialMs: 1e17, maxMs: 1e17 } },
    'backoff.initialMs',
    /at most/,
  ],
  ['a backoff.jitterMs past any date', { backoff: { jitterMs: 1e17 } }, 'backoff.jitterMs', /at most/],
  ['a deadlineInMs past any date', { deadlineInMs: 1e17 }, 'deadlineInMs', /at most/],
  ['a deadline centuries away', { deadline: '9999-01-01T00:00:00Z' }, 'deadline', /at most 100 years/],
  ['an attemptTimeoutMs past any date', { attemptTimeoutMs: 1e17 }, 'attemptTimeoutMs', /at most/],
  ['a minAttemptMs past any date', { minAttemptMs: 1e17 }, 'minAttemptMs', /at most/],
  ['a reserveMs past any date', { reserveMs: 1e17 }, 'reserveMs', /at most/],
  ['a retryAfter.maxMs past any date', { retryAfter: { maxMs: 1e17 } }, 'retryAfter.maxMs', /at most/],
];

describe('validatePlan refuses, naming the field and the fix', () => {
  it.each(REFUSALS)('%s', (_name, plan, field, fix) => {
    const error = refusal(plan);
    expect(error.name).toBe('InvalidRetryPlan');
    expect(error).toBeInstanceOf(Error);
    expect(error.field).toBe(field);
    if (field !== 'retry') expect(error.message).toContain(`RetryPlan \`${field}\``);
    expect(error.message).toMatch(fix);
  });
});

describe('validatePlan reports every problem at once', () => {
  it('lists each problem with its field, and names the first in `field`', () => {
    const error = refusal({ waits: [], maxAttempts: 5000, colour: 'blue' });
    expect(error.problems.map((p) => p.field)).toEqual(['colour', 'waits', 'maxAttempts']);
    expect(error.field).toBe('colour');
    expect(error.message).toMatch(/^3 problems in the retry plan:/);
    for (const problem of error.problems) expect(error.message).toContain(problem.message);
  });

  it('a single problem is the whole message', () => {
    const error = refusal({ waits: [] });
    expect(error.problems).toHaveLength(1);
    expect(error.message).toBe(error.problems[0]?.message);
  });
});

describe('a plan accepted at submission, resolved later by the workflow', () => {
  it('is not refused for a deadline that has since passed, so the call can stop with `deadline`', () => {
    const later = { nowMs: NOW + 3_600_000, chainStartMs: NOW, atSubmission: false };
    expect(validatePlan({ deadlineInMs: 120_000 }, later).deadlineMs).toBe(NOW + 120_000);
    expect(refusal({ deadlineInMs: 120_000 }, { ...later, atSubmission: true }).field).toBe('deadlineInMs');
  });
});
