import { proxyLocalActivities, workflowInfo } from '@temporalio/workflow';
import type { CoolingCheckActivities } from '../../common/attempt-activity.js';
import type { HeldAttempt } from '../../common/attempt.js';
import { attemptQueueOf, limitQueue } from '../../common/limits.js';
import type { CallSetup } from './call-setup.js';

/** The check's options; each check adds its own summary (see `routeOf`). */
const CHECK_OPTIONS = { startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 1 } } as const;

/** Where an attempt runs: its backend's limit queue, or the call's own queue (`taskQueue` absent), held or not. */
export interface AttemptRoute {
  taskQueue?: string;
  held?: HeldAttempt;
}

/**
 * Where the attempt on `model` runs. One due on a limit queue whose backends the worker's fleet health watches
 * (`healthWatchedLimits`) is checked first: one local activity (a marker) reading the worker's copy of fleet
 * health, without a query or a probe. A cooling backend's attempt is held off the queue (it would send nothing,
 * yet wait for a rate token and take one) and runs on the call's own queue carrying the cool-down. Any other
 * attempt goes unchecked: no marker where no answer could hold it. A check that does not answer (a worker of the
 * user's own without the activity) leaves the attempt on its queue.
 *
 * Run before the attempt's record opens: the marker moves workflow time, and a cancellation may come while it
 * runs (the caller checks again after it). `summary` (see `checkSummary`) names the decision the check follows:
 * a check after a zero wait is the only event between that decision and a cancel or a stop during it. Not async: the route is known at once unless the check runs, and only
 * then is there a promise (each one costs a stack trace in Temporal's sandbox).
 */
export function routeOf(
  model: string,
  worker: CallSetup['worker'],
  summary: string,
): AttemptRoute | Promise<AttemptRoute> {
  const callQueue = workflowInfo().taskQueue;
  const taskQueue = attemptQueueOf(callQueue, model, worker?.limits);
  if (taskQueue === undefined) return {};
  // No list: a worker from before it, which had every attempt on a limit queue checked (so its runs replay).
  const watched =
    worker?.healthWatchedLimits?.some((key) => limitQueue(callQueue, key) === taskQueue) ?? true;
  if (!watched) return { taskQueue };
  const { backendCooling } = proxyLocalActivities<CoolingCheckActivities>({ ...CHECK_OPTIONS, summary });
  return backendCooling(model).then(
    (retryAfterMs) => (retryAfterMs === undefined ? { taskQueue } : { held: { retryAfterMs } }),
    () => ({ taskQueue }),
  );
}
