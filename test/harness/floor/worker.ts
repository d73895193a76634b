import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import { HEARTBEAT_INTERVAL_MS } from '../../../activities/heartbeat.js';
import { providersFromEnv } from '../../../activities/providers/registry.js';
import type { ProviderRegistry } from '../../../activities/providers/registry.js';
import { createModelRetryWorkers, otherTuning, workerSlots } from '../../../worker/worker.js';
import type { WorkerTuning } from '../../../worker/worker.js';
import { createFloorActivities } from './activities.js';
import type { BenchContext } from '../lab.js';
import { runWorker } from '../run-worker.js';
import type { BenchWorker } from '../run-worker.js';
import type { LoadWorkerKind } from '../spawn/load-worker-spec.js';

/** What a floor worker is given; `tuning` as model-retry's worker takes it (plus the eager-activity option). */
export interface FloorWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  bundlePath: string;
  providers: () => ProviderRegistry;
  tuning?: WorkerTuning & Pick<WorkerOptions, 'maxEagerActivityReservationsPerWorkflowTask'>;
}

/**
 * The floor's worker (test/harness/floor/workflows.ts, test/harness/floor/activities.ts): a plain Worker with model-retry's
 * worker settings (the same slots, the same heartbeat throttle), so that the floor and model-retry differ only in
 * their code. Every benchmark's floor runs on it, in the bench's process or in a worker process.
 */
export function createFloorWorker(options: FloorWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: { codePath: options.bundlePath },
    activities: createFloorActivities(options.providers),
    shutdownGraceTime: 2000,
    maxHeartbeatThrottleInterval: HEARTBEAT_INTERVAL_MS,
    ...workerSlots(options.tuning),
    ...otherTuning(options.tuning),
  });
}

/** A floor worker in this process, on a task queue of its own. */
export async function startFloorWorker(ctx: BenchContext): Promise<BenchWorker> {
  const taskQueue = `bench-floor-${randomUUID()}`;
  const worker = await createFloorWorker({
    connection: ctx.native,
    namespace: ctx.namespace,
    taskQueue,
    bundlePath: ctx.bundlePath,
    providers: () => ctx.providers,
  });
  return runWorker(worker, taskQueue);
}

/**
 * The worker of a bench process (`test/harness/spawn/worker-process.ts`): model-retry's (`createModelRetryWorkers`,
 * the providers file from the environment) or the floor's, on the same settings.
 */
export function createProcessWorker(
  kind: LoadWorkerKind,
  options: Omit<FloorWorkerOptions, 'providers'>,
): Promise<{ run(): Promise<void>; shutdown(): void }> {
  const { connection, namespace, taskQueue, bundlePath, tuning } = options;
  if (kind === 'floor') {
    const providers = providersFromEnv(process.env);
    return createFloorWorker({ ...options, providers: () => providers });
  }
  return createModelRetryWorkers({
    connection,
    namespace,
    taskQueue,
    workflowBundle: { codePath: bundlePath },
    shutdownGraceMs: 2000,
    ...(tuning ? { tuning } : {}),
    warn: (m) => console.error(m),
  });
}
