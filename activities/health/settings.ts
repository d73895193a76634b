/**
 * Which backends fleet health watches, under which key, with which breaker settings: the worker's `health`
 * option (on for every backend, with the defaults) and each provider's `health` entry of the providers file.
 */
import { DEFAULT_BREAKER } from '../../policy/index.js';
import type { BreakerSettings } from '../../policy/index.js';
import type { ProviderHealthConfig } from '../providers/health-config.js';

/** `createActivities({ health })`: fleet health for a worker. */
export interface HealthOptions {
  /** How often a worker sends each backend's batched outcomes, in ms (at most 1000 / flushMs signals a second). @default 250 */
  flushMs?: number;
  /** How often a worker re-reads each backend's state, in ms. @default 1000 */
  refreshMs?: number;
  /**
   * How long a backend no attempt admitted or checked keeps being re-read, in ms (a worker stops reading the
   * backends it no longer calls). @default 300000
   */
  idleMs?: number;
}

/** What the monitor watches for one model: the health workflow's backend key and its settings. */
export interface WatchedBackend {
  key: string;
  settings: BreakerSettings;
}

/**
 * The backend key and settings of `model` (`provider:model`), or `undefined` when health is off for it:
 * `"health": false` on its provider, or the worker has health off and the provider has no `health` entry.
 */
export function watchedBackend(
  model: string,
  workerOn: boolean,
  config: ProviderHealthConfig | undefined,
): WatchedBackend | undefined {
  if (config === false || (!workerOn && config === undefined)) return undefined;
  const provider = model.split(':')[0] ?? model;
  const c = config ?? {};
  return {
    key: c.scope === 'provider' ? provider : model,
    settings: {
      failures: c.trip?.failures ?? DEFAULT_BREAKER.failures,
      windowMs: c.trip?.windowMs ?? DEFAULT_BREAKER.windowMs,
      coolDownMs: c.coolDownMs ?? DEFAULT_BREAKER.coolDownMs,
      maxCoolDownMs: c.maxCoolDownMs ?? DEFAULT_BREAKER.maxCoolDownMs,
    },
  };
}

/** The environment variable that turns fleet health on for `model-retry worker` (`on`, `true`, `1`). */
export const HEALTH_ENV = 'MODEL_RETRY_HEALTH';

/** Whether `MODEL_RETRY_HEALTH` turns fleet health on. */
export function healthFromEnv(env: Readonly<Record<string, string | undefined>>): boolean {
  return /^(on|true|1|yes)$/i.test(env[HEALTH_ENV]?.trim() ?? '');
}

/**
 * The task queue a backend's health is kept for: the call's own queue, also for attempts that run on a limited
 * backend's queue of its own (`<taskQueue>/limit/<backend>`).
 */
export function healthTaskQueue(activityTaskQueue: string): string {
  const at = activityTaskQueue.indexOf('/limit/');
  return at < 0 ? activityTaskQueue : activityTaskQueue.slice(0, at);
}
