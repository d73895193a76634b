import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { DEV_TIMER_MAX_TIME_SHIFT_MS } from '../../../worker/dev-server.js';

/** The services of a Temporal cluster, each a process of its own so that one can be killed alone. */
export const SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
export type Service = (typeof SERVICES)[number];

/**
 * The dynamic config file shared with docker-compose.yml (which mounts its folder): one source of truth for the
 * server's runtime settings in both.
 */
export const DYNAMIC_CONFIG_FILE = fileURLToPath(
  new URL('../../../deploy/dynamicconfig/model-retry.yaml', import.meta.url),
);

/**
 * What the test cluster sets on top of the shared dynamic config, and only this: the timer queue's look-ahead of
 * the dev server the other tests run on (a 250 ms wait fires on time, not about a second late). A real cluster
 * keeps Temporal's 1 s, which absorbs clock skew between its history hosts.
 */
export const TEST_DYNAMIC_CONFIG = {
  'history.timerProcessorMaxTimeShift': [{ value: `${DEV_TIMER_MAX_TIME_SHIFT_MS}ms` }],
};

/** The test cluster's dynamic config: the shared file (`DYNAMIC_CONFIG_FILE`) with `TEST_DYNAMIC_CONFIG`. */
export function testDynamicConfig(shared = DYNAMIC_CONFIG_FILE): Record<string, unknown> {
  return { ...(parse(readFileSync(shared, 'utf8')) as Record<string, unknown>), ...TEST_DYNAMIC_CONFIG };
}

/** The persistence both the native cluster and docker-compose.yml use (compose's `DB`). */
export const PERSISTENCE = {
  plugin: 'postgres12',
  database: 'temporal',
  visibilityDatabase: 'temporal_visibility',
  numHistoryShards: 4,
} as const;

/** The ports of one cluster. */
export interface ClusterPorts {
  postgres: number;
  frontendHttp: number;
  grpc: Record<Service, number>;
  membership: Record<Service, number>;
}

/**
 * The server's static config (`<root>/config/<env>.yaml`; 1.29 has no `--config-file`): PostgreSQL for the
 * default and the visibility store, one cluster, each service's ports on 127.0.0.1, `dynamicConfigFile` (the
 * test cluster's, `testDynamicConfig`), no metrics listener (a fixed Prometheus address would clash between the per-service processes).
 */
export function serverConfig(ports: ClusterPorts, dynamicConfigFile: string): object {
  const store = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: PERSISTENCE.plugin,
      databaseName,
      connectAddr: `127.0.0.1:${ports.postgres}`,
      connectProtocol: 'tcp',
      user: 'temporal',
      password: 'temporal',
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const rpc = (service: Service) => ({
    rpc: {
      grpcPort: ports.grpc[service],
      membershipPort: ports.membership[service],
      bindOnIP: '127.0.0.1',
      ...(service === 'frontend' ? { httpPort: ports.frontendHttp } : {}),
    },
  });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      numHistoryShards: PERSISTENCE.numHistoryShards,
      datastores: {
        default: store(PERSISTENCE.database, 20),
        visibility: store(PERSISTENCE.visibilityDatabase, 10),
      },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: Object.fromEntries(SERVICES.map((s) => [s, rpc(s)])),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `127.0.0.1:${ports.grpc.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: dynamicConfigFile, pollInterval: '10s' },
  };
}
