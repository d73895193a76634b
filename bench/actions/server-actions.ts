/**
 * The dev server's own count of billable actions (its Prometheus `action` counter, by `action_type`, for one
 * namespace): the figure Temporal Cloud bills, read from the server rather than worked out from histories. Types
 * are as the server names them (`grpc_StartWorkflowExecution`, `command_ScheduleActivityTask`,
 * `grpc_RecordActivityTaskHeartbeat`, ...). The server publishes its counters about once a second: `settledActions`
 * waits until two reads a second apart agree.
 */

/** Actions so far in `namespace`, by action type. */
export async function readActions(port: number, namespace: string): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('action{') || !line.includes(`namespace="${namespace}"`)) continue;
    const type = /action_type="([^"]+)"/.exec(line)?.[1];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (type === undefined || !Number.isFinite(value)) continue;
    counts.set(type, (counts.get(type) ?? 0) + value);
  }
  return counts;
}

/** The counts once they stop moving: two reads `gapMs` apart that agree (at most `timeoutMs` of waiting). */
export async function settledActions(
  port: number,
  namespace: string,
  gapMs = 1200,
  timeoutMs = 15_000,
): Promise<Map<string, number>> {
  const end = Date.now() + timeoutMs;
  let last = await readActions(port, namespace);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, gapMs));
    const now = await readActions(port, namespace);
    if (sameCounts(last, now) || Date.now() > end) return now;
    last = now;
  }
}

function sameCounts(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** What `after` adds to `before`, by action type (types that did not move left out). */
export function actionsBetween(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [type, n] of after) {
    const added = n - (before.get(type) ?? 0);
    if (added > 0) out[type] = added;
  }
  return out;
}

/** A short name for an action type: `grpc_RecordActivityTaskHeartbeat` -> `heartbeat`. */
export function actionName(type: string): string {
  return SHORT[type] ?? type.replace(/^(grpc|command)_/, '');
}

const SHORT: Record<string, string> = {
  grpc_StartWorkflowExecution: 'start',
  grpc_SignalWithStartWorkflowExecution: 'signal-with-start',
  grpc_SignalWorkflowExecution: 'signal',
  grpc_RecordActivityTaskHeartbeat: 'heartbeat',
  grpc_RecordActivityTaskHeartbeatById: 'heartbeat',
  grpc_UpdateWorkflowExecution: 'update',
  grpc_QueryWorkflow: 'query',
  command_ScheduleActivityTask: 'activity',
  command_StartTimer: 'timer',
  command_RecordMarker: 'marker',
  command_BatchMarkers: 'marker',
  message_UpdateWorkflowExecution_Acceptance: 'update',
  command_UpsertWorkflowSearchAttributes: 'upsert',
  command_ModifyWorkflowProperties: 'memo',
  command_ContinueAsNewWorkflowExecution: 'continue-as-new',
  command_StartChildWorkflowExecution: 'child',
  command_SignalExternalWorkflowExecution: 'signal-external',
};
