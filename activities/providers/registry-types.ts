/** What a provider registry is and gives: a model ready for requests, resolved from its `provider:model` name. */
import type { EmbeddingModelV4, LanguageModelV4 } from '@ai-sdk/provider';
import type { JsonSchemaMode, ResponseReader } from './adapters.js';
import { PROVIDER_NAME } from './config.js';
import type { ProviderConfig } from './config.js';
import type { Pricing } from '../../policy/index.js';
import type { LimitsByKey } from '../../common/limits.js';

/** The environment keys are read from. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * A model ready for requests. The registry of a providers file gives the same frozen object to every request with the
 * same settings (see `BuiltModels`): read it, do not change it.
 */
export interface ResolvedModel extends ResponseReader {
  /** The provider's name (`local`): the record's `provider`. */
  provider: string;
  /** The model part of the name (`fast`). */
  modelId: string;
  model: LanguageModelV4;
  /** The credentials in use (key, credential headers): scrubbed from every message. */
  secrets: readonly string[];
  /** How the model takes a JSON Schema (`output.schema`). @default 'native' */
  jsonSchemaMode?: JsonSchemaMode;
  /** The model's `pricing` in the providers file, when it has one. */
  pricing?: Pricing;
  /** The model's `prefill: true` in the providers file: a cut stream is continued with a prefill. */
  prefill?: true;
}

/** An embedding model ready for requests: as a {@link ResolvedModel}, with an AI SDK embedding model. */
export interface ResolvedEmbeddingModel extends Pick<
  ResolvedModel,
  'provider' | 'modelId' | 'secrets' | 'pricing'
> {
  model: EmbeddingModelV4;
  /** As `ResponseReader.refineObservation`: the provider's documented error patterns. */
  refineObservation?: ResolvedModel['refineObservation'];
}

/** Resolves model names. Tests may inject their own (any model, any `LanguageModelV4`). */
export interface ProviderRegistry {
  /**
   * The model for `provider:model`, with its key, base URL and headers read from the environment now.
   * @throws MisconfiguredError for a malformed name, an unknown provider or a missing key variable.
   */
  resolve(model: string): ResolvedModel;
  /**
   * The embedding model for `provider:model` (`durableEmbeddingModel`), its key read as for `resolve`. Absent: the
   * registry has no embedding models (their attempts are `Misconfigured`).
   * @throws MisconfiguredError as `resolve`, and for a provider whose type has no embedding models.
   */
  resolveEmbedding?(model: string): ResolvedEmbeddingModel;
  /** The provider names that resolve: the config's and the built-ins it did not replace. */
  names(): string[];
  /** Every model's `pricing`, by `provider:model` (what workflows learn through `modelRetryConfig`). */
  pricing?(): Record<string, Pricing>;
  /**
   * Every model's output limit (`maxOutputTokens` in the providers file), by `provider:model`: what an attempt
   * without its own `maxOutputTokens` reserves against its tenant's envelope (workflows learn it through
   * `modelRetryConfig`).
   */
  outputLimits?(): Record<string, number>;
  /** The config of `provider` (its `health` settings and the like); absent in registries tests build by hand. */
  configOf?(provider: string): ProviderConfig | undefined;
  /** The config's limits by provider or backend (see `limitsOf`); none when absent. */
  limits?(): LimitsByKey;
}

/** The worker cannot make the request: the attempt fails as `Misconfigured`. The message holds no secret. */
export class MisconfiguredError extends Error {
  override readonly name = 'MisconfiguredError';
}

/** Splits `provider:model` at its first `:` (the model part may hold more: `ollama:llama3:8b`). */
export function parseModelName(name: string): { provider: string; modelId: string } {
  const at = name.indexOf(':');
  const provider = at < 0 ? '' : name.slice(0, at);
  const modelId = at < 0 ? '' : name.slice(at + 1);
  if (!PROVIDER_NAME.test(provider) || modelId.trim() === '') {
    throw new MisconfiguredError(
      `model name ${JSON.stringify(name)} is not \`provider:model\`: name it like "local:fast" (a configured provider, a colon, the model)`,
    );
  }
  return { provider, modelId };
}
