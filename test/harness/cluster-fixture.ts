import type { Cluster } from './cluster/cluster.js';
import type { ChaosFixture } from './chaos.js';
import { useChaosFixture } from './fixture.js';
import type { WorkerProcess } from './processes.js';

/**
 * A test/cluster file's chaos fixture (`useChaosFixture`): in the cluster tier its server is a cluster, which
 * `cluster()` returns (for service kills and PostgreSQL restarts); it fails outside that tier.
 */
export function useClusterFixture(options: { workers: number }): {
  fx: ChaosFixture;
  workers: WorkerProcess[];
  cluster(): Cluster;
} {
  const used = useChaosFixture(options);
  return {
    ...used,
    cluster() {
      const cluster = used.fx.server.cluster;
      if (!cluster) throw new Error('test/cluster runs in the cluster tier only: npm run test:cluster');
      return cluster;
    },
  };
}
