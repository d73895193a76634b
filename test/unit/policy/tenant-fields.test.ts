import { describe, expect, it } from 'vitest';
import { tenantEnvelopeProblems, tenantNameProblem } from '../../../policy/tenant-fields.js';

/** Each problem as one line: the field, then what is wrong and the fix. */
const lines = (value: unknown): string[] =>
  tenantEnvelopeProblems(value, 'acme').map((p) => `${p.field}: ${p.message}`);

describe("a tenant's name", () => {
  it.each([['acme'], ['*'], ['team a/eu-west'], ['Ünïcødé 名前'], ['x'.repeat(64)], ['é'.repeat(32)]])(
    '%j is a name',
    (name) => {
      expect(tenantNameProblem(name, 'tenant')).toBeUndefined();
    },
  );

  it.each([
    ['', 'is empty: name the tenant'],
    ['x'.repeat(65), 'is 65 UTF-8 bytes long (at most 64'],
    ['é'.repeat(33), 'is 66 UTF-8 bytes long (at most 64'],
    ['acme\n', 'holds a control character'],
    ['ac\u0000me', 'holds a control character'],
    ['acme\u007f', 'holds a control character'],
    ['acme\u0085', 'holds a control character'],
    [42, 'must be a string naming the tenant, like "acme" (got 42)'],
  ])('%j is refused: %s', (name, message) => {
    const problem = tenantNameProblem(name, 'tenant');
    expect(problem?.field).toBe('tenant');
    expect(problem?.message).toContain(message);
  });
});

describe("a tenant's entry in the tenants file", () => {
  it.each([
    [{ maxTotalTokens: 2_000_000, period: 'day', weight: 2 }],
    [{ maxCostUsd: 25, period: 'month' }],
    [{ maxCostUsd: 0.5, maxTotalTokens: 1, windowMs: 3_600_000 }],
    [{ maxTotalTokens: 1000 }],
    [{ weight: 0.25 }],
    [{ weight: 1000 }],
    [{ maxCostUsd: 1, windowMs: 1000 }],
    [{}],
  ])('%j is an entry', (entry) => {
    expect(lines(entry)).toEqual([]);
  });

  it.each([
    [
      { maxCostUsd: 0 },
      'acme.maxCostUsd: must be a number of USD above 0, like 25 (got 0); leave it out for no cost limit',
    ],
    [{ maxCostUsd: -1 }, 'acme.maxCostUsd: must be a number of USD above 0'],
    [{ maxCostUsd: '5' }, 'acme.maxCostUsd: must be a number of USD above 0, like 25 (got "5")'],
    [{ maxCostUsd: null }, 'acme.maxCostUsd: must be a number of USD above 0, like 25 (got null)'],
    [
      { maxTotalTokens: 0 },
      'acme.maxTotalTokens: must be a whole number of tokens, 1 or more, like 2000000 (got 0); leave it out for no token limit',
    ],
    [{ maxTotalTokens: 1.5 }, 'acme.maxTotalTokens: must be a whole number of tokens, 1 or more'],
    [{ maxTotalTokens: 1e300 }, 'acme.maxTotalTokens: must be a whole number of tokens, 1 or more'],
    [
      { maxTotalTokens: 10, period: 'week' },
      'acme.period: must be "day" or "month" (UTC) (got "week"); for another span use `windowMs`',
    ],
    [
      { maxTotalTokens: 10, windowMs: 999 },
      'acme.windowMs: must be a whole number of milliseconds, 1000 or more, like 3600000 for an hour (got 999)',
    ],
    [{ maxTotalTokens: 10, windowMs: 1500.5 }, 'acme.windowMs: must be a whole number of milliseconds'],
    [
      { maxTotalTokens: 10, period: 'day', windowMs: 60_000 },
      'acme.windowMs: is given with `acme.period`: keep one, a calendar period ("day", "month") or a rolling window',
    ],
    [
      { period: 'day', weight: 2 },
      'acme.period: says when limits renew, but the entry has none: add `maxCostUsd` or `maxTotalTokens`, or remove `period`',
    ],
    [{ windowMs: 60_000 }, 'acme.windowMs: says when limits renew, but the entry has none'],
    [
      { weight: 0 },
      'acme.weight: must be a number above 0 and at most 1000, like 2 (got 0); leave it out for 1',
    ],
    [{ weight: 1001 }, 'acme.weight: must be a number above 0 and at most 1000'],
    [{ weight: Number.POSITIVE_INFINITY }, 'acme.weight: must be a number above 0 and at most 1000'],
    [
      { maxTokens: 10 },
      'acme.maxTokens: is not a field of a tenant; the fields are maxCostUsd, maxTotalTokens, period, windowMs, weight',
    ],
    [
      '2 per day',
      'acme: must be an object, like { "maxTotalTokens": 2000000, "period": "day", "weight": 2 }',
    ],
    [null, 'acme: must be an object'],
    [[], 'acme: must be an object'],
  ])('%j is refused: %s', (entry, message) => {
    expect(lines(entry).join('\n')).toContain(message);
  });

  it('names every problem of an entry, not only the first', () => {
    expect(lines({ maxCostUsd: -1, maxTotalTokens: 0.5, weight: -2, color: 'red' })).toHaveLength(4);
  });
});
