/**
 * Any AI SDK provider, registered in the worker by name beside the built-in and providers-file ones:
 *
 * ```ts
 * createActivities({
 *   aiSdkProviders: {
 *     mistral: {
 *       create: (env) => createMistral({ apiKey: env.MISTRAL_API_KEY }),
 *       secretEnv: ['MISTRAL_API_KEY'],
 *     },
 *   },
 * });
 * ```
 *
 * `mistral:<model>` then resolves to `create(env).languageModel(<model>)`, built at each request from the
 * worker's environment as the built-ins read their keys. The values of `secretEnv` are the provider's
 * credentials: each must be set (else the attempt is `Misconfigured`, nothing sent), and they are scrubbed from
 * every message like a built-in's key. Its failures are classified by the generic rows (an `APICallError`'s
 * status, headers and codes), as for any provider without a table of its own.
 */
import type { EmbeddingModelV4, LanguageModelV4 } from '@ai-sdk/provider';
import { boundedMessage } from '../scrub.js';
import { BUILTIN_PROVIDERS, PROVIDER_NAME, ProvidersConfigError } from './config.js';
import { MisconfiguredError, parseModelName } from './registry.js';
import type { Env, ProviderRegistry, ResolvedEmbeddingModel, ResolvedModel } from './registry.js';

/** An AI SDK provider: anything with `languageModel(id)` (`createMistral(...)`, `createAzure(...)`, ...). */
export interface AiSdkProvider {
  languageModel(modelId: string): unknown;
  /** Its embedding models (`durableEmbeddingModel`), when it has them. */
  embeddingModel?(modelId: string): unknown;
}

/** What `create` gets besides the environment. */
export interface AiSdkProviderContext {
  /**
   * The worker's `fetch` for provider requests (no transport timeout of its own, so only the attempt's timeout
   * bounds a request; see `transport.ts`). Pass it to the provider's `fetch` setting where it has one.
   */
  fetch: typeof globalThis.fetch;
}

/** One AI SDK provider registered in the worker. */
export interface AiSdkProviderRegistration {
  /**
   * Builds the provider from the worker's environment, at each request (keys are read then), and once when the
   * activities are made, to learn its models' `provider` string for traces (`gen_ai.provider.name`): it should
   * not send anything when called.
   */
  create(env: Env, context: AiSdkProviderContext): AiSdkProvider;
  /**
   * The environment variables the provider reads its credentials from (`['MISTRAL_API_KEY']`; `[]` when it
   * reads none). Each must be set when a request is made; their values never reach a failure or a record.
   */
  secretEnv: readonly string[];
}

/** AI SDK providers by name (the `provider` of `provider:model`). */
export type AiSdkProviders = Readonly<Record<string, AiSdkProviderRegistration>>;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SOURCE = 'aiSdkProviders';

function entryProblems(name: string, entry: unknown, taken: readonly string[]): string[] {
  const at = `${SOURCE}.${name}`;
  if (!PROVIDER_NAME.test(name)) {
    return [`\`${at}\`: a provider name may hold only letters, digits, '.', '_' and '-' (no ':')`];
  }
  if (taken.includes(name)) {
    const what = Object.hasOwn(BUILTIN_PROVIDERS, name) ? 'a built-in provider' : 'a providers-file provider';
    return [`\`${at}\` has the name of ${what}: register it under another name`];
  }
  const record = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
  const problems: string[] = [];
  if (typeof record.create !== 'function') {
    problems.push(`\`${at}.create\` must be a function (env) => an AI SDK provider`);
  }
  const secretEnv = record.secretEnv;
  if (!Array.isArray(secretEnv)) {
    problems.push(
      `\`${at}.secretEnv\` must list the environment variables the provider reads its keys from (\`[]\` when none), so their values are scrubbed`,
    );
  } else {
    for (const variable of secretEnv as unknown[]) {
      if (typeof variable !== 'string' || !ENV_NAME.test(variable)) {
        problems.push(
          `\`${at}.secretEnv\` must hold environment variable names (like "MISTRAL_API_KEY"), not ${JSON.stringify(variable)}`,
        );
      }
    }
  }
  return problems;
}

/**
 * Checks registrations against the names a registry already has.
 * @throws ProvidersConfigError listing every problem (a name clash, a missing `create`, a bad `secretEnv`).
 */
export function checkAiSdkProviders(providers: unknown, taken: readonly string[]): AiSdkProviders {
  if (typeof providers !== 'object' || providers === null || Array.isArray(providers)) {
    throw new ProvidersConfigError(SOURCE, ['expected an object of { create, secretEnv } by provider name']);
  }
  const problems = Object.entries(providers).flatMap(([name, entry]) => entryProblems(name, entry, taken));
  if (problems.length > 0) throw new ProvidersConfigError(SOURCE, problems);
  return providers as AiSdkProviders;
}

/** The values of `secretEnv`, read from `env` now. @throws MisconfiguredError naming an unset variable. */
function readSecrets(provider: string, registration: AiSdkProviderRegistration, env: Env): string[] {
  return registration.secretEnv.map((variable) => {
    const value = env[variable];
    if (value === undefined || value.trim() === '') {
      throw new MisconfiguredError(
        `provider "${provider}" reads ${variable}, which is empty or unset in the worker's environment: set it and restart the worker`,
      );
    }
    return value;
  });
}

function isLanguageModelV4(model: unknown): model is LanguageModelV4 {
  const m = model as Partial<LanguageModelV4> | undefined;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.specificationVersion === 'v4' &&
    typeof m.doGenerate === 'function' &&
    typeof m.doStream === 'function'
  );
}

/** The model `modelId` of a registered provider, built now. @throws MisconfiguredError, its message scrubbed. */
function buildModel(
  provider: string,
  modelId: string,
  registration: AiSdkProviderRegistration,
  env: Env,
  context: AiSdkProviderContext,
): ResolvedModel {
  const secrets = readSecrets(provider, registration, env);
  let model: unknown;
  try {
    model = registration.create(env, context).languageModel(modelId);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new MisconfiguredError(
      `provider "${provider}" could not make model "${modelId}": ${boundedMessage(message, secrets)}`,
    );
  }
  if (!isLanguageModelV4(model)) {
    const version = (model as { specificationVersion?: unknown } | undefined)?.specificationVersion;
    throw new MisconfiguredError(
      `provider "${provider}" gave a model of specification ${JSON.stringify(version)}: register a provider package built for AI SDK 7 (LanguageModelV4)`,
    );
  }
  return { provider, modelId, model, secrets };
}

/** The embedding model `modelId` of a registered provider, built now. @throws MisconfiguredError, its message scrubbed. */
function buildEmbeddingModel(
  provider: string,
  modelId: string,
  registration: AiSdkProviderRegistration,
  env: Env,
  context: AiSdkProviderContext,
): ResolvedEmbeddingModel {
  const secrets = readSecrets(provider, registration, env);
  let model: unknown;
  try {
    const made = registration.create(env, context);
    if (typeof made.embeddingModel !== 'function') {
      throw new MisconfiguredError(
        `provider "${provider}" has no embedding models (no \`embeddingModel(id)\`)`,
      );
    }
    model = made.embeddingModel(modelId);
  } catch (error) {
    if (error instanceof MisconfiguredError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new MisconfiguredError(
      `provider "${provider}" could not make embedding model "${modelId}": ${boundedMessage(message, secrets)}`,
    );
  }
  const m = model as Partial<EmbeddingModelV4> | undefined;
  if (
    typeof m !== 'object' ||
    m === null ||
    m.specificationVersion !== 'v4' ||
    typeof m.doEmbed !== 'function'
  ) {
    throw new MisconfiguredError(
      `provider "${provider}" gave an embedding model of specification ${JSON.stringify(m?.specificationVersion)}: register a provider package built for AI SDK 7 (EmbeddingModelV4)`,
    );
  }
  return { provider, modelId, model: m as EmbeddingModelV4, secrets };
}

/**
 * `base` with AI SDK providers registered beside its own. Names are checked now (a clash with a built-in or
 * providers-file provider is refused, so the worker does not start); keys are read at each request from `env`.
 * @throws ProvidersConfigError for a bad registration.
 */
export function withAiSdkProviders(
  base: ProviderRegistry,
  providers: AiSdkProviders,
  options: { env: () => Env; fetch: typeof globalThis.fetch },
): ProviderRegistry {
  const registered = checkAiSdkProviders(providers, base.names());
  const names = (): string[] => [...base.names(), ...Object.keys(registered)];
  // The base's other answers (prices, output limits, health and limits settings) stay the providers file's.
  return {
    ...base,
    names,
    resolve(name) {
      const { provider, modelId } = parseModelName(name);
      const registration = Object.hasOwn(registered, provider) ? registered[provider] : undefined;
      if (registration !== undefined) {
        return buildModel(provider, modelId, registration, options.env(), { fetch: options.fetch });
      }
      if (!base.names().includes(provider)) {
        throw new MisconfiguredError(
          `unknown provider "${provider}" in model "${name}" (known: ${names().join(', ')}; register it in the worker's aiSdkProviders or add it to the providers file)`,
        );
      }
      return base.resolve(name);
    },
    resolveEmbedding(name) {
      const { provider, modelId } = parseModelName(name);
      const registration = Object.hasOwn(registered, provider) ? registered[provider] : undefined;
      if (registration !== undefined) {
        return buildEmbeddingModel(provider, modelId, registration, options.env(), { fetch: options.fetch });
      }
      if (!base.names().includes(provider) || base.resolveEmbedding === undefined) {
        throw new MisconfiguredError(
          `unknown provider "${provider}" in model "${name}" (known: ${names().join(', ')}; register it in the worker's aiSdkProviders or add it to the providers file)`,
        );
      }
      return base.resolveEmbedding(name);
    },
  };
}
