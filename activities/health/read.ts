/** Reading a backend's fleet health: its health workflow's memo, and the metrics a worker records from it. */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';
import type { Breaker } from '../../policy/index.js';
import type { HealthSnapshot } from '../../common/health.js';

/** The memo key the health workflow keeps its snapshot under (the workflow's `HEALTH_MEMO_KEY`). */
const MEMO_KEY = 'modelRetryHealth';

/** Reads a health workflow's snapshot from its memo; `undefined` when it does not exist yet. */
export async function readHealth(client: Client, workflowId: string): Promise<HealthSnapshot | undefined> {
  try {
    const d = await client.workflow.getHandle(workflowId).describe();
    const memo = await d.memo;
    return memo?.[MEMO_KEY] as HealthSnapshot | undefined;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/**
 * `model_retry_backend_state` (0 closed, 1 half-open, 2 open) and `model_retry_health_trips` (the trips since
 * `tripsSeen`, the count last read; -1 before the first read), per backend.
 */
export function measureBreaker(
  meter: MetricMeter,
  tags: Record<string, string>,
  breaker: Breaker,
  tripsSeen: number,
): void {
  const value = breaker.phase === 'open' ? 2 : breaker.phase === 'half-open' ? 1 : 0;
  meter
    .createGauge('model_retry_backend_state', 'int', '', 'Fleet health: 0 closed, 1 half-open, 2 open')
    .set(value, tags);
  if (tripsSeen >= 0 && breaker.trips > tripsSeen) {
    meter
      .createCounter('model_retry_health_trips', 'trips', 'Times a backend opened')
      .add(breaker.trips - tripsSeen, tags);
  }
}
