import { describe, expect, it } from 'vitest';
import { rateLimitResetMs } from '../../../policy/index.js';

const NOW = Date.UTC(2026, 0, 1, 0, 0, 0);

describe('rateLimitResetMs: a rate limit with nothing left until its reset', () => {
  it.each([
    [
      'OpenAI requests at zero, reset 6m0s',
      { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '6m0s' },
      360_000,
    ],
    [
      'OpenAI tokens at zero, reset 20ms',
      { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '20ms' },
      20,
    ],
    [
      'OpenAI reset 1.5s',
      { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1.5s' },
      1500,
    ],
    [
      'OpenAI reset 1h2m3s',
      { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1h2m3s' },
      3_723_000,
    ],
    [
      'Anthropic requests at zero, reset as RFC 3339',
      {
        'anthropic-ratelimit-requests-remaining': '0',
        'anthropic-ratelimit-requests-reset': '2026-01-01T00:00:30Z',
      },
      30_000,
    ],
    [
      'the longest of two limits at zero',
      {
        'x-ratelimit-remaining-requests': '0',
        'x-ratelimit-reset-requests': '2s',
        'x-ratelimit-remaining-tokens': '0',
        'x-ratelimit-reset-tokens': '7s',
      },
      7000,
    ],
  ])('%s', (_name, headers, ms) => {
    expect(rateLimitResetMs(headers, NOW)).toBe(ms);
  });

  it.each([
    ['something left', { 'x-ratelimit-remaining-requests': '3', 'x-ratelimit-reset-requests': '6m0s' }],
    ['zero but no reset', { 'x-ratelimit-remaining-requests': '0' }],
    ['an unreadable reset', { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': 'soon' }],
    ['no headers', undefined],
  ])('none when %s', (_name, headers) => {
    expect(rateLimitResetMs(headers, NOW)).toBeUndefined();
  });
});
