/** The outage benchmark's size and the policy its calls use. */
export interface OutagePlan {
  calls: number;
  workers: number;
  retriesPerBackend: number;
  /** The calls' waits (ms), one per same-backend retry and one spare. */
  waitMs: number;
  /** The breaker: failures within the window trip it; the cool-down of the waves and of the recovery part. */
  threshold: number;
  windowMs: number;
  coolDownMs: number;
  recoveryCoolDownMs: number;
  /** The 429s' retry-after (s) once A's 503s are used up. */
  retryAfterS: number;
  /** Recovery: a new call every this many ms, at most this many calls. */
  recoveryIntervalMs: number;
  recoveryMaxCalls: number;
}

export const FULL: OutagePlan = {
  calls: 200,
  workers: 2,
  retriesPerBackend: 2,
  waitMs: 1000,
  threshold: 5,
  windowMs: 30_000,
  coolDownMs: 30_000,
  recoveryCoolDownMs: 10_000,
  retryAfterS: 30,
  recoveryIntervalMs: 200,
  recoveryMaxCalls: 300,
};
export const QUICK: OutagePlan = {
  ...FULL,
  calls: 8,
  waitMs: 100,
  coolDownMs: 1_500,
  recoveryCoolDownMs: 1_000,
  retryAfterS: 2,
  recoveryIntervalMs: 200,
  recoveryMaxCalls: 25,
};
