/**
 * The dev server's own count of the requests its frontend served, by gRPC operation (its Prometheus
 * `service_requests`, every caller and namespace summed), so a load can say how many requests of each kind its
 * calls cost the server: the figure that separates what a call asks of Temporal from how fast the machine was.
 * The server publishes its counters about once a second: read them a second or more after the requests.
 */

/** `--metrics-port` for `temporal server start-dev`, so the counts can be read. */
export function metricsArgs(port: number): string[] {
  return ['--metrics-port', String(port)];
}

/** Requests the frontend served so far, by operation. */
export async function readServerRequests(port: number): Promise<Map<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('service_requests{') || !line.includes('service_name="frontend"')) continue;
    const operation = /operation="([^"]+)"/.exec(line)?.[1];
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (operation === undefined || !Number.isFinite(value)) continue;
    counts.set(operation, (counts.get(operation) ?? 0) + value);
  }
  return counts;
}

/**
 * The bench's own requests, left out of a load's count: its reads of the histories after the load (a worker's
 * long poll for a result is `PollWorkflowExecutionHistory`, which stays) and its terminations of calls still
 * running at the time limit.
 */
export const BENCH_OPERATIONS: ReadonlySet<string> = new Set([
  'GetWorkflowExecutionHistory',
  'TerminateWorkflowExecution',
]);

/** What `after` adds to `before`, per call, for the operations that moved, the bench's own left out. */
export function requestsPerCall(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  calls: number,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [operation, n] of after) {
    if (BENCH_OPERATIONS.has(operation)) continue;
    const added = (n - (before.get(operation) ?? 0)) / calls;
    if (added >= 0.005) out[operation] = added;
  }
  return out;
}
