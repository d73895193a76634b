import { proxyLocalActivities } from '@temporalio/workflow';
import type { WorkerConfig, WorkerConfigActivities } from '../../common/worker-config.js';

/**
 * The answer is an object in the worker's memory: a try that takes seconds is a stalled worker (a GC pause, a
 * saturated event loop), and a fresh try soon after usually answers. Three tries of 3 s with 200 ms and 400 ms
 * between keep the old worst case (about 10 s) while one slow answer no longer fails every cost-budgeted call of
 * the run closed or sends limited attempts around their queues. A worker without the activity (`NotFoundError`)
 * answers at once: it will not have it on the next try either.
 */
const { modelRetryConfig } = proxyLocalActivities<WorkerConfigActivities>({
  startToCloseTimeout: '3 seconds',
  retry: {
    maximumAttempts: 3,
    initialInterval: '200 ms',
    backoffCoefficient: 2,
    nonRetryableErrorTypes: ['NotFoundError'],
  },
});

/** The run's ask (module state is per workflow run in the sandbox): made once, then reused. */
let asked: Promise<WorkerConfig | undefined> | undefined;
/** The answer once it came (`{ config }`; `config` is `undefined` when the worker could not answer). */
let answered: { config: WorkerConfig | undefined } | undefined;

/**
 * What the worker says of itself (`WorkerConfig`), asked once per run through a local activity (one marker
 * event) at the first call's start, since any worker may have limits. `undefined` when the worker cannot
 * answer (a worker of the user's own without model-retry's activities): callers then assume the defaults.
 */
export function workerConfig(): Promise<WorkerConfig | undefined> {
  asked ??= modelRetryConfig().then(
    (config) => (answered = { config }).config,
    () => (answered = { config: undefined }).config,
  );
  return asked;
}

/**
 * The worker's answer when it came already (a run's later calls), else `undefined`: a caller that has it needs
 * no await, and so no promise, which Temporal's sandbox pays for with a stack trace (issue 22).
 */
export function workerConfigAnswered(): { config: WorkerConfig | undefined } | undefined {
  return answered;
}
