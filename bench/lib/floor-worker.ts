import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { WORKER_TUNING } from '../../worker/worker.js';
import { createFloorOtherActivities } from '../activities/floor-other.js';
import type { BenchContext, BenchWorker } from './context.js';

/**
 * A worker for the floor's plain workflows (`floorPromptWorkflow`, `floorTurnWorkflow`) in this process, on the
 * bench bundle and model-retry's worker settings, so that the floor and model-retry differ only in their code.
 */
export async function startFloorWorker(ctx: BenchContext): Promise<BenchWorker> {
  const taskQueue = `bench-floor-${randomUUID()}`;
  const worker = await Worker.create({
    connection: ctx.native,
    namespace: ctx.namespace,
    taskQueue,
    workflowBundle: { codePath: ctx.bundlePath },
    activities: createFloorOtherActivities(ctx.providers),
    shutdownGraceTime: 2000,
    ...WORKER_TUNING,
  });
  const done = worker.run();
  return {
    taskQueue,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
