import type { Context } from '@temporalio/activity';

/**
 * How often an attempt heartbeats while it waits (the worker throttles what reaches the server to the same
 * cadence). A cancel reaches the attempt only with the answer to its next heartbeat after the workflow asked for
 * it: at one a second that took up to 1.4 s (a cancel just missing one heartbeat waits for the next), so a 400
 * due 0.9 s after the cancel could still arrive first. 250 ms keeps the abort well under a second.
 */
export const HEARTBEAT_INTERVAL_MS = 250;

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
