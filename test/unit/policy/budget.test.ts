import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type {
  BudgetAttempt,
  BudgetOutlook,
  CallState,
  FailureClass,
  HistoryOutlook,
} from '../../../policy/index.js';
import {
  FAILURE_CLASSES,
  MB,
  attemptSpent,
  budgetProblems,
  budgetStop,
  correctionTokens,
  decide,
  initialState,
  pricedCost,
  pricingProblems,
  spentSoFar,
  startDecision,
  worstCase,
} from '../../../policy/index.js';
import { startWithNotBefore } from '../../../policy/shared-not-before.js';
import { fail, fixedRandom, plan } from './harness.js';

const FAST = 'local:fast';
const CHEAP = 'local:cheap';

/** A call over [local:fast, local:cheap] with 400 bytes of conversation (100 tokens by the estimate). */
const outlook = (over: Partial<BudgetOutlook> = {}): BudgetOutlook => ({
  budget: {},
  backends: [FAST, CHEAP],
  attempts: [],
  pricing: {},
  inputBytes: 400,
  ...over,
});

const failed = (cls: FailureClass, over: Partial<BudgetAttempt> = {}): BudgetAttempt => ({
  model: FAST,
  outcome: 'failed',
  failure: { class: cls },
  ...over,
});

const after = (backendCount: number, overrides: Partial<CallState> = {}): CallState => ({
  ...initialState(backendCount),
  attempts: 1,
  ...overrides,
});

describe('the next attempt’s worst case', () => {
  it('is UTF-8 bytes / 4 of input plus settings.maxOutputTokens, before any usage is reported', () => {
    expect(worstCase(outlook({ maxOutputTokens: 50 }), FAST)).toEqual({
      inputTokens: 100,
      outputTokens: 50,
      totalTokens: 150,
      costUsd: 0,
    });
  });

  it('takes the input the same backend last reported, not another backend’s', () => {
    const attempts = [
      failed('ParseFailed', { usage: { inputTokens: 70, outputTokens: 5 } }),
      failed('ParseFailed', { model: CHEAP, usage: { inputTokens: 90, outputTokens: 1 } }),
    ];
    const o = outlook({ attempts, maxOutputTokens: 10 });
    expect(worstCase(o, FAST).inputTokens).toBe(70);
    expect(worstCase(o, CHEAP).inputTokens).toBe(90);
  });

  it("counts a continuation's text on every backend, unless the backend's reported input was a continuation's", () => {
    const cut = failed('ConnectionLost', { usage: { inputTokens: 70, outputTokens: 5 } });
    const o = outlook({ attempts: [cut], maxOutputTokens: 10, continuedInputTokens: 30 });
    expect(worstCase(o, FAST).inputTokens).toBe(100);
    expect(worstCase(o, CHEAP).inputTokens).toBe(130);
    const continued = failed('ServerError', { usage: { inputTokens: 95 }, continues: 'c1.1' });
    expect(worstCase({ ...o, attempts: [cut, continued] }, FAST).inputTokens).toBe(95);
  });

  it('without maxOutputTokens guesses the largest output seen, in this call or before it (best effort)', () => {
    const attempts = [failed('ParseFailed', { usage: { inputTokens: 70, outputTokens: 40 } })];
    expect(worstCase(outlook({ attempts }), FAST).outputTokens).toBe(40);
    expect(worstCase(outlook({ attempts, largestOutputBefore: 60 }), FAST).outputTokens).toBe(60);
    expect(worstCase(outlook(), FAST).outputTokens).toBe(0);
  });

  it('costs what the model’s pricing says', () => {
    const pricing = { [FAST]: { inputPerMTok: 2, outputPerMTok: 10 } };
    expect(worstCase(outlook({ pricing, maxOutputTokens: 100 }), FAST).costUsd).toBeCloseTo(
      (100 * 2 + 100 * 10) / 1e6,
    );
  });
});

describe('what a repair adds to the next attempt’s input', () => {
  it('counts the bad answer by its reported tokens, else bytes / 4, and the rest of the correction by bytes / 4', () => {
    expect(correctionTokens(40, 120, 30)).toBe(30 + 20);
    expect(correctionTokens(40, 120, undefined)).toBe(10 + 20);
  });

  it('adds it on the repaired backend only: on top of a reported count, or of the estimate from bytes', () => {
    const attempts = [failed('SchemaMismatch', { usage: { inputTokens: 70, outputTokens: 30 } })];
    const addedInput = { model: FAST, sinceReport: 50, total: 80 };
    expect(worstCase(outlook({ attempts, addedInput }), FAST).inputTokens).toBe(70 + 50);
    expect(worstCase(outlook({ addedInput }), FAST).inputTokens).toBe(100 + 80);
    // Another backend gets the original request.
    expect(worstCase(outlook({ attempts, addedInput }), CHEAP).inputTokens).toBe(100);
  });
});

describe('a cost budget without the worker’s prices', () => {
  it('stops before any attempt (fails closed), naming modelRetryConfig and pricing; token budgets go on', () => {
    const why = budgetStop(outlook({ budget: { maxCostUsd: 1 }, pricingUnknown: true }), FAST);
    expect(why).toContain('`budget.maxCostUsd` (1)');
    expect(why).toContain('`modelRetryConfig`');
    expect(why).toContain('`pricing`');
    expect(budgetStop(outlook({ budget: { maxTotalTokens: 1000 }, pricingUnknown: true }), FAST)).toBe(
      undefined,
    );
  });
});

describe('what an attempt counts', () => {
  const o = outlook({ maxOutputTokens: 50, pricing: { [FAST]: { inputPerMTok: 1, outputPerMTok: 4 } } });

  it('its reported usage, at the provider’s reported cost when there is one, else at the price', () => {
    const usage = { inputTokens: 10, outputTokens: 20, totalTokens: 30 };
    expect(attemptSpent(o, failed('ParseFailed', { usage }))).toEqual({
      inputTokens: 10,
      outputTokens: 20,
      totalTokens: 30,
      costUsd: (10 * 1 + 20 * 4) / 1e6,
    });
    expect(attemptSpent(o, failed('ParseFailed', { usage, cost: 0.5 })).costUsd).toBe(0.5);
  });

  it('cached input at its own price', () => {
    const pricing = { inputPerMTok: 10, outputPerMTok: 0, cachedInputPerMTok: 1 };
    expect(pricedCost({ inputTokens: 100, cachedInputTokens: 60 }, pricing)).toBeCloseTo(
      (40 * 10 + 60 * 1) / 1e6,
    );
  });

  it.each([
    ['ResponseTimeout', 150],
    ['ConnectionLost', 150],
    ['WorkerLost', 150],
    ['ServerError', 0],
    ['RateLimited', 0],
    ['ConnectFailed', 0],
    ['BadRequest', 0],
    ['Misconfigured', 0],
  ] as const)('with no usage, %s counts %i tokens', (cls, tokens) => {
    expect(attemptSpent(o, failed(cls as FailureClass)).totalTokens).toBe(tokens);
  });

  it('every class without usage counts either nothing or exactly the worst case', () => {
    for (const cls of FAILURE_CLASSES) {
      const spent = attemptSpent(o, failed(cls));
      expect([0, worstCase(o, FAST).totalTokens]).toContain(spent.totalTokens);
    }
  });

  it('spent so far adds what was spent before the call (an agent turn’s earlier calls)', () => {
    const before = { inputTokens: 1, outputTokens: 2, totalTokens: 3, costUsd: 0.25 };
    const spent = spentSoFar({ ...o, before, attempts: [failed('ResponseTimeout')] });
    expect(spent.totalTokens).toBe(153);
    expect(spent.costUsd).toBeCloseTo(0.25 + (100 + 50 * 4) / 1e6);
  });
});

describe('the budget rule', () => {
  it('goes on while spent + the worst case fits, and names the field when it would not', () => {
    const attempts = [failed('ParseFailed', { usage: { inputTokens: 100, outputTokens: 150 } })];
    const o = (max: number) => outlook({ budget: { maxTotalTokens: max }, attempts, maxOutputTokens: 200 });
    expect(budgetStop(o(550), FAST)).toBeUndefined();
    expect(budgetStop(o(549), FAST)).toBe(
      "`budget.maxTotalTokens` (549): spent 250 + the next attempt's worst case 300 on local:fast would pass it",
    );
  });

  it.each([
    ['maxInputTokens', 99, 100],
    ['maxOutputTokens', 49, 50],
    ['maxTotalTokens', 149, 150],
  ] as const)('%s: %i stops the first attempt, %i lets it go', (field, stops, goes) => {
    expect(budgetStop(outlook({ budget: { [field]: stops }, maxOutputTokens: 50 }), FAST)).toMatch(field);
    expect(budgetStop(outlook({ budget: { [field]: goes }, maxOutputTokens: 50 }), FAST)).toBeUndefined();
  });

  it('a cost limit counts only priced models (an unpriced one fails Misconfigured before sending)', () => {
    const pricing = { [FAST]: { inputPerMTok: 1000, outputPerMTok: 1000 } };
    const o = outlook({ budget: { maxCostUsd: 0.1 }, pricing, maxOutputTokens: 50 });
    expect(budgetStop(o, FAST)).toMatch(/^`budget.maxCostUsd` \(0.1\): spent 0 \+ .* 0.15 on local:fast/);
    expect(budgetStop(o, CHEAP)).toBeUndefined();
  });

  it('is monotone: a larger limit never stops where a smaller one goes on', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ input: fc.nat(1000), output: fc.nat(1000) }), { maxLength: 5 }),
        fc.nat(5000),
        fc.nat(5000),
        (usages, a, b) => {
          const attempts = usages.map((u) =>
            failed('ParseFailed', { usage: { inputTokens: u.input, outputTokens: u.output } }),
          );
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          const goesAtLo =
            budgetStop(outlook({ budget: { maxTotalTokens: lo }, attempts }), FAST) === undefined;
          const goesAtHi =
            budgetStop(outlook({ budget: { maxTotalTokens: hi }, attempts }), FAST) === undefined;
          expect(!goesAtLo || goesAtHi).toBe(true);
        },
      ),
    );
  });

  it('goes on exactly when spent + worst case is within every limit', () => {
    fc.assert(
      fc.property(fc.nat(500), fc.nat(500), fc.nat(2000), (input, output, max) => {
        const attempts = [failed('ParseFailed', { usage: { inputTokens: input, outputTokens: output } })];
        const o = outlook({ budget: { maxTotalTokens: max }, attempts, maxOutputTokens: 10 });
        const fits = input + output + input + 10 <= max;
        expect(budgetStop(o, FAST) === undefined).toBe(fits);
      }),
    );
  });
});

describe('decide asks the budget in its place', () => {
  const tight = (attempts: BudgetAttempt[] = [failed('ServerError')]) =>
    outlook({ budget: { maxTotalTokens: 120 }, attempts, maxOutputTokens: 50 });
  const full: HistoryOutlook = { now: { bytes: 40 * MB, events: 1_000 }, perAttempt: [], inputBytes: 100 };

  it('over budget stops the call budget, from the state before the move', () => {
    const d = decide(plan({ waits: [10] }), after(2), fail('ServerError'), 0, fixedRandom(0), {
      budget: tight(),
    });
    expect(d).toMatchObject({ kind: 'stop', reason: 'budget', action: 'retry-same' });
    expect(d.state).toMatchObject({ attempts: 1, waitsTaken: 0 });
    expect(d.why).toMatch(/^ServerError: retry-same \(default table\); `budget.maxTotalTokens` \(120\)/);
  });

  it('within budget the decision is the one without it', () => {
    const roomy = outlook({ budget: { maxTotalTokens: 1000 }, maxOutputTokens: 50 });
    const p = plan({ waits: [10] });
    expect(decide(p, after(2), fail('ServerError'), 0, fixedRandom(0), { budget: roomy })).toEqual(
      decide(p, after(2), fail('ServerError'), 0, fixedRandom(0)),
    );
  });

  it('after non-retryable: the last backend dropped stops non-retryable', () => {
    const d = decide(plan({ waits: [10] }), after(1), fail('AuthFailed'), 0, fixedRandom(0), {
      budget: tight(),
    });
    expect(d).toMatchObject({ reason: 'non-retryable' });
  });

  it('before attempts-exhausted and history-limit', () => {
    const p = plan({ waits: [10], maxAttempts: 1 });
    const last = decide(p, after(1), fail('ServerError'), 0, fixedRandom(0), { budget: tight() });
    expect(last).toMatchObject({ reason: 'budget' });
    const d = decide(plan({ waits: [10] }), after(1), fail('ServerError'), 0, fixedRandom(0), {
      budget: tight(),
      history: full,
    });
    expect(d).toMatchObject({ reason: 'budget' });
  });

  it('asks about the backend the move picks: an advance to a backend that fits goes on', () => {
    const pricing = { [FAST]: { inputPerMTok: 1e4, outputPerMTok: 1e4 } };
    const o = outlook({
      budget: { maxCostUsd: 1 },
      pricing,
      maxOutputTokens: 50,
      attempts: [failed('ServerError')],
    });
    const retry = decide(plan({ waits: [10] }), after(2), fail('ServerError'), 0, fixedRandom(0), {
      budget: o,
    });
    expect(retry).toMatchObject({ kind: 'stop', reason: 'budget' });
    const advance = decide(plan({ waits: [10] }), after(2), fail('RateLimited'), 0, fixedRandom(0), {
      budget: o,
    });
    expect(advance).toMatchObject({ kind: 'attempt', backend: 1 });
  });

  it('before the first attempt: after every backend dropped, before the history limit', () => {
    const p = plan({ waits: [10] });
    const over = outlook({ budget: { maxTotalTokens: 10 }, maxOutputTokens: 50 });
    expect(startDecision(p, { ...initialState(1), dropped: [0] }, 0, { budget: over })).toMatchObject({
      reason: 'non-retryable',
    });
    const first = startDecision(p, initialState(2), 0, { budget: over, history: full });
    expect(first).toMatchObject({ kind: 'stop', reason: 'budget' });
    expect(first.why).toMatch(/^before the first attempt, `budget.maxTotalTokens` \(10\)/);
  });

  it('what an agent turn spent before the call counts at its first attempt', () => {
    const before = { inputTokens: 900, outputTokens: 90, totalTokens: 990, costUsd: 0 };
    const o = outlook({ budget: { maxTotalTokens: 1000 }, before, maxOutputTokens: 5 });
    expect(startWithNotBefore(plan({ waits: [10] }), initialState(2), 0, { budget: o })).toMatchObject({
      kind: 'stop',
      reason: 'budget',
    });
  });
});

describe('a budget and a price are refused naming the field', () => {
  it.each([
    [{ maxCostUsd: -1 }, 'budget.maxCostUsd'],
    [{ maxTotalTokens: Number.POSITIVE_INFINITY }, 'budget.maxTotalTokens'],
    [{ maxInputTokens: Number.NaN }, 'budget.maxInputTokens'],
    [{ maxOutputTokens: 1.5 }, 'budget.maxOutputTokens'],
    [{ maxTokens: 10 }, 'budget.maxTokens'],
    [{ maxCostUsd: '1' }, 'budget.maxCostUsd'],
    [5, 'budget'],
  ])('%j -> %s', (budget, field) => {
    expect(budgetProblems(budget)[0]?.field).toBe(field);
  });

  it('accepts a budget of finite amounts, 0 included', () => {
    expect(budgetProblems({ maxCostUsd: 0.25, maxTotalTokens: 0 })).toEqual([]);
    expect(budgetProblems(undefined)).toEqual([]);
  });

  it.each([
    [{ outputPerMTok: 1 }, 'p.inputPerMTok'],
    [{ inputPerMTok: 1, outputPerMTok: -2 }, 'p.outputPerMTok'],
    [{ inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: Number.NaN }, 'p.cachedInputPerMTok'],
    [{ inputPerMTok: 1, outputPerMTok: 2, perCall: 1 }, 'p.perCall'],
  ])('pricing %j -> %s', (pricing, field) => {
    expect(pricingProblems(pricing, 'p')[0]?.field).toBe(field);
  });
});
