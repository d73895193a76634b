import { proxyLocalActivities } from '@temporalio/workflow';
import type { CoolingCheckActivities } from '../../common/attempt-activity.js';

const { backendCooling } = proxyLocalActivities<CoolingCheckActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
});

/**
 * Whether an attempt on `model`, due on its backend's limit queue, should be held off it: the worker's copy of
 * fleet health has the backend cooling, so the attempt would send nothing and must not wait for (nor take) a rate
 * token. One local activity (a marker) per attempt on a rate-limited backend; `false` when the worker cannot
 * answer (a worker of the user's own without model-retry's activities).
 */
export async function heldOffLimitQueue(model: string): Promise<boolean> {
  const cooling = await backendCooling(model).catch(() => undefined);
  return cooling !== undefined;
}
