import type { Pricing } from '../policy/index.js';
import type { LimitsByKey } from './limits.js';
import type { TenantsConfig } from './tenants.js';

/** Strings longer than this (UTF-8 bytes) go to the payload store unless the worker says otherwise. */
export const DEFAULT_PAYLOAD_STORE_THRESHOLD_BYTES = 2048;

/**
 * What workflow code learns of the worker it runs on: one local activity (`modelRetryConfig`) whose answer is
 * recorded as a marker in history, so a replay decides the same. Never read from a file or the environment in
 * workflow code. Later features (fleet health, limits, prices) add their settings here.
 */
export interface WorkerConfig {
  /**
   * Whether the worker's data converter keeps large strings in a payload store (the claim-check codec), so
   * Temporal stores a long prompt as a reference: then the size of an attempt's input as workflow code sees it
   * says nothing about what Temporal stores.
   */
  payloadStore: boolean;
  /**
   * With a payload store: the length (UTF-8 bytes) over which a string is moved to it. Shorter strings stay in the
   * payload, and what stays is still held to Temporal's payload limit. Absent: the codec's default
   * ({@link DEFAULT_PAYLOAD_STORE_THRESHOLD_BYTES}), as for a worker from before this field.
   */
  payloadStoreThresholdBytes?: number;
  /**
   * The worker's heartbeat cadence `c` in ms (its `maxHeartbeatThrottleInterval`, how often its attempts and tools
   * heartbeat): the workflow gives their activities a heartbeat timeout of 3c (`heartbeatTimeoutMs`). Absent:
   * a worker from before the setting, taken as the default (5000).
   */
  heartbeatMs?: number;
  /**
   * Prices by `provider:model`, from the `pricing` of the models in the providers file: a call with a budget
   * prices its attempts and their worst cases with them. Absent or empty: no model has a price.
   */
  pricing?: Record<string, Pricing>;
  /**
   * The providers file's limits, by provider or backend (see `LimitsByKey`): an attempt on a backend with a
   * `requestsPerSecond` runs on that key's limit queue. Absent when the worker has none.
   */
  limits?: LimitsByKey;
  /**
   * The GenAI conventions' `gen_ai.provider.name` by provider name (`local` -> `openai`), from each provider's
   * type (see `GEN_AI_PROVIDER_NAMES`), for the spans workflow code makes. Absent for a provider without one.
   */
  genAiProviders?: Record<string, string>;
  /**
   * The keys of `limits` with a `requestsPerSecond` whose backends this worker's fleet health watches: only an
   * attempt due on one of their limit queues is checked first (`backendCooling`, a marker), since only there can
   * a cooling backend be held off the queue. Empty: no attempt is checked (health off, or no rate limit). Absent:
   * the answer of a worker from before this field, whose runs checked every attempt on a limit queue; a replay of
   * such a run checks them too (its history has their markers).
   */
  healthWatchedLimits?: string[];
  /**
   * The key the AI SDK files each provider's options and metadata under, by provider name (`claude` of type
   * `anthropic` -> `anthropic`; an OpenAI-compatible provider's own name): a call checks provider-defined tools and
   * file references against its chain with it. Absent for a provider whose key the worker does not know.
   */
  providerKeys?: Record<string, string>;
  /**
   * Credential headers (lower case) that this worker lets a call send by name (`createActivities({ allowHeaders
   * })`): a call with one is not refused, and the header, its value included, is written into the history.
   */
  allowHeaders?: string[];
  /**
   * The worker's tenants file (`createActivities({ tenants })`, `MODEL_RETRY_TENANTS`): each tenant's envelope and
   * fairness weight, `*` for the rest. A call of a tenant under a token or cost envelope is checked against it at
   * start (every backend needs an output bound, a cost envelope a price), and its attempts carry the tenant's
   * weight. Absent: the worker has no tenants file.
   */
  tenants?: TenantsConfig;
  /**
   * Each model's output limit (`maxOutputTokens` of its entry in the providers file), by `provider:model`: the
   * bound an attempt without its own `maxOutputTokens` reserves against its tenant's envelope.
   */
  outputLimits?: Record<string, number>;
}

/** The local activity that answers it (types only cross into the sandbox). */
export interface WorkerConfigActivities {
  /**
   * `ask.tenant`: the run's tenant, so the answer's `tenants` holds only that tenant's entry and `*` (a tenants
   * file of thousands of tenants would otherwise be recorded whole in every run's history).
   */
  modelRetryConfig(ask?: { tenant?: string }): Promise<WorkerConfig>;
}
