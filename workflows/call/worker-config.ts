import { proxyLocalActivities } from '@temporalio/workflow';
import type { WorkerConfig, WorkerConfigActivities } from '../../common/worker-config.js';

const { modelRetryConfig } = proxyLocalActivities<WorkerConfigActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
});

/** The run's answer (module state is per workflow run in the sandbox): asked once, then reused. */
let asked: Promise<WorkerConfig | undefined> | undefined;

/**
 * What the worker says of itself (`WorkerConfig`), asked once per run through a local activity (one marker
 * event) at the first call's start, since any worker may have limits. `undefined` when the worker cannot
 * answer (a worker of the user's own without model-retry's activities): callers then assume the defaults.
 */
export function workerConfig(): Promise<WorkerConfig | undefined> {
  asked ??= modelRetryConfig().catch(() => undefined);
  return asked;
}
