import { describe, expect, it } from 'vitest';
import { parseHttpDate, parseIsoInstant, parseRetryAfter } from '../../../policy/index.js';

/** 2024-11-06T08:49:37Z, written the way HTTP writes it. */
const NOW_TEXT = 'Wed, 06 Nov 2024 08:49:37 GMT';
const NOW = Date.UTC(2024, 10, 6, 8, 49, 37);

describe('parseRetryAfter', () => {
  it.each([
    ['retry-after-ms of 1500', { 'retry-after-ms': '1500' }, 1500],
    ['retry-after-ms with a fraction, rounded up', { 'retry-after-ms': '12.2' }, 13],
    ['retry-after of 1 second', { 'retry-after': '1' }, 1000],
    ['retry-after of 0 seconds', { 'retry-after': '0' }, 0],
    ['retry-after of 1.5 seconds', { 'retry-after': '1.5' }, 1500],
    ['retry-after-ms before retry-after', { 'retry-after-ms': '250', 'retry-after': '30' }, 250],
    [
      'a garbage retry-after-ms falls back to retry-after',
      { 'retry-after-ms': 'soon', 'retry-after': '2' },
      2000,
    ],
    ['an HTTP date 30 s ahead', { 'retry-after': 'Wed, 06 Nov 2024 08:50:07 GMT' }, 30_000],
    ['an HTTP date in the past', { 'retry-after': 'Wed, 06 Nov 2024 08:00:00 GMT' }, 0],
    ['an RFC 850 date 1 min ahead', { 'retry-after': 'Wednesday, 06-Nov-24 08:50:37 GMT' }, 60_000],
    ['an asctime date 2 s ahead', { 'retry-after': 'Wed Nov  6 08:49:39 2024' }, 2000],
    ['a header name in another case', { 'Retry-After': '4' }, 4000],
    ['surrounding spaces', { 'retry-after': ' 5 ' }, 5000],
  ] as const)('%s -> %s ms', (_name, headers, expected) => {
    expect(parseRetryAfter(headers, NOW)).toBe(expected);
  });

  it.each([
    ['no header', {}],
    ['a negative number', { 'retry-after': '-1' }],
    ['a negative retry-after-ms alone', { 'retry-after-ms': '-5' }],
    ['an empty value', { 'retry-after': '' }],
    ['garbage', { 'retry-after': 'later please' }],
    ['a date that does not exist', { 'retry-after': 'Wed, 31 Feb 2024 08:49:37 GMT' }],
    ['a date without GMT', { 'retry-after': 'Wed, 06 Nov 2024 08:49:37' }],
    ['an hour out of range', { 'retry-after': 'Wed, 06 Nov 2024 25:00:00 GMT' }],
    ['Infinity', { 'retry-after': 'Infinity' }],
  ] as const)('%s -> undefined', (_name, headers) => {
    expect(parseRetryAfter(headers, NOW)).toBeUndefined();
  });

  it('is undefined without headers', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });

  it('keeps an absurdly long delay as a long (safe-integer) delay rather than ignoring it', () => {
    expect(parseRetryAfter({ 'retry-after': '9'.repeat(400) }, NOW)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('measures an HTTP date from the given now, not from a clock', () => {
    const headers = { 'retry-after': 'Wed, 06 Nov 2024 08:50:07 GMT' };
    expect(parseRetryAfter(headers, NOW + 10_000)).toBe(20_000);
  });
});

describe('parseHttpDate', () => {
  it('reads the IMF-fixdate of now', () => {
    expect(parseHttpDate(NOW_TEXT, 0)).toBe(NOW);
  });

  it('agrees with the platform on a leap day', () => {
    expect(parseHttpDate('Thu, 29 Feb 2024 23:59:59 GMT', 0)).toBe(Date.UTC(2024, 1, 29, 23, 59, 59));
  });

  it('reads a two-digit RFC 850 year more than 50 years ahead as the century before', () => {
    const in2024 = Date.UTC(2024, 0, 1);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', in2024)).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(parseHttpDate('Monday, 06-Nov-73 08:49:37 GMT', in2024)).toBe(Date.UTC(2073, 10, 6, 8, 49, 37));
  });

  it('refuses an unknown month', () => {
    expect(parseHttpDate('Wed, 06 Foo 2024 08:49:37 GMT', 0)).toBeUndefined();
  });
});

describe('parseIsoInstant', () => {
  it.each([
    ['2026-03-01T12:00:00Z', Date.UTC(2026, 2, 1, 12)],
    ['2026-03-01T12:00Z', Date.UTC(2026, 2, 1, 12)],
    ['2026-03-01T12:00:00.250Z', Date.UTC(2026, 2, 1, 12, 0, 0, 250)],
    ['2026-03-01T12:00:00.123456789Z', Date.UTC(2026, 2, 1, 12, 0, 0, 123)],
    ['2026-03-01T14:00:00+02:00', Date.UTC(2026, 2, 1, 12)],
    ['2026-03-01T07:30:00-0430', Date.UTC(2026, 2, 1, 12)],
    ['2026-03-01 12:00:00z', Date.UTC(2026, 2, 1, 12)],
    ['2000-02-29T00:00:00Z', Date.UTC(2000, 1, 29)],
  ])('%s', (text, expected) => {
    expect(parseIsoInstant(text)).toBe(expected);
  });

  it.each([
    ['a time without a zone', '2026-03-01T12:00:00'],
    ['a date alone', '2026-03-01'],
    ['February 30th', '2026-02-30T00:00:00Z'],
    ['1900 is no leap year', '1900-02-29T00:00:00Z'],
    ['hour 24', '2026-03-01T24:00:00Z'],
    ['an offset hour of 24', '2026-03-01T12:00:00+24:00'],
    ['prose', 'tomorrow at noon'],
  ])('refuses %s', (_name, text) => {
    expect(parseIsoInstant(text)).toBeUndefined();
  });
});
