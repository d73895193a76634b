/** The OpenAI families: any OpenAI-compatible server, and OpenAI's own API on Chat Completions. */
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { credentialHeaderValues } from './config.js';
import type { ProviderAdapter } from './types.js';
import { num, rec, usageFromOpenAIRaw } from './usage.js';

/**
 * The status an error event inside an OpenAI-style stream stands for (`data: {"error": {"type", "code"}}`), by
 * its code, else its type: OpenAI's own (`server_error`, `rate_limit_exceeded` with type `requests` or
 * `tokens`, `insufficient_quota`, `invalid_request_error`) and the types compatible servers and gateways put
 * there (`overloaded_error`, `rate_limit_error`, `api_error`, `service_unavailable`). `@ai-sdk/openai` gives its
 * own stream errors a status; `@ai-sdk/openai-compatible` passes the event as it came, so this table reads it.
 */
export const OPENAI_STREAM_ERROR_STATUS: Readonly<Record<string, number>> = Object.freeze({
  server_error: 500,
  api_error: 500,
  internal_error: 500,
  service_unavailable: 503,
  overloaded_error: 529,
  rate_limit_exceeded: 429,
  rate_limit_error: 429,
  requests: 429,
  tokens: 429,
  insufficient_quota: 429,
  invalid_request_error: 400,
  context_length_exceeded: 400,
});

/** {@link OPENAI_STREAM_ERROR_STATUS} of an event's code, else of its type. */
export function openaiStreamErrorStatus(error: { code?: string; type?: string }): number | undefined {
  const of = (key: string | undefined): number | undefined =>
    key !== undefined && Object.hasOwn(OPENAI_STREAM_ERROR_STATUS, key)
      ? OPENAI_STREAM_ERROR_STATUS[key]
      : undefined;
  return of(error.code) ?? of(error.type);
}

/**
 * `@ai-sdk/openai-compatible` sends a JSON Schema as `response_format: { type: 'json_object' }` (its
 * `supportsStructuredOutputs` is off: not every compatible server has `json_schema`), so the schema also goes into
 * the prompt as instructions.
 */
export const openaiCompatibleAdapter: ProviderAdapter = {
  jsonSchemaMode: 'json-object',
  languageModel({ name, config, apiKey, baseURL, modelId, fetch }) {
    return createOpenAICompatible({
      name,
      baseURL,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(config.headers === undefined ? {} : { headers: config.headers }),
      // Streamed answers report usage only when asked (`stream_options.include_usage`); a server that refuses
      // the option is configured with `streamUsage: false`.
      includeUsage: config.type !== 'openai-compatible' || config.streamUsage !== false,
      fetch,
    }).chatModel(modelId);
  },
  usage: usageFromOpenAIRaw,
  // OpenRouter and some gateways report the billed cost as `usage.cost` (USD).
  cost: (result) => num(rec(result.usage.raw)?.cost),
  streamErrorStatus: openaiStreamErrorStatus,
  secretHeaders: credentialHeaderValues,
};

/**
 * OpenAI's own API through `@ai-sdk/openai`, on its Chat Completions model (`POST {baseURL}/chat/completions`),
 * not the SDK's default Responses model: Chat Completions is what every OpenAI-compatible server, proxy and the
 * loopback provider speak, and its error and usage shapes are the ones the classifier and usage reader know.
 */
export const openaiAdapter: ProviderAdapter = {
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
    }).chat(modelId);
  },
  usage: usageFromOpenAIRaw,
  streamErrorStatus: openaiStreamErrorStatus,
  secretHeaders: credentialHeaderValues,
};
