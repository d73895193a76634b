import type { Context } from '@temporalio/activity';

/** How often an attempt heartbeats while it waits (the worker throttles what reaches the server). */
export const HEARTBEAT_INTERVAL_MS = 1000;

/**
 * Heartbeats `details` now and then every `intervalMs` until the returned function is called. Heartbeats are
 * how an activity learns of cancellation, and how the workflow reads `startedAt` after a heartbeat timeout.
 */
export function startHeartbeat(
  ctx: Context,
  details: unknown,
  intervalMs = HEARTBEAT_INTERVAL_MS,
): () => void {
  ctx.heartbeat(details);
  const timer = setInterval(() => ctx.heartbeat(details), intervalMs);
  return () => clearInterval(timer);
}
