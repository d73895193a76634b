/**
 * model-retry/activities: `createActivities(deps)` gives a worker every activity model-retry's workflows call;
 * beside it, the provider registry and providers file, the tenants file, the tools agent turns may call, and the
 * activities' input and result shapes.
 * @module model-retry/activities
 */
import { createModelRequest } from './attempt/model-request.js';
import type { DownloadFile } from './attempt/file-downloads.js';
import { withAttemptMetrics } from './attempt/attempt-metrics.js';
import { withResultLimit } from './attempt/result-size.js';
import { createSearchAttributeActivities } from './search-attributes.js';
import { createWorkerConfigActivities, genAiProvidersOf, providerKeysOf } from './worker-config.js';
import { HEARTBEAT_INTERVAL_MS } from './heartbeat.js';
import { checkHeartbeatMs } from '../common/heartbeat.js';
import { InFlightLimits } from './attempt/in-flight.js';
import { providersFromEnv } from './providers/registry.js';
import type { Env, ProviderRegistry } from './providers/registry.js';
import { withAiSdkProviders } from './providers/registered.js';
import type { AiSdkProviders } from './providers/registered.js';
import { createProviderFetch } from './providers/transport.js';
import { ToolRegistry, createToolActivities } from './tools/index.js';
import { HealthMonitor } from './health/monitor.js';
import { healthFromEnv } from './health/settings.js';
import type { HealthOptions } from './health/settings.js';
import { createCoolingCheck, healthWatchedLimits, withHealth } from './health/with-health.js';
import { AttemptHeaders, attemptKey } from './health/attempt-headers.js';
import type { ToolSpec } from './tools/index.js';
import { parseTenantsConfig, tenantsFromEnv } from './tenants/config.js';
import type { TenantsConfig } from '../common/tenants.js';
import { TenantLeases } from './tenants/leases.js';
import { leaseHolderName } from './tenants/ledger-client.js';
import { withTenants } from './tenants/with-tenants.js';
import { withTokenBuckets } from './tenants/with-token-buckets.js';
import { envelopeFor } from '../common/call-input/tenant-bound.js';

/** What `createActivities` builds the activities from; every field is optional. */
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
   * Any AI SDK provider, by name, beside the built-in and providers-file ones:
   * `{ mistral: { create: (env) => createMistral({ apiKey: env.MISTRAL_API_KEY }), secretEnv: ['MISTRAL_API_KEY'] } }`
   * makes `mistral:<model>` callable. `create` runs at each request with `env`; every `secretEnv` variable must
   * be set then (else the attempt is `Misconfigured`) and its value is scrubbed from every message. A name that
   * clashes with a built-in or providers-file provider, or a registration without `create` or `secretEnv`,
   * throws `ProvidersConfigError` here, so the worker refuses to start.
   */
  aiSdkProviders?: AiSdkProviders;
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
  /**
   * With `payloadStore`: the length (UTF-8 bytes) over which its codec moves a string to the store, so workflows
   * hold what stays in an attempt's input to Temporal's payload limit. `createModelRetryWorker` sets it from its
   * `dataConverter`. @default 2048
   */
  payloadStoreThresholdBytes?: number;
  /**
   * Fleet health (see docs/operations/fleet-health.md): `{}` turns it on for every backend with the defaults, each
   * provider's `health` entry of the providers file adjusting (or, with `false`, turning off) its own; absent:
   * on when `MODEL_RETRY_HEALTH=on` in `env`, else only for providers with a `health` entry.
   */
  health?: HealthOptions | false;
  /**
   * How often an attempt (or a tool) heartbeats while it waits (the first one after this long: an attempt that
   * answers sooner makes no heartbeat), the cadence `c` of the contract. `createModelRetryWorker` sets it to its
   * `heartbeatThrottleMs`: beats more frequent than the worker lets through say nothing more. Workflows learn it
   * from `modelRetryConfig` and give attempts a heartbeat timeout of 3c. @default 5000 (`HEARTBEAT_INTERVAL_MS`)
   */
  heartbeatIntervalMs?: number;
  /**
   * How an attempt downloads a file whose URL its model cannot take (the model's `supportedUrls`), e.g. the AI
   * SDK's `createDownload({ fetch, maxBytes })` with a fetch that validates DNS at connect time.
   * @default the AI SDK's `createDownload()` (http(s) only, no private addresses by name or IP, 100 MiB at most)
   */
  download?: DownloadFile;
  /**
   * Credential headers a call may send, by name (`['x-api-key']`): by default a call with `authorization`,
   * `x-api-key` and the like, or with a header whose value looks like a credential, is refused before it starts.
   * An allowed header and its value are written into the workflow's history: allow one only for a value that is no
   * secret to whoever reads histories. Callers starting calls with the client helpers name it too (their
   * `allowHeaders` option), since the client checks before it can ask the worker.
   */
  allowHeaders?: string[];
  /**
   * The tenants file's content (`readTenantsFile`): each tenant's envelope (what it may spend per period, across
   * calls and workers) and fairness weight, `*` for the tenants it does not name. Checked here: a bad one throws
   * `TenantsConfigError` naming each problem, so the worker refuses to start. When absent, it is read from the
   * file named by `MODEL_RETRY_TENANTS` (in `env`); when that is unset too, the worker has no tenants file.
   */
  tenants?: TenantsConfig;
}

/**
 * Every activity model-retry's workflows call, for a worker's `activities`.
 * @throws ProvidersConfigError when `deps.providers` is absent and `MODEL_RETRY_PROVIDERS` names a bad file, or
 *   when `deps.aiSdkProviders` has a bad registration or a name that is taken.
 * @throws TenantsConfigError when `deps.tenants` has problems, or is absent and `MODEL_RETRY_TENANTS` names a bad
 *   file.
 */
export function createActivities(deps: ActivityDeps = {}) {
  const env = deps.env ?? process.env;
  const base = deps.providers ?? providersFromEnv(env);
  // Checked now: a worker with a bad tenants file stops here, before it picks up a call it would misjudge.
  const tenants =
    deps.tenants === undefined
      ? tenantsFromEnv(env)
      : parseTenantsConfig(deps.tenants, 'the `tenants` option');
  // One dispatcher for the registered providers' requests, made only when there are some.
  const aiSdkFetch = deps.aiSdkProviders === undefined ? globalThis.fetch : createProviderFetch();
  const registry =
    deps.aiSdkProviders === undefined
      ? base
      : withAiSdkProviders(base, deps.aiSdkProviders, { env: () => env, fetch: aiSdkFetch });
  const providers = (): ProviderRegistry => registry;
  const tools =
    deps.tools instanceof ToolRegistry
      ? deps.tools
      : new ToolRegistry(deps.tools ?? {}, { builtins: deps.builtinTools !== false });
  const on = deps.health === undefined ? healthFromEnv(env) : deps.health !== false;
  const monitor = new HealthMonitor(deps.health === false ? {} : deps.health);
  // Kept only for attempts fleet health watches, and only while each runs (see AttemptHeaders).
  const headers = new AttemptHeaders();
  const onHeaders = (
    input: { workflowId: string; modelCallId: string },
    h: Readonly<Record<string, string>>,
  ) => headers.record(attemptKey(input), h);
  const heartbeatMs =
    deps.heartbeatIntervalMs === undefined
      ? HEARTBEAT_INTERVAL_MS
      : checkHeartbeatMs(deps.heartbeatIntervalMs, 'heartbeatIntervalMs');
  const limits = registry.limits?.() ?? {};
  // One set of semaphores per process: every Worker given these activities (limit queues too) shares them.
  const inFlight = new InFlightLimits(
    () => limits,
    (tenant) => envelopeFor(tenants, tenant)?.weight ?? 1,
  );
  const attempt = withResultLimit(
    createModelRequest({
      providers,
      onHeaders,
      inFlight,
      heartbeatIntervalMs: heartbeatMs,
      ...(deps.download ? { download: deps.download } : {}),
    }),
  );
  const health = { monitor, on, providers, headers, heartbeatIntervalMs: heartbeatMs };
  // One set of leases per process, like the semaphores: every Worker given these activities reserves against them.
  const leases = new TenantLeases(leaseHolderName());
  const buckets = withTokenBuckets(attempt, {
    limits,
    leases,
    outputLimits: () => registry.outputLimits?.() ?? {},
    heartbeatIntervalMs: heartbeatMs,
  });
  const envelopes = withTenants(buckets, {
    tenants,
    leases,
    pricing: () => registry.pricing?.() ?? {},
    outputLimits: () => registry.outputLimits?.() ?? {},
    heartbeatIntervalMs: heartbeatMs,
  });
  return {
    modelRequest: withAttemptMetrics(withHealth(envelopes, health)),
    ...createCoolingCheck(health),
    ...createSearchAttributeActivities(),
    ...createWorkerConfigActivities({
      payloadStore: deps.payloadStore === true,
      ...(deps.payloadStore === true && deps.payloadStoreThresholdBytes !== undefined
        ? { payloadStoreThresholdBytes: deps.payloadStoreThresholdBytes }
        : {}),
      heartbeatMs,
      pricing: registry.pricing?.() ?? {},
      ...outputLimitsOf(registry),
      ...(Object.keys(limits).length > 0 ? { limits } : {}),
      genAiProviders: genAiProvidersOf(registry, deps.aiSdkProviders ?? {}, env, aiSdkFetch),
      healthWatchedLimits: healthWatchedLimits(limits, on, providers),
      providerKeys: providerKeysOf(registry, deps.aiSdkProviders ?? {}),
      ...(deps.allowHeaders && deps.allowHeaders.length > 0
        ? { allowHeaders: deps.allowHeaders.map((h) => h.toLowerCase()) }
        : {}),
      ...(tenants === undefined ? {} : { tenants }),
    }),
    ...createToolActivities({ registry: () => tools, heartbeatIntervalMs: heartbeatMs }),
  };
}

/** The models' output limits for the worker config, when the providers file gives any. */
function outputLimitsOf(registry: ProviderRegistry): { outputLimits?: Record<string, number> } {
  const outputLimits = registry.outputLimits?.() ?? {};
  return Object.keys(outputLimits).length > 0 ? { outputLimits } : {};
}

/** The activities `createActivities` returns, by name. */
export type Activities = ReturnType<typeof createActivities>;

export type { DownloadFile } from './attempt/file-downloads.js';
export type { HealthOptions } from './health/settings.js';
export { HEALTH_ENV } from './health/settings.js';
export type { ProviderHealthConfig } from './providers/health-config.js';

export type {
  AnswerResponse,
  AttemptCause,
  AttemptContinuation,
  AttemptFailureDetails,
  AttemptHeartbeat,
  ChatMessage,
  ContinuationFacts,
  HeldAttempt,
  ModelRequestInput,
  ModelRequestResult,
  ModelSettings,
  SchemaMismatchFacts,
  ToolCall,
  ToolDefinition,
  ToolSet,
  ToolSetEntry,
  Usage,
} from '../common/attempt.js';
export {
  BUILTIN_TOOLS,
  InvalidToolError,
  MAX_TOOL_OUTPUT_CHARS,
  TOOL_DEFAULTS,
  ToolError,
  ToolRegistry,
} from './tools/index.js';
export type { ToolContext, ToolSpec } from './tools/index.js';
export { ToolFailureType } from '../common/tools.js';
export type {
  ToolActivities,
  ToolCallInput,
  ToolCallResult,
  ToolRetry,
  TurnToolDefinition,
} from '../common/tools.js';
export {
  MisconfiguredError,
  createProviderRegistry,
  loadProvidersFile,
  parseModelName,
  providersFromEnv,
} from './providers/registry.js';
export type { Env, ProviderRegistry, RegistryOptions, ResolvedModel } from './providers/registry.js';
export { checkAiSdkProviders, withAiSdkProviders } from './providers/registered.js';
export type {
  AiSdkProvider,
  AiSdkProviderContext,
  AiSdkProviderRegistration,
  AiSdkProviders,
} from './providers/registered.js';
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
  GoogleProviderConfig,
  OpenAICompatibleProviderConfig,
  OpenAIProviderConfig,
  OpenAIResponsesProviderConfig,
  ProviderConfig,
  ProvidersConfig,
} from './providers/config.js';
export type { ModelConfig } from './providers/models.js';
export { TenantsConfigError, parseTenantsConfig, readTenantsFile, tenantsFromEnv } from './tenants/config.js';
export type { TenantEnvelope, TenantPeriod, TenantsConfig } from '../common/tenants.js';
export type { TransportOptions } from './providers/transport.js';
export type { JsonSchemaMode } from './providers/types.js';
export type { ResolvedEmbeddingModel } from './providers/registry.js';
export type { WireContent, WireRequest } from '../common/request.js';
export type { SearchAttributesReady } from '../common/search-attribute-activity.js';
