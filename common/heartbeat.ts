/**
 * The attempt's heartbeat cadence `c`: the worker's `maxHeartbeatThrottleInterval`, and how often an attempt
 * (and a tool) heartbeats while it waits. Temporal Cloud bills every recorded heartbeat as an action, so the
 * default is chosen for cost: at 5 s a call answered in 10 s costs two heartbeats, where 250 ms cost forty. A
 * cancel reaches the request with the answer to the next heartbeat, so within `c` plus a round trip.
 */
export const DEFAULT_HEARTBEAT_MS = 5_000;

/**
 * The heartbeat timeout of an attempt on a worker heartbeating every `heartbeatMs`: three beats missed, so a
 * lost worker is known within 3c while one late beat (a GC pause, a loaded event loop) is not taken for one.
 * An absent or unusable cadence (a worker from before the setting) is the default's.
 */
export function heartbeatTimeoutMs(heartbeatMs: number | undefined): number {
  const c =
    typeof heartbeatMs === 'number' && Number.isFinite(heartbeatMs) && heartbeatMs > 0
      ? heartbeatMs
      : DEFAULT_HEARTBEAT_MS;
  return 3 * c;
}

/**
 * The shortest cadence a worker takes: below it the heartbeat timeout (3c) is shorter than a busy worker's pauses,
 * and healthy attempts would read `WorkerLost`.
 */
export const MIN_HEARTBEAT_MS = 100;

/**
 * `value` as a heartbeat cadence, or the reason it is not one (`name` says where it came from): a whole number
 * of milliseconds, at least {@link MIN_HEARTBEAT_MS}.
 */
export function checkHeartbeatMs(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_HEARTBEAT_MS) {
    throw new RangeError(
      `\`${name}\` must be a whole number of milliseconds, at least ${MIN_HEARTBEAT_MS} (got ${JSON.stringify(value)})`,
    );
  }
  return value;
}
