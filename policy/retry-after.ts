import { headerValue } from './observation.js';
import { parseHttpDate } from './time.js';

const DECIMAL = /^\d+(?:\.\d+)?$/;

/** Whole milliseconds, rounded up (a retry-after is never cut short), bounded to stay a safe integer. */
const wholeMs = (ms: number): number => Math.min(Math.ceil(ms), Number.MAX_SAFE_INTEGER);

/**
 * How long the provider asked the caller to wait, in ms, from response headers:
 * `retry-after-ms` (milliseconds) first, then `retry-after` as delta-seconds or as an HTTP date relative to
 * `nowMs` (a date in the past -> 0). Negative, empty or unparsable values are ignored (`undefined`); an
 * unusable `retry-after-ms` falls back to `retry-after`. Header names are matched case-insensitively.
 */
export function parseRetryAfter(
  headers: Readonly<Record<string, string>> | undefined,
  nowMs: number,
): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined && DECIMAL.test(ms)) return wholeMs(Number(ms));
  const value = headerValue(headers, 'retry-after');
  if (value === undefined || value === '') return undefined;
  if (DECIMAL.test(value)) return wholeMs(Number(value) * 1000);
  const at = parseHttpDate(value, nowMs);
  if (at === undefined) return undefined;
  return wholeMs(Math.max(0, at - nowMs));
}
