/**
 * Brings up a Temporal cluster for tests and tries by hand, with no Docker (test/harness/cluster/cluster.ts): a private
 * PostgreSQL, the schemas, history, matching, frontend and the internal worker as separate processes, and
 * model-retry's search attributes. Prints the frontend's address and runs until Ctrl-C, then removes it all.
 *
 *   bash scripts/with-toolchain.sh tsx test/harness/cluster/main.ts
 */
import { startCluster } from './cluster.js';

const cluster = await startCluster();
console.log(
  `cluster up: TEMPORAL_ADDRESS=${cluster.address} (namespace ${cluster.namespace}; logs in ${cluster.dir})`,
);
console.log('Ctrl-C stops it and removes its folder.');
const stop = () => {
  cluster.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
