import pRetry from 'p-retry';

/**
 * Polls `probe` every `intervalMs` until it returns something other than `undefined` (a thrown error counts as
 * "not yet"), failing after `timeoutMs` with `what` and the last error. Every readiness wait of the cluster is one
 * of these: nothing sleeps in place of a check.
 */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
  intervalMs = 100,
): Promise<T> {
  const started = Date.now();
  try {
    return await pRetry(
      async () => {
        const value = await probe();
        if (value === undefined) throw new Error('not yet');
        return value;
      },
      { retries: Number.POSITIVE_INFINITY, factor: 1, minTimeout: intervalMs, maxRetryTime: timeoutMs },
    );
  } catch (error) {
    throw new Error(
      `timed out after ${Date.now() - started} ms waiting for ${what} (last: ${String(error)})`,
      {
        cause: error,
      },
    );
  }
}
