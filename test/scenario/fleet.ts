/**
 * The fleet a scenario runs on: which provider its backends belong to (fleet health on or off, per-worker limits)
 * and which workers poll its task queue (one in-process worker, or that and a `model-retry worker` process).
 *
 * Health and limits are provider settings of the providers file, so every combination is one provider entry,
 * all pointing at the same loopback provider: a scenario picks its combination by naming its backends after it
 * (`lp-h1-f1-r0:sc-12`), and one worker serves them all. Backends are fresh per case (model ids are), so one
 * case's breaker state never reaches another.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderConfig, ProvidersConfig } from '../../activities/providers/config.js';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import type { ProviderRegistry } from '../../activities/providers/registry.js';
import type { LoopbackProvider } from '../../loopback/index.js';
import type { Scenario } from './scenario.js';

/**
 * A breaker that trips within a case (two transient failures) and cools down longer than a generated wait (so a
 * case meets `CoolingDown`), yet briefly enough that a case stays short.
 */
export const SCENARIO_HEALTH = {
  trip: { failures: 2, windowMs: 10_000 },
  coolDownMs: 1000,
  maxCoolDownMs: 2000,
};
/** The per-worker limits a scenario may put on its backends. */
export const MAX_IN_FLIGHT = [1] as const;
export const REQUESTS_PER_SECOND = [5] as const;

/** The provider of a scenario's loopback backends: `lp-h<health>-f<maxInFlight>-r<requestsPerSecond>`. */
export function loopbackProvider(s: Pick<Scenario, 'health' | 'limits'>): string {
  return `lp-h${s.health ? 1 : 0}-f${s.limits?.maxInFlight ?? 0}-r${s.limits?.requestsPerSecond ?? 0}`;
}

/** The provider of a scenario's dead backends (nothing listens): health on or off, no limits. */
export function deadProvider(s: Pick<Scenario, 'health'>): string {
  return `dead-h${s.health ? 1 : 0}`;
}

/**
 * Models that take a prefill (`prefill: true` in their provider's `models`): a continuing case may name its loopback
 * backends `pf-<n>`, each `n` once per run (fresh backends, as `sc-<n>` are), so that the continuation asks with a
 * prefill there. The providers file is written once, so the names are declared ahead.
 */
export const PREFILL_MODELS = 1500;
let prefillUsed = 0;

/** The next prefill model's name; `undefined` once every declared one was used (the case then asks by instruction). */
export function nextPrefillModel(): string | undefined {
  if (prefillUsed >= PREFILL_MODELS) return undefined;
  prefillUsed += 1;
  return `pf-${prefillUsed}`;
}

const prefillModels = Object.fromEntries(
  Array.from({ length: PREFILL_MODELS }, (_, i) => [`pf-${i + 1}`, { prefill: true }]),
);

/** The key variable every scenario provider reads. */
export const SCENARIO_KEY_ENV = 'LOOPBACK_KEY';

/** Every provider entry a scenario may name. */
export function scenarioProviders(lp: LoopbackProvider): ProvidersConfig {
  const config: Record<string, ProviderConfig> = {};
  for (const health of [false, true]) {
    const h = health ? { health: SCENARIO_HEALTH } : {};
    for (const maxInFlight of [undefined, ...MAX_IN_FLIGHT]) {
      for (const requestsPerSecond of [undefined, ...REQUESTS_PER_SECOND]) {
        const limits = {
          ...(maxInFlight !== undefined ? { maxInFlight } : {}),
          ...(requestsPerSecond !== undefined ? { requestsPerSecond } : {}),
        };
        config[loopbackProvider({ health, limits })] = {
          type: 'openai-compatible',
          baseURL: lp.openaiBaseURL,
          apiKeyEnv: SCENARIO_KEY_ENV,
          ...h,
          ...(Object.keys(limits).length > 0 ? { limits } : {}),
          models: prefillModels,
        };
      }
    }
    // Port 2: nothing listens there (see test/harness/model-call.ts).
    config[deadProvider({ health })] = {
      type: 'openai-compatible',
      baseURL: 'http://127.0.0.1:2/v1',
      apiKeyEnv: SCENARIO_KEY_ENV,
      ...h,
    };
  }
  return config;
}

/** The registry of the suite's in-process workers, with the run's test key. */
export function scenarioRegistry(lp: LoopbackProvider, key: string): ProviderRegistry {
  return createProviderRegistry(scenarioProviders(lp), { env: { [SCENARIO_KEY_ENV]: key } });
}

/** Writes the same providers as a file, for a `model-retry worker` process; returns its path. */
export function writeScenarioProvidersFile(lp: LoopbackProvider, dir: string): string {
  const path = join(dir, 'scenario-providers.json');
  writeFileSync(path, JSON.stringify(scenarioProviders(lp)));
  return path;
}
