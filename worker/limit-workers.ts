/**
 * The limit queues of one worker process: a rate-limited backend's attempts run on a task queue of its own
 * (`<taskQueue>/limit/<key>`), which every model-retry worker polls with an activity-only Worker on the same
 * connection, so Temporal's task-queue rate limit holds `requestsPerSecond` for all workers together.
 */
import { settleEveryLease } from '../activities/tenants/leases.js';
import { Runtime, Worker } from '@temporalio/worker';
import type { NativeConnection, WorkerOptions } from '@temporalio/worker';
import protoPackage from '@temporalio/proto';
import { limitQueue, queueRates } from '../common/limits.js';
import type { LimitsByKey } from '../common/limits.js';
import type { WorkerSlots } from './tuning.js';

/**
 * The keys that have a `requestsPerSecond`, with the rate of their queue: a provider's queue keeps what its
 * models' own queues leave of its rate (`queueRates`), so both limits hold.
 */
export function rateLimitedKeys(limits: LimitsByKey): [key: string, requestsPerSecond: number][] {
  return queueRates(limits);
}

/**
 * Sets a limit queue's rate through the queue's own config (`UpdateTaskQueueConfig`, server 1.28+), which wins
 * over every worker's option. Returns the problem when the server refuses (an older server, no permission): the
 * workers' `maxTaskQueueActivitiesPerSecond`, which each poll carries (the last poller's wins), then holds it.
 */
export async function setQueueRateLimit(
  connection: NativeConnection,
  namespace: string,
  taskQueue: string,
  requestsPerSecond: number,
): Promise<string | undefined> {
  try {
    await connection.workflowService.updateTaskQueueConfig({
      namespace,
      taskQueue,
      taskQueueType: protoPackage.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
      identity: 'model-retry worker',
      updateQueueRateLimit: {
        rateLimit: { requestsPerSecond },
        reason: 'model-retry providers file: limits.requestsPerSecond',
      },
    });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** What the limit workers share with the process's main worker. */
export type LimitWorkerBase = Pick<
  WorkerOptions,
  | 'connection'
  | 'namespace'
  | 'activities'
  | 'dataConverter'
  | 'shutdownGraceTime'
  | 'maxHeartbeatThrottleInterval'
  | 'defaultHeartbeatThrottleInterval'
  | 'identity'
  | keyof WorkerSlots
> & { connection: NativeConnection; namespace: string };

/** One activity-only Worker per rate-limited key of `limits`, each on its key's limit queue. */
export async function createLimitWorkers(
  base: LimitWorkerBase,
  taskQueue: string,
  limits: LimitsByKey,
  warn: (message: string) => void = (m) => Runtime.instance().logger.warn(m),
): Promise<Worker[]> {
  const workers: Worker[] = [];
  for (const [key, requestsPerSecond] of rateLimitedKeys(limits)) {
    const queue = limitQueue(taskQueue, key);
    const refused = await setQueueRateLimit(base.connection, base.namespace, queue, requestsPerSecond);
    if (refused) {
      warn(
        `model-retry worker: the server did not take the rate limit of task queue "${queue}" (${refused}); ` +
          'the workers hold it through maxTaskQueueActivitiesPerSecond instead (the last poller sets it)',
      );
    }
    workers.push(
      await Worker.create({ ...base, taskQueue: queue, maxTaskQueueActivitiesPerSecond: requestsPerSecond }),
    );
  }
  return workers;
}

/** A process's workers: the main one (workflows and activities) and its limit queues' (activities). */
export interface ModelRetryWorkers {
  /** The worker of the main task queue. */
  worker: Worker;
  /** One per rate-limited backend or provider. */
  limitWorkers: Worker[];
  /** Runs them all until they have all stopped; one stopping (or failing) shuts the others down. */
  run(): Promise<void>;
  /** Shuts down every one still running. */
  shutdown(): void;
}

/** Groups a main worker with its limit workers. */
export function workerGroup(worker: Worker, limitWorkers: Worker[]): ModelRetryWorkers {
  const all = [worker, ...limitWorkers];
  const shutdown = (): void => {
    for (const w of all) if (w.getState() === 'RUNNING') w.shutdown();
  };
  return {
    worker,
    limitWorkers,
    shutdown,
    async run() {
      // Whichever stops first (a shutdown, a failure) stops the rest: the process's queues go together.
      const runs = await Promise.allSettled(all.map((w) => w.run().finally(shutdown)));
      // What this process leased from tenant ledgers and no longer needs goes back, before the connection closes.
      await settleEveryLease().catch(() => undefined);
      const failed = runs.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}
