import type { WorkerConfig, WorkerConfigActivities } from '../common/worker-config.js';
import { DEFAULT_TENANT } from '../common/tenants.js';
import type { TenantsConfig } from '../common/tenants.js';
import { providerKeyOf } from './attempt/provider-bound.js';
import { genAiProviderOfConfig, genAiProviderOfRegistration } from './providers/gen-ai-provider.js';
import type { Env, ProviderRegistry } from './providers/registry.js';
import type { AiSdkProviders } from './providers/registered.js';

/** The `modelRetryConfig` local activity: what this worker tells the workflows it runs (see `WorkerConfig`). */
export function createWorkerConfigActivities(config: WorkerConfig): WorkerConfigActivities {
  const answer = Object.freeze({ ...config });
  return {
    async modelRetryConfig(ask?: { tenant?: string }): Promise<WorkerConfig> {
      if (answer.tenants === undefined) return answer;
      return { ...answer, tenants: tenantsFor(answer.tenants, ask?.tenant) };
    },
  };
}

/**
 * `gen_ai.provider.name` by provider name (see `providers/gen-ai-provider.ts`): from a configured provider's type
 * and host, or from a registered AI SDK provider's model. A provider of a registry built by hand (no `configOf`)
 * has none.
 */
export function genAiProvidersOf(
  registry: ProviderRegistry,
  registered: AiSdkProviders,
  env: Env,
  fetch: typeof globalThis.fetch,
): Record<string, string> {
  const byName: Record<string, string> = {};
  for (const name of registry.names()) {
    const registration = Object.hasOwn(registered, name) ? registered[name] : undefined;
    const config = registration === undefined ? registry.configOf?.(name) : undefined;
    if (registration !== undefined)
      byName[name] = genAiProviderOfRegistration(name, registration, env, fetch);
    else if (config !== undefined) byName[name] = genAiProviderOfConfig(config);
  }
  return byName;
}

/** The AI SDK key of each configured provider's options (see `providerKeyOf`); registered providers have none here. */
export function providerKeysOf(
  registry: ProviderRegistry,
  registered: AiSdkProviders,
): Record<string, string> {
  const byName: Record<string, string> = {};
  for (const name of registry.names()) {
    if (Object.hasOwn(registered, name)) continue;
    const config = registry.configOf?.(name);
    if (config !== undefined) byName[name] = providerKeyOf(name, config.type);
  }
  return byName;
}

/** The entries of a tenants file that a run of `tenant` needs: its own and `*` (the others stay out of history). */
function tenantsFor(tenants: TenantsConfig, tenant: string | undefined): TenantsConfig {
  const names = tenant === undefined ? [DEFAULT_TENANT] : [tenant, DEFAULT_TENANT];
  // `Object.fromEntries` makes own properties, whatever the name (`__proto__` included).
  return Object.fromEntries(
    names.flatMap((n) => {
      const entry = Object.hasOwn(tenants, n) ? tenants[n] : undefined;
      return entry === undefined ? [] : [[n, entry] as const];
    }),
  );
}
