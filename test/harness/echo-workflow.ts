import { proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { HarnessActivities } from './echo-activity.js';

export interface HarnessInput {
  message: string;
  /** Length of the durable timer before the activity runs, in ms. */
  waitMs: number;
}

export interface HarnessResult {
  echoed: string;
  waitedMs: number;
}

const { echo } = proxyActivities<HarnessActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 1 },
});

/**
 * The smallest real workflow: a durable timer, then an activity. It proves a server, a worker and the bundle
 * work together (the test harness and `model-retry doctor`-style checks use it).
 */
export async function harnessWorkflow(input: HarnessInput): Promise<HarnessResult> {
  const before = Date.now();
  await sleep(input.waitMs, { summary: `wait ${input.waitMs} ms` });
  const waitedMs = Date.now() - before;
  const echoed = await echo(`${input.message} (from ${workflowInfo().workflowId})`);
  return { echoed, waitedMs };
}
