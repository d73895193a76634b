import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../cli/args.js';
import { envelopeFromFlags, tenantName } from '../../../cli/tenant-flags.js';
import type { TenantSetValues } from '../../../cli/tenant-flags.js';
import { envelopeText } from '../../../cli/tenant-rows.js';

describe('the flags of `model-retry tenants set`', () => {
  it.each<[string, TenantSetValues, object]>([
    [
      'tokens per day',
      { 'max-total-tokens': '1000', period: 'day' },
      { maxTotalTokens: 1000, period: 'day' },
    ],
    ['USD per month', { 'max-cost-usd': '2.5', period: 'month' }, { maxCostUsd: 2.5, period: 'month' }],
    [
      'both, no period given',
      { 'max-total-tokens': '5e5', 'max-cost-usd': '10' },
      { maxTotalTokens: 500000, maxCostUsd: 10 },
    ],
    [
      'a rolling window',
      { 'max-total-tokens': '100', 'window-ms': '60000' },
      { maxTotalTokens: 100, windowMs: 60000 },
    ],
    ['a weight', { 'max-cost-usd': '.5', weight: '2.5' }, { maxCostUsd: 0.5, weight: 2.5 }],
  ])('make the envelope they name: %s', (_, values, envelope) => {
    expect(envelopeFromFlags(values)).toEqual(envelope);
  });

  it.each<[string, TenantSetValues, string]>([
    ['no limit', { weight: '2' }, 'give `--max-total-tokens N` or `--max-cost-usd USD`'],
    [
      'tokens that are no number',
      { 'max-total-tokens': 'lots' },
      '`--max-total-tokens` must be a number, not "lots"',
    ],
    [
      'a fraction of a token',
      { 'max-total-tokens': '10.5' },
      '`--max-total-tokens` must be a whole number of tokens, 1 or more, like 2000000 (got 10.5)',
    ],
    [
      'no tokens',
      { 'max-total-tokens': '0' },
      '`--max-total-tokens` must be a whole number of tokens, 1 or more',
    ],
    [
      'negative USD',
      { 'max-cost-usd': '-1' },
      '`--max-cost-usd` must be a number of USD above 0, like 25 (got -1)',
    ],
    [
      'an unknown period',
      { 'max-cost-usd': '1', period: 'week' },
      '`--period` must be "day" or "month" (UTC) (got "week"); for another span use `--window-ms`',
    ],
    [
      'a period and a window',
      { 'max-cost-usd': '1', period: 'day', 'window-ms': '1000' },
      '`--period` and `--window-ms` exclude each other',
    ],
    [
      'a window under a second',
      { 'max-cost-usd': '1', 'window-ms': '999' },
      '`--window-ms` must be a whole number of milliseconds, 1000 or more',
    ],
    [
      'a weight of none',
      { 'max-cost-usd': '1', weight: '0' },
      '`--weight` must be a number above 0 and at most 1000, like 2 (got 0)',
    ],
    [
      'too heavy a weight',
      { 'max-cost-usd': '1', weight: '1001' },
      '`--weight` must be a number above 0 and at most 1000',
    ],
    [
      'a weight that is no number',
      { 'max-cost-usd': '1', weight: 'heavy' },
      '`--weight` must be a number, not "heavy"',
    ],
  ])('refuse %s, naming the flag and the fix', (_, values, message) => {
    expect(() => envelopeFromFlags(values)).toThrow(UsageError);
    expect(() => envelopeFromFlags(values)).toThrow(message);
  });
});

describe('the tenant a `tenants` verb names', () => {
  it('is its one name', () => {
    expect(tenantName('reset', ['acme'])).toBe('acme');
  });

  it.each<[string, string[], string]>([
    ['none', [], "`tenants reset` needs the tenant's name, as in `model-retry tenants reset acme`"],
    ['two', ['acme', 'globex'], '`tenants reset` takes one tenant, not also "globex"'],
    ['the default `*`', ['*'], "`*` is the tenants file's default, not a tenant"],
    ['empty', [''], "the tenant's NAME is empty: name the tenant"],
    ['too long for a fairness key', ['x'.repeat(65)], "the tenant's NAME is 65 UTF-8 bytes long (at most 64"],
  ])('is refused when it is %s', (_, names, message) => {
    expect(() => tenantName('reset', names)).toThrow(message);
  });
});

describe('an envelope in words', () => {
  it.each<[object, string]>([
    [{ maxTotalTokens: 1000, period: 'day' }, '1000 tokens per day (UTC)'],
    [{ maxCostUsd: 5, period: 'month', weight: 2 }, '$5.00 per month (UTC), weight 2'],
    [{ maxTotalTokens: 10, maxCostUsd: 0.25, windowMs: 60000 }, '10 tokens, $0.2500 per rolling 60000 ms'],
  ])('%j reads %j', (envelope, text) => {
    expect(envelopeText(envelope)).toBe(text);
  });
});
