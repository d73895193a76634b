/**
 * The dev server's own count of the requests it served, by gRPC operation (its Prometheus `service_requests`),
 * so a profile can say how many RPCs of each kind a call costs: the figure that separates what a call asks of
 * Temporal from how fast the machine happened to be. Not part of the product.
 */

/** `--metrics-port` for `temporal server start-dev`, so the counts can be read. */
export function metricsArgs(port: number): string[] {
  return ['--metrics-port', String(port)];
}

/**
 * Requests the frontend served so far, by operation (the client's and the worker's, every namespace summed).
 * The server reports its counters about once a second, so this first waits for the last requests to show.
 */
export async function rpcCounts(port: number): Promise<Map<string, number>> {
  await new Promise((resolve) => setTimeout(resolve, 2500));
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

/** What `after` adds to `before`, per call, for the operations that moved: `Op 1.00, Op2 2.01`. */
export function perCall(before: Map<string, number>, after: Map<string, number>, calls: number): string {
  return [...after]
    .map(([op, n]) => [op, (n - (before.get(op) ?? 0)) / calls] as const)
    .filter(([, n]) => n >= 0.005)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([op, n]) => `${op} ${n.toFixed(2)}`)
    .join(', ');
}
