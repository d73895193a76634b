/**
 * The dev server's own count of the requests it served, by gRPC operation, for the profiles: the bench's reader
 * (`bench/lib/server-requests.ts`, the one place that parses the server's metrics) after a wait for the last
 * requests to show. Not part of the product.
 */
import { readServerRequests } from '../lib/server-requests.js';

export { metricsArgs } from '../lib/server-requests.js';

/**
 * Requests the frontend served so far, by operation (the client's and the worker's, every namespace summed).
 * The server reports its counters about once a second, so this first waits for the last requests to show.
 */
export async function rpcCounts(port: number): Promise<Map<string, number>> {
  await new Promise((resolve) => setTimeout(resolve, 2500));
  return readServerRequests(port);
}

/** What `after` adds to `before`, per call, for the operations that moved: `Op 1.00, Op2 2.01`. */
export function perCall(before: Map<string, number>, after: Map<string, number>, calls: number): string {
  return [...after]
    .map(([op, n]) => [op, (n - (before.get(op) ?? 0)) / calls] as const)
    .filter(([, n]) => n >= 0.005)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([op, n]) => `${op} ${n.toFixed(2)}`)
    .join(', ');
}
