import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import type { NativeConnection, WorkflowBundleOption } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import type { ActivityDeps } from '../activities/index.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from './config.js';

/** Path of the workflows entry, as TypeScript source (tsx, tests) or compiled JavaScript (dist). */
export function workflowsPath(): string {
  for (const ext of ['ts', 'js']) {
    const path = fileURLToPath(new URL(`../workflows/index.${ext}`, import.meta.url));
    if (existsSync(path)) return path;
  }
  throw new Error('model-retry: cannot find workflows/index.ts or workflows/index.js next to worker/');
}

export interface ModelRetryWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** What the activities need (providers, tools). */
  deps?: ActivityDeps;
  /** A prebuilt bundle (tests build it once); by default the workflows are bundled at start. */
  workflowBundle?: WorkflowBundleOption;
  /** @default 60000 */
  shutdownGraceMs?: number;
  identity?: string;
}

/** A Temporal worker that runs model-retry's workflows and activities on one task queue. */
export async function createModelRetryWorker(options: ModelRetryWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : { workflowsPath: workflowsPath() }),
    activities: createActivities(options.deps),
    shutdownGraceTime: options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
    // Attempts learn of cancellation only through heartbeat responses: send them at least every second so a
    // host's cancel aborts the request in flight within about a second (heartbeats add no history events).
    maxHeartbeatThrottleInterval: '1 second',
    ...(options.identity ? { identity: options.identity } : {}),
  });
}
