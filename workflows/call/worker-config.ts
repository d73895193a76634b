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

/**
 * The run's asks (module state is per workflow run in the sandbox), by tenant (`''` for a call without one): the
 * local activity's own promises, each made once. The worker's answer holds the tenants file's entries of the tenant
 * asked for and `*` only, so a run that calls for several tenants asks once for each.
 */
const asked = new Map<string, Promise<WorkerConfig>>();
/** The answers once a caller noted them (`{ config }`; `config` is `undefined` when the worker could not answer). */
const answered = new Map<string, { config: WorkerConfig | undefined }>();

const keyOf = (tenant: string | undefined) => tenant ?? '';

/**
 * The local activity that asks the worker for its settings, started at the first call's start of a run (one
 * marker event) and at the first call of each other tenant, and shared by every caller until it ends. Whoever
 * awaits it passes what came (or `undefined` when it failed) to `noteWorkerConfig`. Returned as is, with nothing
 * chained on it: a chained promise is one more stack trace in Temporal's sandbox.
 */
export function askWorkerConfig(tenant?: string): Promise<WorkerConfig> {
  const key = keyOf(tenant);
  let ask = asked.get(key);
  if (!ask) {
    // The tenant only when there is one: a run without one asks as runs always have.
    ask = tenant === undefined ? modelRetryConfig() : modelRetryConfig({ tenant });
    asked.set(key, ask);
  }
  return ask;
}

/** Keeps the worker's answer for `tenant` (the first one noted wins) and returns it. */
export function noteWorkerConfig(
  config: WorkerConfig | undefined,
  tenant?: string,
): WorkerConfig | undefined {
  const key = keyOf(tenant);
  const kept = answered.get(key) ?? { config };
  answered.set(key, kept);
  return kept.config;
}

/**
 * What the worker says of itself (`WorkerConfig`), asked once per run and tenant through a local activity (one
 * marker event) at the first call's start, since any worker may have limits. `undefined` when the worker cannot
 * answer (a worker of the user's own without model-retry's activities): callers then assume the defaults. Without
 * a tenant, any answer of the run serves: only the tenants' entries differ between them.
 */
export async function workerConfig(tenant?: string): Promise<WorkerConfig | undefined> {
  const known = workerConfigAnswered(tenant);
  if (known) return known.config;
  let config: WorkerConfig | undefined;
  try {
    config = await askWorkerConfig(tenant);
  } catch {
    config = undefined;
  }
  return noteWorkerConfig(config, tenant);
}

/**
 * The worker's answer for `tenant` when it came already (a run's later calls), else `undefined`: a caller that
 * has it needs no await, and so no promise, which Temporal's sandbox pays for with a stack trace. Without a tenant,
 * the run's first answer, whichever tenant it was asked for.
 */
export function workerConfigAnswered(tenant?: string): { config: WorkerConfig | undefined } | undefined {
  if (tenant !== undefined) return answered.get(tenant);
  return answered.get('') ?? answered.values().next().value;
}
