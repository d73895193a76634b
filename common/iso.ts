/** Milliseconds since the epoch as an ISO time (a workflow passes its own `Date.now()`; no clock is read here). */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
