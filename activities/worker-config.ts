import type { WorkerConfig, WorkerConfigActivities } from '../common/worker-config.js';

/** The `modelRetryConfig` local activity: what this worker tells the workflows it runs (see `WorkerConfig`). */
export function createWorkerConfigActivities(config: WorkerConfig): WorkerConfigActivities {
  const answer = Object.freeze({ ...config });
  return {
    async modelRetryConfig(): Promise<WorkerConfig> {
      return answer;
    },
  };
}
