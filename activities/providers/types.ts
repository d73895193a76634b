/**
 * What a provider family is to the attempt activity: an adapter builds the AI SDK language model for a
 * configured provider and reads what only that provider's wire format says (usage as reported, cost,
 * documented error patterns). Each family has a file of its own beside this one.
 */
import type { LanguageModelV4, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { Observation } from '../../policy/index.js';
import type { Usage } from '../../common/attempt.js';
import type { ProviderConfig } from './config.js';

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
  /** The `fetch` the provider's SDK sends with (see `transport.ts`). */
  fetch: typeof globalThis.fetch;
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
   * "prompt is too long" or Gemini's "input token count ... exceeds the maximum" -> `contextTooLong: true`. The ONLY place where message wording may be read, and
   * only for a documented, tested pattern of that provider. Returns the (possibly extended) observation.
   */
  refineObservation?(error: unknown, observation: Observation): Observation;
  /**
   * The HTTP status that the provider's error event inside a stream stands for, by its code or type, when the
   * event states none (the same error before the stream would have had it). Default: none (`ConnectionLost`).
   */
  streamErrorStatus?(error: { code?: string; type?: string }): number | undefined;
}

/**
 * How a backend takes a call's `output.schema` through the AI SDK's `responseFormat`: `native` (the provider
 * constrains its answer to the schema), or `json-object` (it only promises JSON: the schema also goes into the
 * prompt as instructions).
 */
export type JsonSchemaMode = 'native' | 'json-object';

/** A provider type: builds models and reads their responses. */
export interface ProviderAdapter extends ResponseReader {
  /** How its models take a JSON Schema. @default 'native' */
  jsonSchemaMode?: JsonSchemaMode;
  /** The built-in types' key and base URL variables; none for `openai-compatible` (its config says all). */
  defaults?: ProviderDefaults;
  languageModel(spec: ModelSpec): LanguageModelV4;
  /** Header values of the config that are credentials (scrubbed from messages like the key). */
  secretHeaders?(config: ProviderConfig): string[];
}
