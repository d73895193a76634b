/**
 * model-retry/activities: `createActivities(deps)` gives a worker every activity model-retry's workflows call.
 */
import { createHarnessActivities } from './harness.js';
import { createModelRequest } from './model-request.js';
import { providersFromEnv } from './providers.js';
import type { Env, ProviderRegistry } from './providers.js';

export interface ActivityDeps {
  /**
   * The provider registry. When absent, it is loaded from the file named by `MODEL_RETRY_PROVIDERS` (in
   * `env`) at the first model request, so a worker without providers still starts; a load that fails makes
   * that attempt `Misconfigured` and is tried again at the next one.
   */
  providers?: ProviderRegistry;
  /** The environment provider keys (and `MODEL_RETRY_PROVIDERS`) are read from. @default process.env */
  env?: Env;
}

export function createActivities(deps: ActivityDeps = {}) {
  let registry = deps.providers;
  const providers = (): ProviderRegistry => (registry ??= providersFromEnv(deps.env ?? process.env));
  return {
    ...createHarnessActivities(),
    modelRequest: createModelRequest({ providers }),
  };
}

export type Activities = ReturnType<typeof createActivities>;

export type * from './model-request-types.js';
export {
  MisconfiguredError,
  createProviderRegistry,
  loadProvidersFile,
  parseModelName,
  providersFromEnv,
} from './providers.js';
export type { Env, ProviderRegistry, RegistryOptions, ResolvedModel } from './providers.js';
export {
  BUILTIN_PROVIDERS,
  ProvidersConfigError,
  parseProvidersConfig,
  readProvidersFile,
} from './provider-config.js';
export type {
  AnthropicProviderConfig,
  OpenAICompatibleProviderConfig,
  OpenAIProviderConfig,
  ProviderConfig,
  ProvidersConfig,
} from './provider-config.js';
