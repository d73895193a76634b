import type { Client } from '@temporalio/client';
import type { History } from '../lib/history.js';
import type { PlannedCall } from '../../test/harness/spawn/load-worker-spec.js';

/** The activity types of one model request: model-retry's attempt, and the floor's. */
const ATTEMPT_TYPES = new Set(['modelRequest', 'floorModelRequest']);

/** How many model requests a history scheduled. */
export function countAttempts(history: History): number {
  return (history.events ?? []).filter((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return typeof name === 'string' && ATTEMPT_TYPES.has(name);
  }).length;
}

/** Terminates the calls still running after the load's time ran out; returns how many. */
export async function terminateRunning(client: Client, calls: readonly PlannedCall[]): Promise<number> {
  let running = 0;
  for (const call of calls) {
    const handle = client.workflow.getHandle(call.workflowId);
    const { status } = await handle.describe();
    if (status.name === 'RUNNING') {
      running += 1;
      await handle.terminate('bench: the load did not finish in time');
    }
  }
  return running;
}

/** Every call's history, `limit` at a time. */
export async function fetchAll(
  client: Client,
  calls: readonly PlannedCall[],
  limit: number,
): Promise<History[]> {
  const out: History[] = new Array<History>(calls.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, calls.length) }, async () => {
      while (next < calls.length) {
        const i = next++;
        out[i] = await client.workflow.getHandle((calls[i] as PlannedCall).workflowId).fetchHistory();
      }
    }),
  );
  return out;
}
