import { startCluster } from './cluster/cluster.js';
import type { Cluster } from './cluster/cluster.js';
import { SERVICES } from './cluster/config.js';
import { startDevServer } from '../../worker/dev-server.js';
import type { DevServer } from '../../worker/dev-server.js';
import { devServerPid, isAlive } from './processes.js';
import { until } from './until.js';

/**
 * Which Temporal server the tests run on: `dev` (the CLI's dev server on SQLite, the default) or `cluster` (the
 * services as separate processes on PostgreSQL, `test/harness/cluster/`): `MODEL_RETRY_TEST_SERVER`, which the
 * vitest `cluster` project sets. The chaos files and the scenario suite run unchanged on either.
 */
export type TestServerKind = 'dev' | 'cluster';

export function testServerKind(env: Partial<NodeJS.ProcessEnv> = process.env): TestServerKind {
  const kind = env.MODEL_RETRY_TEST_SERVER ?? 'dev';
  if (kind !== 'dev' && kind !== 'cluster') {
    throw new Error(`MODEL_RETRY_TEST_SERVER must be 'dev' or 'cluster' (got '${kind}')`);
  }
  return kind;
}

/** A Temporal server of a test's own. */
export interface TestServer {
  address: string;
  namespace: string;
  /** The cluster, when the server is one (for service kills and PostgreSQL restarts). */
  cluster?: Cluster;
  /**
   * `kill -9` the whole server and start it again on the same data and port: the dev server on its SQLite file,
   * or every service of the cluster on its database (PostgreSQL stays up). Resolves once it serves again.
   */
  killAndRestart(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a server of `kind`; a dev server keeps its workflows in `dbFilename` (so that a restart finds them). */
export async function startTestServer(options: {
  kind?: TestServerKind;
  dbFilename: string;
}): Promise<TestServer> {
  return (options.kind ?? testServerKind()) === 'cluster'
    ? clusterServer(await startCluster())
    : devServer(options.dbFilename);
}

function clusterServer(cluster: Cluster): TestServer {
  return {
    address: cluster.address,
    namespace: cluster.namespace,
    cluster,
    async killAndRestart() {
      await Promise.all(SERVICES.map((s) => cluster.kill9(s)));
      for (const s of SERVICES) await cluster.start(s);
      await cluster.waitUntilServing();
    },
    stop: () => cluster.stop(),
  };
}

async function devServer(dbFilename: string): Promise<TestServer> {
  let server: DevServer = await startDevServer({ dbFilename });
  const port = Number(server.address.slice(server.address.lastIndexOf(':') + 1));
  const stale: DevServer[] = [];
  return {
    address: server.address,
    namespace: server.namespace,
    async killAndRestart() {
      const pid = devServerPid(dbFilename);
      process.kill(pid, 'SIGKILL');
      await until('the killed dev server to be gone', () => (isAlive(pid) ? undefined : true), 30_000);
      stale.push(server);
      server = await startDevServer({ dbFilename, port });
    },
    async stop() {
      // The killed server's environment only has connections left to close.
      for (const s of stale) await s.stop().catch(() => undefined);
      await server.stop();
    },
  };
}
