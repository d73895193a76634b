/**
 * Provider adapters: what is particular to one provider type. An adapter builds the AI SDK language model
 * for a configured provider and reads what only that provider's wire format says (usage as reported, cost,
 * documented error patterns). Adding a provider type (`openai`, `anthropic`) is adding an adapter here and
 * a config type in `provider-config.ts`.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { Observation } from '../policy/index.js';
import type { Usage } from './model-request-types.js';
import type { ProviderConfig, ProviderType } from './provider-config.js';

/** What an adapter needs to build a model. `apiKey` was read from the worker's environment just now. */
export interface ModelSpec {
  /** The provider's name in the registry (`local`). */
  name: string;
  config: ProviderConfig;
  apiKey: string | undefined;
  /** The model part of `provider:model`. */
  modelId: string;
}

/** How one provider's answers and errors are read. Every hook is optional; the defaults read the AI SDK's fields. */
export interface ResponseReader {
  /** Usage as the provider reported it (absent fields stay absent). Default: {@link usageFromSdk}. */
  usage?(result: LanguageModelV4GenerateResult): Usage | undefined;
  /** Cost in USD when the provider reported one. Default: none. */
  cost?(result: LanguageModelV4GenerateResult): number | undefined;
  /**
   * The provider-specific hook for facts a provider states only in its message, e.g. Anthropic's documented
   * "prompt is too long" -> `contextTooLong: true`. The ONLY place where message wording may be read, and
   * only for a documented, tested pattern of that provider. Returns the (possibly extended) observation.
   */
  refineObservation?(error: unknown, observation: Observation): Observation;
}

/** A provider type: builds models and reads their responses. */
export interface ProviderAdapter extends ResponseReader {
  languageModel(spec: ModelSpec): LanguageModelV4;
  /** Header values of the config that are credentials (scrubbed from messages like the key). */
  secretHeaders?(config: ProviderConfig): string[];
}

const num = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? value : undefined;

const rec = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** Drops absent fields; `undefined` when nothing was reported. */
export function compactUsage(usage: Usage): Usage | undefined {
  const entries = Object.entries(usage).filter(([, v]) => v !== undefined);
  return entries.length === 0 ? undefined : (Object.fromEntries(entries) as Usage);
}

/** Usage from the AI SDK's normalised fields: a field the SDK left `undefined` stays absent. */
export function usageFromSdk(result: LanguageModelV4GenerateResult): Usage | undefined {
  const { inputTokens, outputTokens } = result.usage;
  const input = num(inputTokens.total);
  const output = num(outputTokens.total);
  return compactUsage({
    inputTokens: input,
    outputTokens: output,
    totalTokens: input !== undefined && output !== undefined ? input + output : undefined,
    cachedInputTokens: num(inputTokens.cacheRead),
    reasoningTokens: num(outputTokens.reasoning),
  });
}

/**
 * OpenAI-style usage from the raw body (`prompt_tokens`, `completion_tokens`, `total_tokens`,
 * `prompt_tokens_details.cached_tokens`, `completion_tokens_details.reasoning_tokens`). Read raw because the
 * openai-compatible adapter turns a missing field into 0, and an unreported count must stay absent.
 */
export function usageFromOpenAIRaw(result: LanguageModelV4GenerateResult): Usage | undefined {
  const raw = rec(result.usage.raw);
  if (raw === undefined) return usageFromSdk(result);
  return compactUsage({
    inputTokens: num(raw.prompt_tokens),
    outputTokens: num(raw.completion_tokens),
    totalTokens: num(raw.total_tokens),
    cachedInputTokens: num(rec(raw.prompt_tokens_details)?.cached_tokens),
    reasoningTokens: num(rec(raw.completion_tokens_details)?.reasoning_tokens),
  });
}

const SECRET_HEADER = /^(authorization|proxy-authorization|x-api-key|api-key|.*-key|.*token.*)$/i;

const openaiCompatible: ProviderAdapter = {
  languageModel({ name, config, apiKey, modelId }) {
    return createOpenAICompatible({
      name,
      baseURL: config.baseURL,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(config.headers === undefined ? {} : { headers: config.headers }),
    }).chatModel(modelId);
  },
  usage: usageFromOpenAIRaw,
  // OpenRouter and some gateways report the billed cost as `usage.cost` (USD).
  cost: (result) => num(rec(result.usage.raw)?.cost),
  secretHeaders: (config) =>
    Object.entries(config.headers ?? {})
      .filter(([key]) => SECRET_HEADER.test(key))
      .map(([, value]) => value),
};

/** The adapter of every provider type. */
export const PROVIDER_ADAPTERS: Readonly<Record<ProviderType, ProviderAdapter>> = {
  'openai-compatible': openaiCompatible,
};
