/**
 * The provider registry held by the worker: resolves `provider:model` to an AI SDK language model. Keys are
 * read from the worker's environment at request time and never leave the worker (they are not part of any
 * activity input, result or failure).
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { PROVIDER_ADAPTERS } from './provider-adapters.js';
import type { ResponseReader } from './provider-adapters.js';
import { PROVIDER_NAME, parseProvidersConfig, readProvidersFile } from './provider-config.js';
import type { ProvidersConfig } from './provider-config.js';

/** The environment keys are read from. */
export type Env = Readonly<Record<string, string | undefined>>;

/** The variable naming the providers file. */
export const PROVIDERS_FILE_ENV = 'MODEL_RETRY_PROVIDERS';

/** A model ready for one request. */
export interface ResolvedModel extends ResponseReader {
  /** The provider's name (`local`): the record's `provider`. */
  provider: string;
  /** The model part of the name (`fast`). */
  modelId: string;
  model: LanguageModelV4;
  /** The credentials in use (key, credential headers): scrubbed from every message. */
  secrets: readonly string[];
}

/** Resolves model names. Tests may inject their own (any model, any `LanguageModelV4`). */
export interface ProviderRegistry {
  /**
   * The model for `provider:model`, with its key read now.
   * @throws MisconfiguredError for a malformed name, an unknown provider or a missing key variable.
   */
  resolve(model: string): ResolvedModel;
  /** The configured provider names. */
  names(): string[];
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

/** Options of {@link createProviderRegistry}. */
export interface RegistryOptions {
  /** Where keys are read, at each request. @default process.env */
  env?: Env;
  /** Names the config in messages (the providers file's path). */
  source?: string;
}

/**
 * A registry over a providers config (checked here too).
 * @throws ProvidersConfigError when the config has problems.
 */
export function createProviderRegistry(
  config: ProvidersConfig,
  options: RegistryOptions = {},
): ProviderRegistry {
  const checked = parseProvidersConfig(config, options.source);
  const env = (): Env => options.env ?? process.env;
  return {
    names: () => Object.keys(checked),
    resolve(model) {
      const { provider, modelId } = parseModelName(model);
      const config = Object.hasOwn(checked, provider) ? checked[provider] : undefined;
      if (config === undefined) {
        const known = Object.keys(checked);
        const fix =
          known.length === 0
            ? `no providers are configured: set ${PROVIDERS_FILE_ENV} (or --providers) to a providers JSON file`
            : `configured: ${known.join(', ')}; add "${provider}" to the providers file`;
        throw new MisconfiguredError(`unknown provider "${provider}" in model "${model}" (${fix})`);
      }
      let apiKey: string | undefined;
      if (config.apiKeyEnv !== undefined) {
        apiKey = env()[config.apiKeyEnv];
        if (apiKey === undefined || apiKey.trim() === '') {
          throw new MisconfiguredError(
            `provider "${provider}" reads its key from ${config.apiKeyEnv}, which is empty or unset in the worker's environment: set it and restart the worker`,
          );
        }
      }
      const adapter = PROVIDER_ADAPTERS[config.type];
      const secrets = [...(apiKey === undefined ? [] : [apiKey]), ...(adapter.secretHeaders?.(config) ?? [])];
      return {
        provider,
        modelId,
        model: adapter.languageModel({ name: provider, config, apiKey, modelId }),
        secrets,
        ...(adapter.usage === undefined ? {} : { usage: adapter.usage }),
        ...(adapter.cost === undefined ? {} : { cost: adapter.cost }),
        ...(adapter.refineObservation === undefined ? {} : { refineObservation: adapter.refineObservation }),
      };
    },
  };
}

/**
 * A registry from a providers JSON file.
 * @throws ProvidersConfigError when the file cannot be read or has problems.
 */
export function loadProvidersFile(
  path: string,
  options: Omit<RegistryOptions, 'source'> = {},
): ProviderRegistry {
  return createProviderRegistry(readProvidersFile(path), { ...options, source: path });
}

/**
 * The registry named by `MODEL_RETRY_PROVIDERS` in `env` (an empty registry when it is unset, so a worker
 * without providers still starts; every model is then `Misconfigured`). Keys are read from `env` too.
 * @throws ProvidersConfigError when the named file cannot be read or has problems.
 */
export function providersFromEnv(env: Env = process.env): ProviderRegistry {
  const path = env[PROVIDERS_FILE_ENV];
  if (path === undefined || path.trim() === '') return createProviderRegistry({}, { env });
  return loadProvidersFile(path, { env });
}
