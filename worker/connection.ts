import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';

export interface TemporalTarget {
  connectionOptions: NativeConnectionOptions;
  namespace: string;
}

/**
 * Where to find Temporal, by Temporal's own conventions (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`,
 * `TEMPORAL_API_KEY`, TLS variables, `TEMPORAL_PROFILE` and the config file), through `@temporalio/envconfig`.
 * Explicit overrides win; without anything the target is `localhost:7233`, namespace `default`.
 */
export function loadTemporalTarget(overrides: { address?: string; namespace?: string } = {}): TemporalTarget {
  const { connectionOptions, namespace } = loadClientConnectConfig();
  return {
    connectionOptions: {
      ...connectionOptions,
      address: overrides.address ?? connectionOptions.address ?? 'localhost:7233',
    },
    namespace: overrides.namespace ?? namespace ?? 'default',
  };
}
