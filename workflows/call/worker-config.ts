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

/** The run's ask (module state is per workflow run in the sandbox): the local activity's own promise, made once. */
let asked: Promise<WorkerConfig> | undefined;
/** The answer once a caller noted it (`{ config }`; `config` is `undefined` when the worker could not answer). */
let answered: { config: WorkerConfig | undefined } | undefined;

/**
 * The local activity that asks the worker for its settings, started at the first call's start of a run (one
 * marker event) and shared by every caller until it ends. Whoever awaits it passes what came (or `undefined`
 * when it failed) to `noteWorkerConfig`. Returned as is, with nothing chained on it: a chained promise is one more
 * stack trace in Temporal's sandbox.
 */
export function askWorkerConfig(tenant?: string): Promise<WorkerConfig> {
  // The tenant only when there is one: a run without one asks as runs always have.
  asked ??= tenant === undefined ? modelRetryConfig() : modelRetryConfig({ tenant });
  return asked;
}

/** Keeps the worker's answer (the first one noted wins) and returns the run's config. */
export function noteWorkerConfig(config: WorkerConfig | undefined): WorkerConfig | undefined {
  answered ??= { config };
  return answered.config;
}

/**
 * What the worker says of itself (`WorkerConfig`), asked once per run through a local activity (one marker
 * event) at the first call's start, since any worker may have limits. `undefined` when the worker cannot
 * answer (a worker of the user's own without model-retry's activities): callers then assume the defaults.
 */
export async function workerConfig(tenant?: string): Promise<WorkerConfig | undefined> {
  if (answered) return answered.config;
  let config: WorkerConfig | undefined;
  try {
    config = await askWorkerConfig(tenant);
  } catch {
    config = undefined;
  }
  return noteWorkerConfig(config);
}

/**
 * The worker's answer when it came already (a run's later calls), else `undefined`: a caller that has it needs
 * no await, and so no promise, which Temporal's sandbox pays for with a stack trace.
 */
export function workerConfigAnswered(): { config: WorkerConfig | undefined } | undefined {
  return answered;
}
