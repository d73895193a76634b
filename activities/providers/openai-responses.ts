/**
 * The `openai-responses` provider type: OpenAI's Responses API through `@ai-sdk/openai`'s `.responses(id)`
 * (`POST {baseURL}/responses`), the API OpenAI serves its newest models best on. Its HTTP errors have the same
 * body as Chat Completions' (`{ error: { type, code } }`: `rate_limit_exceeded`, `insufficient_quota`,
 * `context_length_exceeded`, `server_error`), which the generic rows read. What this adapter adds:
 *
 * - A `response.failed` event (streamed, or a 200 body whose `status` is `failed`) states its error as
 *   `response.error.code`; the SDK reports it with a status it guessed (400 for a failed 200 body), so the
 *   status is taken from the code by the OpenAI table (`server_error` 500, `rate_limit_exceeded` 429, ...;
 *   500 for a code it does not know: the request was accepted, the provider failed it), and the code is kept.
 * - An `error` event inside a stream is classified by its own code, like the same error before the stream.
 *
 * - A 200 Response with no `output` at all is a wrong shape (`ParseFailed`), not the SDK's 500.
 *
 * `status: 'incomplete'` with `incomplete_details.reason` `max_output_tokens` is the SDK's `length` finish
 * (-> `OutputLimit` with no content, a `length` success with some) and `content_filter` its `content-filter`.
 *
 * See: https://platform.openai.com/docs/api-reference/responses and
 * https://platform.openai.com/docs/api-reference/responses-streaming.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError } from '@ai-sdk/provider';
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { Observation } from '../../policy/index.js';
import type { Usage } from '../../common/attempt.js';
import { credentialHeaderValues } from './config.js';
import { openaiStreamErrorStatus } from './openai.js';
import type { ProviderAdapter } from './types.js';
import { compactUsage, num, rec, usageFromSdk } from './usage.js';

/**
 * The body of an `APICallError`: the SDK's parsed `data`, else the raw body parsed as JSON (the SDK's own errors
 * about a parsed 200 body, "no output" and "failed", carry the parsed object there instead of text).
 */
function bodyOf(error: APICallError): Record<string, unknown> | undefined {
  if (error.data !== undefined) return rec(error.data);
  const raw: unknown = error.responseBody;
  if (typeof raw !== 'string') return rec(raw);
  try {
    return rec(JSON.parse(raw) as unknown);
  } catch {
    return undefined;
  }
}

/**
 * The `response.error.code` of a failed response: a `response.failed` event (`{ type, response: { error } }`)
 * or a Response object whose `status` is `failed` (`{ object: 'response', status, error }`).
 */
export function failedResponseCode(body: Record<string, unknown> | undefined): string | undefined {
  const error =
    body?.type === 'response.failed'
      ? rec(rec(body.response)?.error)
      : body?.object === 'response' && body.status === 'failed'
        ? rec(body.error)
        : undefined;
  if (error === undefined) return undefined;
  return typeof error.code === 'string' && error.code !== '' ? error.code : 'response_failed';
}

/**
 * Reads a failed response's own code (and the status it stands for) into the observation; a complete 200
 * Response with no `output` (which the SDK reports as a 500) is unusable, `ParseFailed` like any wrong shape.
 */
export function refineResponsesObservation(error: unknown, observation: Observation): Observation {
  if (!APICallError.isInstance(error)) return observation;
  const body = bodyOf(error);
  const code = failedResponseCode(body);
  if (code === undefined) {
    if (body?.object !== 'response' || body.status === 'failed' || body.output != null) return observation;
    const { status: _status, providerCode: _code, providerType: _type, ...rest } = observation;
    return { ...rest, status: 200, bodyComplete: true, parseFailed: true };
  }
  const status = openaiStreamErrorStatus({ code }) ?? 500;
  const { providerType: _type, ...rest } = observation;
  return { ...rest, status, providerCode: code };
}

/**
 * Responses API usage from the raw body (`input_tokens`, `output_tokens`, `total_tokens`,
 * `input_tokens_details.cached_tokens`, `output_tokens_details.reasoning_tokens`), each only when reported.
 */
export function usageFromResponsesRaw(result: LanguageModelV4GenerateResult): Usage | undefined {
  const raw = rec(result.usage.raw);
  if (raw === undefined) return usageFromSdk(result);
  return compactUsage({
    inputTokens: num(raw.input_tokens),
    outputTokens: num(raw.output_tokens),
    totalTokens: num(raw.total_tokens),
    cachedInputTokens: num(rec(raw.input_tokens_details)?.cached_tokens),
    reasoningTokens: num(rec(raw.output_tokens_details)?.reasoning_tokens),
  });
}

/** OpenAI's Responses API. */
export const openaiResponsesAdapter: ProviderAdapter = {
  defaults: {
    apiKeyEnv: 'OPENAI_API_KEY',
    baseURLEnv: 'OPENAI_BASE_URL',
    baseURL: 'https://api.openai.com/v1',
  },
  languageModel({ name, config, apiKey, baseURL, modelId, fetch }) {
    // baseURL and apiKey are always given for this type, so the SDK never reads process.env itself.
    return createOpenAI({
      name,
      baseURL,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(config.headers === undefined ? {} : { headers: config.headers }),
      fetch,
    }).responses(modelId);
  },
  usage: usageFromResponsesRaw,
  refineObservation: refineResponsesObservation,
  streamErrorStatus: openaiStreamErrorStatus,
  secretHeaders: credentialHeaderValues,
};
