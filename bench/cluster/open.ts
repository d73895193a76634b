import { Client, Connection } from '@temporalio/client';
import { startCluster } from '../../test/harness/cluster/cluster.js';
import type { Cluster } from '../../test/harness/cluster/cluster.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { treeCpuSeconds } from '../../test/harness/spawn/proc.js';

/** The run's bench context moved onto a cluster of the cluster tier, and that cluster. */
export interface ClusterBench {
  /** The same bundle, loopback provider, providers file and model ids as the run's; the cluster's server. */
  ctx: BenchContext;
  cluster: Cluster;
  /** CPU seconds the cluster has used so far: every service process and PostgreSQL with its backends. */
  cpuSeconds(): number | undefined;
  close(): Promise<void>;
}

/**
 * Brings up the cluster tier's cluster (`test/harness/cluster/`: services as processes on a private PostgreSQL, the
 * same dynamic config; binaries from the cache, built by `scripts/cluster-build.sh` the first time) and a bench
 * context on it that shares everything else with the run's: worker processes started from it poll the cluster,
 * calls started from it go to the cluster. Only worker processes (`startWorkerProcess`) run on it.
 */
export async function openClusterBench(run: BenchContext): Promise<ClusterBench> {
  const started = Date.now();
  const cluster = await startCluster();
  const connection = await Connection.connect({ address: cluster.address }).catch(async (error: unknown) => {
    await cluster.stop();
    throw error;
  });
  run.log(`bench: cluster at ${cluster.address} (${Date.now() - started} ms)`);
  const inProcess = () =>
    Promise.reject(new Error('bench: on the cluster, workers run in their own process'));
  const ctx: BenchContext = {
    ...run,
    address: cluster.address,
    namespace: cluster.namespace,
    client: new Client({ connection, namespace: cluster.namespace }),
    startWorker: inProcess,
    startServerRetryWorker: inProcess,
    close: () => Promise.reject(new Error('bench: close the cluster bench, not its context')),
  };
  return {
    ctx,
    cluster,
    cpuSeconds() {
      const { services, postgres } = cluster.pids();
      const pids = postgres !== undefined ? [...services, postgres] : services;
      const each = pids.map(treeCpuSeconds);
      return each.some((s) => s === undefined) ? undefined : each.reduce((n: number, s) => n + (s ?? 0), 0);
    },
    async close() {
      await connection.close();
      await cluster.stop();
    },
  };
}
