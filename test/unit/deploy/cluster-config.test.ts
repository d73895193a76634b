import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  DYNAMIC_CONFIG_FILE,
  PERSISTENCE,
  SERVICES,
  TEST_DYNAMIC_CONFIG,
  serverConfig,
  testDynamicConfig,
} from '../../harness/cluster/config.js';
import type { ClusterPorts } from '../../harness/cluster/config.js';
import { TEMPORAL_SERVER_VERSION } from '../../harness/cluster/tools.js';

interface Service {
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
}
const compose = parse(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, Service> };
const temporal = compose.services.temporal ?? {};
const ports = (n: number) => Object.fromEntries(SERVICES.map((s, i) => [s, n + i])) as ClusterPorts['grpc'];
const native = serverConfig(
  { postgres: 5999, frontendHttp: 7243, grpc: ports(7233), membership: ports(6933) },
  '/tmp/cluster/config/dynamicconfig.yaml',
) as {
  persistence: {
    numHistoryShards: number;
    datastores: Record<string, { sql: { pluginName: string; databaseName: string } }>;
  };
  dynamicConfigClient: { filepath: string };
};

describe('docker-compose.yml and the native test cluster (test/harness/cluster/) agree', () => {
  it('on the server version, which the build script builds', () => {
    expect(temporal.image).toBe(`temporalio/auto-setup:${TEMPORAL_SERVER_VERSION}`);
    expect(compose.services['temporal-admin']?.image).toBe(
      `temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`,
    );
    expect(readFileSync('scripts/cluster-build.sh', 'utf8')).toContain(
      `server_version="v${TEMPORAL_SERVER_VERSION}"`,
    );
  });

  it('on persistence: PostgreSQL through the postgres12 plugin, the same databases and shard count', () => {
    expect(temporal.environment?.DB).toBe(PERSISTENCE.plugin);
    expect(Object.values(native.persistence.datastores).map((d) => d.sql)).toEqual([
      expect.objectContaining({ pluginName: 'postgres12', databaseName: 'temporal' }),
      expect.objectContaining({ pluginName: 'postgres12', databaseName: 'temporal_visibility' }),
    ]);
    expect(Number(temporal.environment?.NUM_HISTORY_SHARDS)).toBe(native.persistence.numHistoryShards);
    // Compose's PostgreSQL is 16, the native cluster's is Debian's 15: both are what postgres12 supports.
    expect(compose.services.postgresql?.image).toBe('postgres:16');
  });

  it('on dynamic config: compose mounts the shared file, which the native cluster reads with one test setting', () => {
    const mount = (temporal.volumes ?? [])
      .map((v) => v.split(':'))
      .find(([, to]) => to?.endsWith('/dynamicconfig'));
    expect(mount, 'a volume mounting the dynamic config folder').toBeDefined();
    const [from = '', to = ''] = mount ?? [];
    expect(resolve(from)).toBe(dirname(DYNAMIC_CONFIG_FILE));
    expect(to).toBe('/etc/temporal/config/dynamicconfig');
    expect(temporal.environment?.DYNAMIC_CONFIG_FILE_PATH).toBe(
      `config/dynamicconfig/${basename(DYNAMIC_CONFIG_FILE)}`,
    );
    expect(native.dynamicConfigClient.filepath).toBe('/tmp/cluster/config/dynamicconfig.yaml');
    const shared = parse(readFileSync(DYNAMIC_CONFIG_FILE, 'utf8')) as Record<string, unknown>;
    expect(testDynamicConfig()).toEqual({ ...shared, ...TEST_DYNAMIC_CONFIG });
    expect(Object.keys(TEST_DYNAMIC_CONFIG)).toEqual(['history.timerProcessorMaxTimeShift']);
  });

  it('with the dev server defaults model-retry relies on: a new search attribute usable at once', () => {
    const shared = parse(readFileSync(DYNAMIC_CONFIG_FILE, 'utf8')) as Record<string, { value: unknown }[]>;
    expect(shared['system.forceSearchAttributesCacheRefreshOnRead']?.[0]?.value).toBe(true);
    // A real cluster keeps Temporal's 1 s timer look-ahead; only the test cluster lowers it, as the dev server.
    expect(shared['history.timerProcessorMaxTimeShift']).toBeUndefined();
    expect(testDynamicConfig()['history.timerProcessorMaxTimeShift']).toEqual([{ value: '10ms' }]);
  });

  it("orders a task queue by priority (the new matcher), so the health workflows' tasks go first", () => {
    const shared = parse(readFileSync(DYNAMIC_CONFIG_FILE, 'utf8')) as Record<string, { value: unknown }[]>;
    expect(shared['matching.useNewMatcher']).toEqual([{ value: true }]);
  });

  it("serves a backlogged task queue by each tenant's weight (task fairness on)", () => {
    const shared = parse(readFileSync(DYNAMIC_CONFIG_FILE, 'utf8')) as Record<string, { value: unknown }[]>;
    expect(shared['matching.enableFairness']).toEqual([{ value: true }]);
  });
});
