/**
 * A bench worker in a process of its own, so a benchmark can read its peak memory and CPU time from /proc:
 * model-retry's worker, or the floor's (`kind` `floor`). Started by `startWorkerProcess` with TEMPORAL_ADDRESS,
 * MODEL_RETRY_PROVIDERS and the loopback key in its environment; argv: task queue, bundle path, tuning JSON, kind.
 * Prints `ready` once it polls; SIGTERM stops it.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { WorkerTuning } from '../../../worker/worker.js';
import { createProcessWorker } from '../floor/worker.js';

async function main(): Promise<void> {
  const [taskQueue, bundlePath, tuningJson, kind] = process.argv.slice(2);
  if (!taskQueue || !bundlePath)
    throw new Error('usage: worker-process TASK_QUEUE BUNDLE_PATH [TUNING_JSON] [model-retry|floor]');
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({
    address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233',
  });
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const tuning = JSON.parse(tuningJson ?? '{}') as WorkerTuning;
  try {
    const workers = await createProcessWorker(kind === 'floor' ? 'floor' : 'model-retry', {
      connection,
      namespace,
      taskQueue,
      bundlePath,
      tuning,
    });
    process.once('SIGTERM', () => workers.shutdown());
    const running = workers.run();
    console.log('ready');
    await running;
  } finally {
    await connection.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('worker-process:', error);
    process.exit(1);
  },
);
