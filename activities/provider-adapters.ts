/**
 * Provider adapters: what is particular to one provider type. An adapter builds the AI SDK language model
 * for a configured provider and reads what only that provider's wire format says (usage as reported, cost,
 * documented error patterns). Adding a provider type is adding an adapter here and a config type in
 * `provider-config.ts`.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { Observation } from '../policy/index.js';
import { anthropicAdapter } from './anthropic-adapter.js';
import type { Usage } from './model-request-types.js';
import { credentialHeaderValues } from './provider-config.js';
import type { ProviderConfig, ProviderType } from './provider-config.js';
import { num, rec, usageFromOpenAIRaw } from './provider-usage.js';

/** What an adapter needs to build a model. `apiKey` and `baseURL` were resolved by the registry just now. */
export interface ModelSpec {
  /** The provider's name in the registry (`local`). */
  name: string;
  config: ProviderConfig;
  apiKey: string | undefined;
  /** The base URL to call: the config's, else the type's variable (`OPENAI_BASE_URL`), else its default. */
  baseURL: string;
  /** The model part of `provider:model`. */
  modelId: string;
}

/** Where a built-in provider type looks when its config says nothing. */
export interface ProviderDefaults {
  /** The key variable when the config names none. A type with defaults always needs a key. */
  apiKeyEnv: string;
  /** The variable that may hold the base URL when the config has none (`OPENAI_BASE_URL`). */
  baseURLEnv: string;
  /** The provider's own API, when neither the config nor the variable names one. */
  baseURL: string;
}

/** How one provider's answers and errors are read. Every hook is optional; the defaults read the AI SDK's fields. */
export interface ResponseReader {
  /** Usage as the provider reported it (absent fields stay absent). Default: `usageFromSdk` (`provider-usage.ts`). */
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
  /** The built-in types' key and base URL variables; none for `openai-compatible` (its config says all). */
  defaults?: ProviderDefaults;
  languageModel(spec: ModelSpec): LanguageModelV4;
  /** Header values of the config that are credentials (scrubbed from messages like the key). */
  secretHeaders?(config: ProviderConfig): string[];
}

const openaiCompatible: ProviderAdapter = {
  languageModel({ name, config, apiKey, baseURL, modelId }) {
    return createOpenAICompatible({
      name,
      baseURL,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(config.headers === undefined ? {} : { headers: config.headers }),
    }).chatModel(modelId);
  },
  usage: usageFromOpenAIRaw,
  // OpenRouter and some gateways report the billed cost as `usage.cost` (USD).
  cost: (result) => num(rec(result.usage.raw)?.cost),
  secretHeaders: credentialHeaderValues,
};

/**
 * OpenAI's own API through `@ai-sdk/openai`, on its Chat Completions model (`POST {baseURL}/chat/completions`),
 * not the SDK's default Responses model: Chat Completions is what every OpenAI-compatible server, proxy and the
 * loopback provider speak, and its error and usage shapes are the ones the classifier and usage reader know.
 */
const openai: ProviderAdapter = {
  defaults: {
    apiKeyEnv: 'OPENAI_API_KEY',
    baseURLEnv: 'OPENAI_BASE_URL',
    baseURL: 'https://api.openai.com/v1',
  },
  languageModel({ name, config, apiKey, baseURL, modelId }) {
    // baseURL and apiKey are always given for this type, so the SDK never reads process.env itself.
    return createOpenAI({
      name,
      baseURL,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(config.headers === undefined ? {} : { headers: config.headers }),
    }).chat(modelId);
  },
  usage: usageFromOpenAIRaw,
  secretHeaders: credentialHeaderValues,
};

/** The adapter of every provider type. */
export const PROVIDER_ADAPTERS: Readonly<Record<ProviderType, ProviderAdapter>> = {
  'openai-compatible': openaiCompatible,
  openai,
  anthropic: anthropicAdapter,
};
