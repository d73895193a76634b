/**
 * The provider registry held by the worker: resolves `provider:model` to an AI SDK language model. Keys are
 * read from the worker's environment at request time and never leave the worker (they are not part of any
 * activity input, result or failure). Every registry has the built-in `openai` and `anthropic` providers
 * (`BUILTIN_PROVIDERS`) unless its config replaces them.
 */
import { PROVIDER_ADAPTERS } from './adapters.js';
import { embeddingModelOf, noEmbeddings } from './embedding.js';
import {
  BUILTIN_PROVIDERS,
  ProvidersConfigError,
  parseProvidersConfig,
  readProvidersFile,
} from './config.js';
import type { ProviderConfig, ProvidersConfig } from './config.js';
import { outputLimitsOf, pricingOf } from './models.js';
import { createProviderFetch } from './transport.js';
import { limitsOf } from './limits.js';
import type { TransportOptions } from './transport.js';
import { baseURLOf, headersFromEnv, readKey, refuseBadEnvBaseURLs } from './provider-env.js';
import { MisconfiguredError, parseModelName } from './registry-types.js';
import type { Env, ProviderRegistry, ResolvedModel } from './registry-types.js';

export { MisconfiguredError, parseModelName } from './registry-types.js';
export type { Env, ProviderRegistry, ResolvedEmbeddingModel, ResolvedModel } from './registry-types.js';

/** The variable naming the providers file. */
export const PROVIDERS_FILE_ENV = 'MODEL_RETRY_PROVIDERS';

/** Options of {@link createProviderRegistry}. */
export interface RegistryOptions {
  /** Where keys are read, at each request. @default process.env */
  env?: Env;
  /** Names the config in messages (the providers file's path). */
  source?: string;
  /**
   * The transport's own limits on provider requests. @default none: only the attempt's timeout bounds a request
   * (Node's fetch would give up after 300 s on headers and on bodies).
   */
  transport?: TransportOptions;
}

/**
 * A registry over a providers config (checked here too), on top of the built-in `openai` and `anthropic`
 * providers: an entry of the same name replaces a built-in.
 * @throws ProvidersConfigError when the config has problems.
 */
export function createProviderRegistry(
  config: ProvidersConfig,
  options: RegistryOptions = {},
): ProviderRegistry {
  const checked = parseProvidersConfig(config, options.source);
  const all: ProvidersConfig = { ...checked, ...withoutKeys(BUILTIN_PROVIDERS, Object.keys(checked)) };
  const env = (): Env => options.env ?? process.env;
  refuseBadEnvBaseURLs(all, env());
  // One dispatcher (connection pool) for every model of this registry.
  const fetch = createProviderFetch(options.transport);
  const prices = pricingOf(all);
  const outputLimits = outputLimitsOf(all);
  const limits = Object.freeze(limitsOf(checked));
  const built = new BuiltModels();
  return {
    names: () => Object.keys(all),
    pricing: () => ({ ...prices }),
    outputLimits: () => ({ ...outputLimits }),
    limits: () => limits,
    configOf: (provider) => (Object.hasOwn(all, provider) ? all[provider] : undefined),
    resolve(model) {
      const { provider, modelId, config, adapter, apiKey, baseURL, fromEnv } = settingsOf(model);
      // What the environment gives is read at every request (above); the model is built again only when it changed.
      const reused = built.get(model, [apiKey, baseURL, fromEnv]);
      if (reused) return reused;
      const sent: ProviderConfig =
        Object.keys(fromEnv).length === 0
          ? config
          : { ...config, headers: { ...config.headers, ...fromEnv } };
      // Every value read from the environment for a header is a credential, whatever the header's name.
      const secrets = Object.freeze([
        ...(apiKey === undefined ? [] : [apiKey]),
        ...(adapter.secretHeaders?.(config) ?? []),
        ...Object.values(fromEnv),
      ]);
      return built.set(model, [apiKey, baseURL, fromEnv], {
        provider,
        modelId,
        model: adapter.languageModel({ name: provider, config: sent, apiKey, baseURL, modelId, fetch }),
        secrets,
        ...(prices[`${provider}:${modelId}`] ? { pricing: prices[`${provider}:${modelId}`] } : {}),
        ...(prefillOf(config, modelId) ? { prefill: true as const } : {}),
        ...(adapter.usage === undefined ? {} : { usage: adapter.usage }),
        ...(adapter.cost === undefined ? {} : { cost: adapter.cost }),
        ...(adapter.refineObservation === undefined ? {} : { refineObservation: adapter.refineObservation }),
        ...(adapter.streamErrorStatus === undefined ? {} : { streamErrorStatus: adapter.streamErrorStatus }),
        ...(adapter.jsonSchemaMode === undefined ? {} : { jsonSchemaMode: adapter.jsonSchemaMode }),
      });
    },
    resolveEmbedding(model) {
      const { provider, modelId, config, adapter, apiKey, baseURL, fromEnv } = settingsOf(model);
      const sent =
        Object.keys(fromEnv).length === 0
          ? config
          : { ...config, headers: { ...config.headers, ...fromEnv } };
      const embedding = embeddingModelOf({ name: provider, config: sent, apiKey, baseURL, modelId, fetch });
      if (embedding === undefined) throw new MisconfiguredError(noEmbeddings(provider, config.type));
      return Object.freeze({
        provider,
        modelId,
        model: embedding,
        secrets: Object.freeze([
          ...(apiKey === undefined ? [] : [apiKey]),
          ...(adapter.secretHeaders?.(config) ?? []),
          ...Object.values(fromEnv),
        ]),
        ...(prices[`${provider}:${modelId}`] ? { pricing: prices[`${provider}:${modelId}`] } : {}),
        ...(adapter.refineObservation === undefined ? {} : { refineObservation: adapter.refineObservation }),
      });
    },
  };

  /** What `model` is made with: its provider's config and adapter, and the key, base URL and headers read now. */
  function settingsOf(model: string) {
    const { provider, modelId } = parseModelName(model);
    const config = Object.hasOwn(all, provider) ? all[provider] : undefined;
    if (config === undefined) {
      throw new MisconfiguredError(
        `unknown provider "${provider}" in model "${model}" (known: ${Object.keys(all).join(', ')}; add "${provider}" to the providers file named by ${PROVIDERS_FILE_ENV} or --providers)`,
      );
    }
    const adapter = PROVIDER_ADAPTERS[config.type];
    try {
      const apiKey = readKey(provider, config, adapter, env());
      const baseURL = baseURLOf(provider, config, adapter, env());
      const fromEnv = headersFromEnv(provider, config, env());
      return { provider, modelId, config, adapter, apiKey, baseURL, fromEnv };
    } catch (error) {
      // A key unset (or a base URL made unusable) since: the model built with the old one is not kept either.
      built.forget(model);
      throw error;
    }
  }
}

/**
 * The models a registry built, by model name, each with what the environment gave it (key, base URL, header
 * values). An AI SDK model holds its settings and no state of a request, so one serves every request with the same
 * settings; building one costs more CPU than the rest of an attempt's own work (the OpenAI-compatible model builds
 * its response schemas in its constructor, as a CPU profile of an attempt showed). A changed key, base URL or
 * header value builds a new one. Bounded: past `MAX_BUILT_MODELS` names, the least recently used goes.
 */
class BuiltModels {
  /** In the order of last use, oldest first. */
  private readonly byName = new Map<string, { from: string; resolved: ResolvedModel }>();

  get(model: string, from: unknown): ResolvedModel | undefined {
    const entry = this.byName.get(model);
    if (entry === undefined || entry.from !== JSON.stringify(from)) return undefined;
    this.byName.delete(model);
    this.byName.set(model, entry);
    return entry.resolved;
  }

  set(model: string, from: unknown, resolved: ResolvedModel): ResolvedModel {
    this.byName.delete(model);
    if (this.byName.size >= MAX_BUILT_MODELS) this.byName.delete(this.byName.keys().next().value as string);
    const frozen = Object.freeze(resolved);
    this.byName.set(model, { from: JSON.stringify(from), resolved: frozen });
    return frozen;
  }

  forget(model: string): void {
    this.byName.delete(model);
  }
}

/** The most model names a registry keeps built models for (a worker usually asks for a handful). */
const MAX_BUILT_MODELS = 256;

/** Whether the providers file sets `prefill: true` on `modelId` of this provider. */
function prefillOf(config: ProviderConfig, modelId: string): boolean {
  const models = config.models;
  return models !== undefined && Object.hasOwn(models, modelId) && models[modelId]?.prefill === true;
}

function withoutKeys(config: ProvidersConfig, keys: readonly string[]): ProvidersConfig {
  return Object.fromEntries(Object.entries(config).filter(([name]) => !keys.includes(name)));
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
 * The registry named by `MODEL_RETRY_PROVIDERS` in `env` (only the built-in `openai` and `anthropic` when it
 * is unset, so a worker without a providers file still starts). Keys are read from `env` too.
 * @throws ProvidersConfigError when the named file cannot be read or has problems.
 */
export function providersFromEnv(env: Env = process.env): ProviderRegistry {
  const path = env[PROVIDERS_FILE_ENV];
  if (path === undefined || path.trim() === '') return createProviderRegistry({}, { env });
  try {
    return loadProvidersFile(path, { env });
  } catch (error) {
    if (!(error instanceof ProvidersConfigError)) throw error;
    throw new ProvidersConfigError(`${path} (named by ${PROVIDERS_FILE_ENV})`, error.problems);
  }
}
