/**
 * model-retry/activities: `createActivities(deps)` gives a worker every activity model-retry's workflows call.
 */
import { createModelRequest } from './attempt/model-request.js';
import { withAttemptMetrics } from './attempt/attempt-metrics.js';
import { withResultLimit } from './attempt/result-size.js';
import { createSearchAttributeActivities } from './search-attributes.js';
import { createWorkerConfigActivities } from './worker-config.js';
import { InFlightLimits } from './attempt/in-flight.js';
import { providersFromEnv } from './providers/registry.js';
import type { Env, ProviderRegistry } from './providers/registry.js';
import { ToolRegistry, createToolActivities } from './tools/index.js';
import type { ToolSpec } from './tools/index.js';

export interface ActivityDeps {
  /**
   * The provider registry. When absent, it is loaded now from the file named by `MODEL_RETRY_PROVIDERS` (in
   * `env`), or holds the built-in `openai` and `anthropic` only when that is unset. A file that cannot be read
   * or used throws `ProvidersConfigError` (naming the file and each problem), so the worker refuses to start
   * instead of failing every call it picks up.
   */
  providers?: ProviderRegistry;
  /** The environment provider keys (and `MODEL_RETRY_PROVIDERS`) are read from. @default process.env */
  env?: Env;
  /**
   * The tools agent turns may call, by name, each with its description, input schema, `run`, retry policy and
   * timeout (see `ToolSpec`); or a ready `ToolRegistry`. The built-in tools (`get_time`, `calculator`,
   * `sleep_ms`, `fail_tool`) are there too unless `builtinTools: false`; a tool of yours with the same name wins.
   */
  tools?: Record<string, ToolSpec> | ToolRegistry;
  /** Whether the built-in tools are offered. @default true */
  builtinTools?: boolean;
  /**
   * Whether this worker's data converter has a payload store (the claim-check codec): workflows then know that a
   * long prompt costs a reference in history, not its size. `createModelRetryWorker` sets it from its
   * `dataConverter`. @default false
   */
  payloadStore?: boolean;
}

/**
 * Every activity model-retry's workflows call, for a worker's `activities`.
 * @throws ProvidersConfigError when `deps.providers` is absent and `MODEL_RETRY_PROVIDERS` names a bad file.
 */
export function createActivities(deps: ActivityDeps = {}) {
  const registry = deps.providers ?? providersFromEnv(deps.env ?? process.env);
  const providers = (): ProviderRegistry => registry;
  const tools =
    deps.tools instanceof ToolRegistry
      ? deps.tools
      : new ToolRegistry(deps.tools ?? {}, { builtins: deps.builtinTools !== false });
  const limits = registry.limits?.() ?? {};
  // One set of semaphores per process: every Worker given these activities (limit queues too) shares them.
  const inFlight = new InFlightLimits(() => limits);
  return {
    modelRequest: withAttemptMetrics(withResultLimit(createModelRequest({ providers, inFlight }))),
    ...createSearchAttributeActivities(),
    ...createWorkerConfigActivities({
      payloadStore: deps.payloadStore === true,
      ...(Object.keys(limits).length > 0 ? { limits } : {}),
    }),
    ...createToolActivities({ registry: () => tools }),
  };
}

export type Activities = ReturnType<typeof createActivities>;

export type * from '../common/attempt.js';
export * from './tools/index.js';
export {
  MisconfiguredError,
  createProviderRegistry,
  loadProvidersFile,
  parseModelName,
  providersFromEnv,
} from './providers/registry.js';
export type { Env, ProviderRegistry, RegistryOptions, ResolvedModel } from './providers/registry.js';
export { limitQueue } from '../common/limits.js';
export type { BackendLimits, LimitsByKey } from '../common/limits.js';
export {
  BUILTIN_PROVIDERS,
  ProvidersConfigError,
  parseProvidersConfig,
  readProvidersFile,
} from './providers/config.js';
export type {
  AnthropicProviderConfig,
  OpenAICompatibleProviderConfig,
  OpenAIProviderConfig,
  ProviderConfig,
  ProvidersConfig,
} from './providers/config.js';
