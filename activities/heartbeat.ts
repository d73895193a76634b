import type { Context } from '@temporalio/activity';
import { DEFAULT_HEARTBEAT_MS } from '../common/heartbeat.js';

/**
 * How often an attempt heartbeats while it waits, by default (the worker throttles what reaches the server to the
 * same cadence, `DEFAULT_HEARTBEAT_MS`): a cancel reaches the attempt with the answer to its next heartbeat, so
 * within this plus a round trip, and each recorded heartbeat is an action Temporal Cloud bills.
 */
export const HEARTBEAT_INTERVAL_MS = DEFAULT_HEARTBEAT_MS;

/**
 * Heartbeats `details` every `intervalMs` (at most half the activity's heartbeat timeout) until the returned
 * function is called. Heartbeats are how an activity
 * learns of cancellation, and how the workflow reads `startedAt` after a heartbeat timeout.
 *
 * The first one goes after `intervalMs`, not at once: an activity that ends sooner (a model that answers at
 * once) makes no heartbeat RPC at all, which a plain activity does not make either, so a short attempt costs no more. Nothing is
 * lost by the wait: a cancel still arrives with the first heartbeat's answer (as it would have with the second
 * one's), and the heartbeat timeout (seconds) is far longer than `intervalMs`. A worker that dies before its
 * first heartbeat leaves no `startedAt` to read: the attempt's record then takes the time of its scheduled event
 * (the contract's fallback).
 */
export function startHeartbeat(
  ctx: Context,
  details: unknown,
  intervalMs = HEARTBEAT_INTERVAL_MS,
): () => void {
  // Never so rarely that the heartbeat timeout could run out between two beats.
  const timeoutMs = ctx.info.heartbeatTimeoutMs;
  const every = timeoutMs ? Math.min(intervalMs, timeoutMs / 2) : intervalMs;
  // One grid of beats per activity, from the first loop's start: a second loop (the request after the fleet-health
  // check) beats when the first one would have, so a cancel is heard within one interval of the activity's start,
  // not one interval after each loop began.
  const origin = origins.get(ctx) ?? Date.now();
  origins.set(ctx, origin);
  const beat = () => ctx.heartbeat(details);
  let timer: ReturnType<typeof setInterval> | undefined;
  const first = setTimeout(
    () => {
      beat();
      timer = setInterval(beat, every);
    },
    every - ((Date.now() - origin) % every),
  );
  return () => {
    clearTimeout(first);
    if (timer !== undefined) clearInterval(timer);
  };
}

/** When each running activity's first heartbeat loop began (weakly held: gone with the activity's context). */
const origins = new WeakMap<Context, number>();
