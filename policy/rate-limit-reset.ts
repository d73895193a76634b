import { headerValue } from './observation.js';
import { parseIsoInstant } from './time.js';

/** OpenAI's reset durations: `1s`, `6m0s`, `20ms`, `1h2m3.5s`. */
const DURATION =
  /^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?$/;

/** A reset value in ms from `nowMs`: an OpenAI duration, plain seconds, or an RFC 3339 time (Anthropic). */
function resetMs(value: string, nowMs: number): number | undefined {
  if (/^\d+(?:\.\d+)?$/.test(value)) return Math.ceil(Number(value) * 1000);
  const d = DURATION.exec(value);
  if (d !== null && value !== '') {
    const [h, m, s, ms] = d.slice(1).map((x) => (x === undefined ? 0 : Number(x)));
    return Math.ceil((h ?? 0) * 3_600_000 + (m ?? 0) * 60_000 + (s ?? 0) * 1000 + (ms ?? 0));
  }
  const at = parseIsoInstant(value);
  return at === undefined ? undefined : Math.max(0, at - nowMs);
}

/** The header pairs (remaining, reset) that say a rate limit has nothing left until a reset. */
const PAIRS: readonly (readonly [string, string])[] = [
  ['x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'],
  ['x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens'],
  ['anthropic-ratelimit-requests-remaining', 'anthropic-ratelimit-requests-reset'],
  ['anthropic-ratelimit-tokens-remaining', 'anthropic-ratelimit-tokens-reset'],
  ['anthropic-ratelimit-input-tokens-remaining', 'anthropic-ratelimit-input-tokens-reset'],
  ['anthropic-ratelimit-output-tokens-remaining', 'anthropic-ratelimit-output-tokens-reset'],
];

/**
 * How long a rate limit has nothing left, in ms, from response headers: the longest reset among the limits
 * whose remaining count is `0` (OpenAI's `x-ratelimit-remaining-*` with `x-ratelimit-reset-*`, Anthropic's
 * `anthropic-ratelimit-*-remaining` with `-reset`). `undefined` when no limit is at zero with a readable reset.
 */
export function rateLimitResetMs(
  headers: Readonly<Record<string, string>> | undefined,
  nowMs: number,
): number | undefined {
  let longest: number | undefined;
  for (const [remainingName, resetName] of PAIRS) {
    if (headerValue(headers, remainingName) !== '0') continue;
    const reset = headerValue(headers, resetName);
    const ms = reset === undefined ? undefined : resetMs(reset, nowMs);
    if (ms !== undefined && Number.isFinite(ms) && (longest === undefined || ms > longest)) longest = ms;
  }
  return longest;
}

/** The header pairs (remaining, reset) that count tokens, in the order they are read. */
const TOKEN_PAIRS: readonly (readonly [string, string])[] = [
  ['x-ratelimit-remaining-tokens', 'x-ratelimit-reset-tokens'],
  ['anthropic-ratelimit-tokens-remaining', 'anthropic-ratelimit-tokens-reset'],
  ['anthropic-ratelimit-input-tokens-remaining', 'anthropic-ratelimit-input-tokens-reset'],
];

/**
 * What the provider says is left of its tokens limit and when it resets (ms from `nowMs`), from response headers
 * (OpenAI's `x-ratelimit-remaining-tokens` / `x-ratelimit-reset-tokens`, Anthropic's
 * `anthropic-ratelimit-tokens-remaining` / `-reset`, else its input-tokens pair): the smallest remaining count
 * among them. `undefined` without a readable pair.
 */
export function remainingTokens(
  headers: Readonly<Record<string, string>> | undefined,
  nowMs: number,
): { remaining: number; resetInMs: number } | undefined {
  let least: { remaining: number; resetInMs: number } | undefined;
  for (const [remainingName, resetName] of TOKEN_PAIRS) {
    const left = headerValue(headers, remainingName);
    const reset = headerValue(headers, resetName);
    if (left === undefined || reset === undefined || !/^\d+$/.test(left.trim())) continue;
    const resetInMs = resetMs(reset.trim(), nowMs);
    if (resetInMs === undefined || !Number.isFinite(resetInMs)) continue;
    const remaining = Number(left.trim());
    if (least === undefined || remaining < least.remaining) least = { remaining, resetInMs };
  }
  return least;
}
