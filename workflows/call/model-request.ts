import { proxyActivities } from '@temporalio/workflow';
import type { Priority } from '@temporalio/common';
import { scheduleToCloseMs, START_TO_CLOSE_GRACE_MS } from '../../policy/index.js';
import type { ResolvedPlan } from '../../policy/index.js';
import type { ModelRequestInput, ModelRequestResult } from '../../common/attempt.js';
import type { ModelRequestActivities } from '../../common/attempt-activity.js';
import { DEFAULT_HEARTBEAT_MS, heartbeatTimeoutMs } from '../../common/heartbeat.js';

/**
 * Temporal notices a dead worker after this long without a heartbeat, at the default cadence (the attempt
 * heartbeats every 5 s): 3c. A worker with another cadence says so (`WorkerConfig.heartbeatMs`), and its
 * attempts get 3 times that.
 */
export const HEARTBEAT_TIMEOUT_MS = heartbeatTimeoutMs(DEFAULT_HEARTBEAT_MS);

/**
 * Runs one attempt's activity (`modelRequest`, activity id `<callId>.<attempt>`, no Temporal retry) with the
 * contract's timeouts: start-to-close T + grace, schedule-to-close the deadline less the reserve, a heartbeat
 * timeout (3c, `heartbeatTimeout`), and `WAIT_CANCELLATION_COMPLETED` so a cancelled attempt reports how it ended. `taskQueue` is a
 * rate-limited backend's own queue (`<taskQueue>/limit/<backend>`): an attempt waiting there for the limit is
 * still bounded by its schedule-to-close (the deadline). `priority` is the call's tenant's (see `tenantPriority`),
 * absent for a call without one.
 */
export function modelRequest(
  plan: ResolvedPlan,
  request: ModelRequestInput,
  scheduledAt: number,
  taskQueue?: string,
  heartbeatTimeout: number = HEARTBEAT_TIMEOUT_MS,
  priority?: Priority,
): Promise<ModelRequestResult> {
  const scheduleToClose = scheduleToCloseMs(plan, scheduledAt);
  const { modelRequest: run } = proxyActivities<ModelRequestActivities>({
    activityId: request.modelCallId,
    ...(taskQueue !== undefined ? { taskQueue } : {}),
    summary: `attempt ${request.attempt} · ${request.model}`,
    startToCloseTimeout: request.timeoutMs + START_TO_CLOSE_GRACE_MS,
    ...(scheduleToClose !== undefined ? { scheduleToCloseTimeout: scheduleToClose } : {}),
    heartbeatTimeout,
    retry: { maximumAttempts: 1 },
    cancellationType: 'WAIT_CANCELLATION_COMPLETED',
    ...(priority ? { priority } : {}),
  });
  return run(request);
}
