import { describe, expect, it } from 'vitest';
import type { BudgetAttempt, BudgetOutlook, FailureClass } from '../../../policy/index.js';
import { attemptSpent, budgetStop, mayHaveBilled, spentSoFar, worstCase } from '../../../policy/index.js';

const FAST = 'local:fast';

/** 400 bytes of conversation (100 tokens by the estimate), 50 output tokens at most, priced. */
const outlook = (over: Partial<BudgetOutlook> = {}): BudgetOutlook => ({
  budget: {},
  backends: [FAST],
  attempts: [],
  pricing: { [FAST]: { inputPerMTok: 1, outputPerMTok: 4 } },
  inputBytes: 400,
  maxOutputTokens: 50,
  ...over,
});

const attempt = (over: Partial<BudgetAttempt>): BudgetAttempt => ({
  model: FAST,
  outcome: 'failed',
  ...over,
});
const failed = (cls: FailureClass, over: Partial<BudgetAttempt> = {}): BudgetAttempt =>
  attempt({ failure: { class: cls }, ...over });

describe('an attempt that reported no usage but may have been billed counts its worst case, never 0', () => {
  const o = outlook();
  const worst = worstCase(o, FAST);

  it.each<[string, BudgetAttempt]>([
    ['a succeeded attempt without usage', attempt({ outcome: 'succeeded' })],
    ['an unparseable 2xx (ParseFailed, no status known)', failed('ParseFailed')],
    [
      'an unparseable 2xx (ParseFailed 200)',
      failed('ParseFailed', { failure: { class: 'ParseFailed', status: 200 } }),
    ],
    [
      'a stream cut after deltas reached it (StreamInterrupted)',
      failed('StreamInterrupted', { streamedDeltas: 3 }),
    ],
    ['a connection lost after the request was sent', failed('ConnectionLost')],
    ['a response timeout', failed('ResponseTimeout')],
    ['a lost worker', failed('WorkerLost')],
    [
      'a 2xx stopped on content policy (ContentFiltered 200)',
      failed('ContentFiltered', { failure: { class: 'ContentFiltered', status: 200 } }),
    ],
    [
      'a 2xx that stopped at the output limit with nothing (OutputLimit 200)',
      failed('OutputLimit', { failure: { class: 'OutputLimit', status: 200 } }),
    ],
    [
      'a structured answer that did not validate (SchemaMismatch 200)',
      failed('SchemaMismatch', { failure: { class: 'SchemaMismatch', status: 200 } }),
    ],
    [
      'a cut kept as ServerError under onCut continue, after deltas',
      failed('ServerError', { failure: { class: 'ServerError', status: 529 }, streamedDeltas: 2 }),
    ],
  ])('%s', (_name, a) => {
    expect(mayHaveBilled(a)).toBe(true);
    expect(attemptSpent(o, a)).toEqual(worst);
    expect(attemptSpent(o, a).totalTokens).toBe(150);
  });
});

describe('an attempt that failed before anything could be billed counts 0', () => {
  const o = outlook();
  it.each<[string, BudgetAttempt]>([
    [
      'an HTTP error (ServerError 502)',
      failed('ServerError', { failure: { class: 'ServerError', status: 502 } }),
    ],
    [
      'a rate limit (RateLimited 429)',
      failed('RateLimited', { failure: { class: 'RateLimited', status: 429 } }),
    ],
    ['a refused connection (ConnectFailed)', failed('ConnectFailed')],
    [
      'a refused request (BadRequest 400)',
      failed('BadRequest', { failure: { class: 'BadRequest', status: 400 } }),
    ],
    ['a backend the worker cannot use (Misconfigured)', failed('Misconfigured')],
    ['a backend held back (CoolingDown)', failed('CoolingDown')],
    [
      'a content refusal before any answer (ContentFiltered 400)',
      failed('ContentFiltered', { failure: { class: 'ContentFiltered', status: 400 } }),
    ],
    ['an attempt still running', attempt({ outcome: 'running' })],
    ['a cancelled attempt', attempt({ outcome: 'cancelled' })],
  ])('%s', (_name, a) => {
    expect(mayHaveBilled(a)).toBe(false);
    expect(attemptSpent(o, a).totalTokens).toBe(0);
  });
});

describe('reported usage wins over the worst case', () => {
  it.each<[string, BudgetAttempt, number]>([
    [
      'a success with usage',
      attempt({ outcome: 'succeeded', usage: { inputTokens: 7, outputTokens: 3 } }),
      10,
    ],
    ['a ParseFailed with usage', failed('ParseFailed', { usage: { inputTokens: 5, outputTokens: 0 } }), 5],
    [
      'a cut stream with usage',
      failed('StreamInterrupted', { usage: { inputTokens: 9, outputTokens: 1 }, streamedDeltas: 1 }),
      10,
    ],
  ])('%s', (_name, a, tokens) => {
    expect(attemptSpent(outlook(), a).totalTokens).toBe(tokens);
  });
});

describe('the budget rule counts a success without usage', () => {
  it('two answers without usage fill a budget that one worst case fits', () => {
    const one = outlook({ budget: { maxTotalTokens: 300 }, attempts: [attempt({ outcome: 'succeeded' })] });
    expect(spentSoFar(one).totalTokens).toBe(150);
    expect(budgetStop(one, FAST)).toBeUndefined();
    const two = outlook({
      ...one,
      attempts: [attempt({ outcome: 'succeeded' }), attempt({ outcome: 'succeeded' })],
    });
    expect(budgetStop(two, FAST)).toMatch(/`budget\.maxTotalTokens` \(300\): spent 300/);
  });
});
