/**
 * A model-retry worker in a process of its own, so a benchmark can read its peak memory and CPU time from /proc.
 * Started by `startWorkerProcess` with TEMPORAL_ADDRESS, MODEL_RETRY_PROVIDERS and the loopback key in its
 * environment; argv: task queue, bundle path, tuning JSON. Prints `ready` once it polls; SIGTERM stops it.
 */
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { createModelRetryWorkers } from '../../worker/worker.js';
import type { WorkerTuning } from '../../worker/worker.js';

async function main(): Promise<void> {
  const [taskQueue, bundlePath, tuningJson] = process.argv.slice(2);
  if (!taskQueue || !bundlePath)
    throw new Error('usage: worker-process TASK_QUEUE BUNDLE_PATH [TUNING_JSON]');
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const connection = await NativeConnection.connect({
    address: process.env.TEMPORAL_ADDRESS ?? 'localhost:7233',
  });
  try {
    const workers = await createModelRetryWorkers({
      connection,
      namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
      taskQueue,
      workflowBundle: { codePath: bundlePath },
      shutdownGraceMs: 2000,
      tuning: JSON.parse(tuningJson ?? '{}') as WorkerTuning,
      warn: (m) => console.error(m),
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
