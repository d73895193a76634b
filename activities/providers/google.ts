/**
 * The `google` provider type: Gemini's `generateContent` API through `@ai-sdk/google`
 * (`POST {baseURL}/models/<model>:generateContent`, `:streamGenerateContent?alt=sse` when streamed, key in
 * `x-goog-api-key`). Gemini states its errors as `{ error: { code, message, status, details } }` with a gRPC
 * status name (`RESOURCE_EXHAUSTED`, `UNAVAILABLE`, ...) and typed details; the generic rows read the HTTP
 * status, and this adapter adds what only the body says:
 *
 * - `RetryInfo.retryDelay` ("30s", "1.5s") is a retry-after, carried like a header's.
 * - A `QuotaFailure` with no `RetryInfo` is an account quota (`QuotaExhausted`). Gemini also sends a
 *   `QuotaFailure` with its per-minute limits, and then a `RetryInfo` says when the window reopens: that is a
 *   rate limit (`RateLimited` with that retry-after), not a quota that will not come back in this call.
 * - The status name is the record's code (`RESOURCE_EXHAUSTED` says more than `429`).
 * - A prompt over the model's context window is a 400 `INVALID_ARGUMENT` that says so only in its message,
 *   `The input token count (N) exceeds the maximum number of tokens allowed (M).`: that is `ContextTooLong`
 *   ({@link GEMINI_INPUT_TOO_LONG}, the contract's one exception to never reading message text).
 *
 * Finish reasons need nothing here: the SDK maps `SAFETY`, `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`,
 * `SPII` and a blocked prompt's `promptFeedback.blockReason` to `content-filter` (-> `ContentFiltered`), and
 * `MAX_TOKENS` to `length` (-> `OutputLimit` with no content, a `length` success with some).
 *
 * See: https://ai.google.dev/gemini-api/docs/troubleshooting (error codes) and
 * https://cloud.google.com/apis/design/errors (the error model, `RetryInfo`, `QuotaFailure`).
 */
import { createGoogle } from '@ai-sdk/google';
import { APICallError } from '@ai-sdk/provider';
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { Observation } from '../../policy/index.js';
import type { Usage } from '../../common/attempt.js';
import { credentialHeaderValues } from './config.js';
import type { ProviderAdapter } from './types.js';
import { compactUsage, num, rec, usageFromSdk } from './usage.js';

const RETRY_INFO = 'type.googleapis.com/google.rpc.RetryInfo';
const QUOTA_FAILURE = 'type.googleapis.com/google.rpc.QuotaFailure';

/** The HTTP status each gRPC status name of a Gemini error stands for (when an error states only the name). */
export const GOOGLE_STATUS_HTTP: Readonly<Record<string, number>> = Object.freeze({
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ABORTED: 409,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  UNKNOWN: 500,
  INTERNAL: 500,
  DATA_LOSS: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
});

/** A protobuf `Duration` in JSON ("30s", "1.5s", "0.250s") in ms; anything else is `undefined`. */
export function parseGoogleDuration(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return match?.[1] === undefined ? undefined : Number(match[1]) * 1000;
}

/** The `error` object of a Gemini error: from an HTTP error's body, or from an error event inside a stream. */
export function googleErrorOf(error: unknown): Record<string, unknown> | undefined {
  if (APICallError.isInstance(error)) {
    let data: unknown = error.data;
    if (data === undefined && error.responseBody !== undefined) {
      try {
        data = JSON.parse(error.responseBody) as unknown;
      } catch {
        return undefined;
      }
    }
    return rec(rec(data)?.error);
  }
  // A stream's error part: the SDK's stream error keeps the event's `error` object as its `data`.
  const value = rec(rec(error)?.value);
  return rec(value?.data);
}

/** What a Gemini error's `details` say: its `RetryInfo.retryDelay` in ms, whether it has a `QuotaFailure`. */
export function googleErrorDetails(body: Record<string, unknown> | undefined): {
  retryDelayMs?: number;
  quotaFailure: boolean;
} {
  const details = Array.isArray(body?.details) ? body.details.map(rec) : [];
  const retryInfo = details.find((d) => d?.['@type'] === RETRY_INFO);
  const retryDelayMs = parseGoogleDuration(retryInfo?.retryDelay);
  const quotaFailure = details.some((d) => d?.['@type'] === QUOTA_FAILURE);
  return { ...(retryDelayMs === undefined ? {} : { retryDelayMs }), quotaFailure };
}

/**
 * Gemini's "context window exceeded" error: HTTP 400, status `INVALID_ARGUMENT`, and the message
 * `The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).` Gemini gives it no
 * code or detail of its own, so this pattern is read from the message of that one status, and nowhere else.
 *
 * See: https://ai.google.dev/gemini-api/docs/troubleshooting (400 `INVALID_ARGUMENT`) and
 * https://ai.google.dev/gemini-api/docs/long-context (input token limits per model).
 */
export const GEMINI_INPUT_TOO_LONG = /\binput token count\b.*\bexceeds the maximum number of tokens\b/i;

/** Adds what a Gemini error body says (retry delay, quota, status name, context window) to the generic observation. */
export function refineGoogleObservation(error: unknown, observation: Observation): Observation {
  const body = googleErrorOf(error);
  if (body === undefined) return observation;
  const { retryDelayMs, quotaFailure } = googleErrorDetails(body);
  const status = typeof body.status === 'string' && body.status !== '' ? body.status : undefined;
  const tooLong =
    observation.status === 400 &&
    status === 'INVALID_ARGUMENT' &&
    typeof body.message === 'string' &&
    GEMINI_INPUT_TOO_LONG.test(body.message);
  return {
    ...observation,
    ...(tooLong ? { contextTooLong: true } : {}),
    ...(status === undefined ? {} : { providerCode: status }),
    ...(retryDelayMs === undefined ? {} : { retryAfterMs: retryDelayMs }),
    ...(quotaFailure && retryDelayMs === undefined ? { quotaExhausted: true } : {}),
  };
}

/**
 * Gemini usage from the raw `usageMetadata`: `inputTokens` = `promptTokenCount` (+ `toolUsePromptTokenCount`),
 * `outputTokens` = `candidatesTokenCount` + `thoughtsTokenCount` (thinking is billed as output),
 * `totalTokens` = `totalTokenCount`, `cachedInputTokens` = `cachedContentTokenCount`, `reasoningTokens` =
 * `thoughtsTokenCount`; each only when reported.
 */
export function usageFromGoogleRaw(result: LanguageModelV4GenerateResult): Usage | undefined {
  const raw = rec(result.usage.raw);
  if (raw === undefined) return usageFromSdk(result);
  const prompt = num(raw.promptTokenCount);
  const candidates = num(raw.candidatesTokenCount);
  const thoughts = num(raw.thoughtsTokenCount);
  const toolUse = num(raw.toolUsePromptTokenCount);
  return compactUsage({
    inputTokens: prompt === undefined ? undefined : prompt + (toolUse ?? 0),
    outputTokens:
      candidates === undefined && thoughts === undefined ? undefined : (candidates ?? 0) + (thoughts ?? 0),
    totalTokens: num(raw.totalTokenCount),
    cachedInputTokens: num(raw.cachedContentTokenCount),
    reasoningTokens: thoughts,
  });
}

/** Gemini's generateContent API. */
export const googleAdapter: ProviderAdapter = {
  defaults: {
    apiKeyEnv: 'GOOGLE_GENERATIVE_AI_API_KEY',
    baseURLEnv: 'GOOGLE_GENERATIVE_AI_BASE_URL',
    baseURL: 'https://generativelanguage.googleapis.com/v1beta',
  },
  languageModel({ name, config, apiKey, baseURL, modelId, fetch }) {
    // baseURL and apiKey are always given for this type, so the SDK never reads process.env itself.
    return createGoogle({
      name,
      baseURL,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(config.headers === undefined ? {} : { headers: config.headers }),
      fetch,
    }).languageModel(modelId);
  },
  usage: usageFromGoogleRaw,
  refineObservation: refineGoogleObservation,
  streamErrorStatus: ({ type }) =>
    type !== undefined && Object.hasOwn(GOOGLE_STATUS_HTTP, type) ? GOOGLE_STATUS_HTTP[type] : undefined,
  secretHeaders: credentialHeaderValues,
};
