/**
 * The `anthropic` provider type: Anthropic's messages API through `@ai-sdk/anthropic` (`POST {baseURL}/messages`,
 * key in `x-api-key`). What Anthropic's error types mean is already the policy's: `authentication_error` 401 and
 * `permission_error` 403 -> AuthFailed, `not_found_error` 404 -> ModelNotFound, `request_too_large` 413 and
 * `invalid_request_error` 400 -> BadRequest, `billing_error` 402 -> QuotaExhausted, `rate_limit_error` 429 ->
 * RateLimited (with `retry-after`), `api_error` 500 and `overloaded_error` 529 -> ServerError, stop reason
 * `refusal` -> ContentFiltered. This adapter adds the one fact Anthropic states only in a message: the prompt
 * does not fit the context window.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { APICallError } from '@ai-sdk/provider';
import type { Observation } from '../../policy/index.js';
import { credentialHeaderValues } from './config.js';
import type { ProviderAdapter } from './types.js';
import { rec, usageFromAnthropicRaw } from './usage.js';

/**
 * Anthropic's documented "context window exceeded" error: HTTP 400, `error.type` `invalid_request_error`, and a
 * message such as `prompt is too long: 209353 tokens > 199999 maximum`. Anthropic gives it no code of its own,
 * so this pattern is read from the message of that one status and type, and nowhere else (the contract's one
 * exception to never reading message text).
 *
 * See: Anthropic, "Errors" (HTTP errors, `invalid_request_error`), https://docs.claude.com/en/api/errors
 * (formerly https://docs.anthropic.com/en/api/errors), and "Context windows",
 * https://docs.claude.com/en/docs/build-with-claude/context-windows.
 */
export const ANTHROPIC_PROMPT_TOO_LONG = /\bprompt is too long\b/i;

/** The `error.message` of an Anthropic error body (`{ type: 'error', error: { type, message } }`). */
function anthropicErrorMessage(error: APICallError): string | undefined {
  let data: unknown = error.data;
  if (data === undefined && error.responseBody !== undefined) {
    try {
      data = JSON.parse(error.responseBody) as unknown;
    } catch {
      return undefined;
    }
  }
  const message = rec(rec(data)?.error)?.message;
  return typeof message === 'string' ? message : undefined;
}

/**
 * Marks Anthropic's 400 `invalid_request_error` "prompt is too long" as `contextTooLong`
 * ({@link ANTHROPIC_PROMPT_TOO_LONG}); any other observation is returned as it is.
 */
export function refineAnthropicObservation(error: unknown, observation: Observation): Observation {
  if (observation.status !== 400 || observation.providerType !== 'invalid_request_error') return observation;
  if (!APICallError.isInstance(error)) return observation;
  const message = anthropicErrorMessage(error);
  if (message === undefined || !ANTHROPIC_PROMPT_TOO_LONG.test(message)) return observation;
  return { ...observation, contextTooLong: true };
}

/**
 * The base URL the AI SDK gets: it appends `/messages`, so its convention includes `/v1`, while Anthropic's
 * own SDKs (and tools built on them) take `ANTHROPIC_BASE_URL` without it (`https://gateway.example`). A base
 * URL with no path at all can only mean the latter, so `/v1` is appended to it; any other path is kept as is.
 */
export function anthropicBaseURL(baseURL: string): string {
  const { pathname } = new URL(baseURL);
  if (pathname !== '/' && pathname !== '') return baseURL;
  return `${baseURL.replace(/\/+$/, '')}/v1`;
}

/** Anthropic's messages API. */
export const anthropicAdapter: ProviderAdapter = {
  defaults: {
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    baseURLEnv: 'ANTHROPIC_BASE_URL',
    baseURL: 'https://api.anthropic.com/v1',
  },
  languageModel({ name, config, apiKey, baseURL, modelId, fetch }) {
    // baseURL and apiKey are always given for this type, so the SDK never reads process.env itself.
    return createAnthropic({
      name: `${name}.messages`,
      baseURL: anthropicBaseURL(baseURL),
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(config.headers === undefined ? {} : { headers: config.headers }),
      fetch,
    }).messages(modelId);
  },
  usage: usageFromAnthropicRaw,
  refineObservation: refineAnthropicObservation,
  secretHeaders: credentialHeaderValues,
};
