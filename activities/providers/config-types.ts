/** The providers file's shape: each provider type's entry, the settings every type takes, the built-ins. */
import type { ModelConfig } from './models.js';
import type { ProviderHealthConfig } from './health-config.js';
import type { BackendLimits } from '../../common/limits.js';

/** An OpenAI-compatible chat completions server (vLLM, Ollama, LM Studio, OpenRouter, the loopback provider...). */
export interface OpenAICompatibleProviderConfig extends ProviderSettings {
  type: 'openai-compatible';
  /** The API's base URL, up to and including `/v1`. */
  baseURL: string;
  /** The environment variable holding the API key; no `Authorization` header is sent without it. */
  apiKeyEnv?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
  /**
   * Whether a streamed request asks for usage (`stream_options: { include_usage: true }`), so that a streamed
   * attempt's tokens are counted. Turn it off only for a server that refuses the option; its streamed attempts
   * then report no usage and count their worst case in budgets.
   * @default true
   */
  streamUsage?: boolean;
}

/** OpenAI's own API (`@ai-sdk/openai`, Chat Completions), or a proxy in front of it. */
export interface OpenAIProviderConfig extends ProviderSettings {
  type: 'openai';
  /**
   * The API's base URL, up to and including `/v1`.
   * @default `OPENAI_BASE_URL` from the worker's environment when set, else "https://api.openai.com/v1"
   */
  baseURL?: string;
  /** The environment variable holding the API key (always required). @default "OPENAI_API_KEY" */
  apiKeyEnv?: string;
  /** Extra headers sent with every request (`OpenAI-Organization`, `OpenAI-Project`, ...). */
  headers?: Record<string, string>;
}

/** Anthropic's messages API (`@ai-sdk/anthropic`), or a proxy in front of it. */
export interface AnthropicProviderConfig extends ProviderSettings {
  type: 'anthropic';
  /**
   * The API's base URL, up to and including `/v1` (`/messages` is appended); a URL with no path at all, as
   * Anthropic's own SDKs take it (`https://gateway.example`), gets `/v1`.
   * @default `ANTHROPIC_BASE_URL` from the worker's environment when set, else "https://api.anthropic.com/v1"
   */
  baseURL?: string;
  /** The environment variable holding the API key (always required). @default "ANTHROPIC_API_KEY" */
  apiKeyEnv?: string;
  /** Extra headers sent with every request (`anthropic-beta`, ...). */
  headers?: Record<string, string>;
}

/** Google's Gemini API (`@ai-sdk/google`, `generateContent`), or a proxy in front of it. */
export interface GoogleProviderConfig extends ProviderSettings {
  type: 'google';
  /**
   * The API's base URL, up to and including the version (`/v1beta`); `/models/<model>:generateContent` is
   * appended.
   * @default `GOOGLE_GENERATIVE_AI_BASE_URL` from the worker's environment when set, else
   * "https://generativelanguage.googleapis.com/v1beta"
   */
  baseURL?: string;
  /** The environment variable holding the API key, sent as `x-goog-api-key`. @default "GOOGLE_GENERATIVE_AI_API_KEY" */
  apiKeyEnv?: string;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

/** OpenAI's Responses API (`@ai-sdk/openai`'s `.responses()`, `POST {baseURL}/responses`), or a proxy. */
export interface OpenAIResponsesProviderConfig extends ProviderSettings {
  type: 'openai-responses';
  /**
   * The API's base URL, up to and including `/v1`.
   * @default `OPENAI_BASE_URL` from the worker's environment when set, else "https://api.openai.com/v1"
   */
  baseURL?: string;
  /** The environment variable holding the API key (always required). @default "OPENAI_API_KEY" */
  apiKeyEnv?: string;
  /** Extra headers sent with every request (`OpenAI-Organization`, `OpenAI-Project`, ...). */
  headers?: Record<string, string>;
}

/** What every provider type may carry besides its connection and its own headers. */
export interface ProviderSettings {
  /** Headers whose values are read from the worker's environment: header name -> variable name. */
  headersFromEnv?: Record<string, string>;
  /** Settings per model (the `model` of `provider:model`): its `pricing`, its own `limits`, its `prefill`. */
  models?: Record<string, ModelConfig>;
  /** Fleet health settings of this provider (see `health-config.ts`). */
  health?: ProviderHealthConfig;
  /** Limits of all this provider's models together (see `limits.ts`). */
  limits?: BackendLimits;
}

/** One provider's entry in the providers file. */
export type ProviderConfig =
  | OpenAICompatibleProviderConfig
  | OpenAIProviderConfig
  | AnthropicProviderConfig
  | GoogleProviderConfig
  | OpenAIResponsesProviderConfig;

/** The provider types a providers file may name. */
export const PROVIDER_TYPES = [
  'openai-compatible',
  'openai',
  'anthropic',
  'google',
  'openai-responses',
] as const;

/** One of {@link PROVIDER_TYPES}. */
export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** Providers by name (the `provider` of `provider:model`). */
export type ProvidersConfig = Readonly<Record<string, ProviderConfig>>;

/**
 * The providers every registry has without a providers file: `openai:<model>` and `anthropic:<model>`, keys
 * from `OPENAI_API_KEY` / `ANTHROPIC_API_KEY`, base URLs from `OPENAI_BASE_URL` / `ANTHROPIC_BASE_URL` when
 * set. A providers-file entry of the same name replaces the built-in.
 */
export const BUILTIN_PROVIDERS: ProvidersConfig = Object.freeze({
  openai: Object.freeze({ type: 'openai' }),
  anthropic: Object.freeze({ type: 'anthropic' }),
});

/** A providers file (or object) that cannot be used. `problems` lists each problem; the message lists them all. */
export class ProvidersConfigError extends Error {
  override readonly name = 'ProvidersConfigError';
  constructor(
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(`${source}: ${problems.length === 1 ? problems[0] : `\n- ${problems.join('\n- ')}`}`);
  }
}

/** A provider name: no `:` (it separates provider from model), no spaces. */
export const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
