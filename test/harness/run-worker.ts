import type { Worker } from '@temporalio/worker';

/** A worker the lab runs in this process, on a task queue of its own, until `stop()`. */
export interface BenchWorker {
  taskQueue: string;
  /** Shuts the worker down (gracefully) and waits until it has stopped. */
  stop(): Promise<void>;
}

/** Runs `worker`, polling `taskQueue`, until its handle's `stop()`. */
export function runWorker(worker: Worker, taskQueue: string): BenchWorker {
  const done = worker.run();
  return {
    taskQueue,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
