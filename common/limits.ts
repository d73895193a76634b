/**
 * Per-backend limits of the providers file (`"limits": { "requestsPerSecond": 5, "maxInFlight": 8 }` on a
 * provider or on one of its models), as plain data that workflow code reads from the worker's
 * `modelRetryConfig` answer (a marker in history), never from the file.
 */
export interface BackendLimits {
  /**
   * At most this many attempts start per second on this backend, across every worker polling the namespace's
   * task queue together (Temporal's task-queue rate limit on the backend's own queue, see {@link limitQueue}).
   */
  requestsPerSecond?: number;
  /** At most this many requests in flight at once to this backend, per worker process. */
  maxInFlight?: number;
}

/**
 * Limits by key: a provider name (`local`: all its models together) or a backend (`local:fast`: that model
 * alone, which wins over its provider's entry).
 */
export type LimitsByKey = Readonly<Record<string, BackendLimits>>;

/**
 * The key whose limits hold for the backend `model` (`provider:model`): the model's own entry, else its
 * provider's, else `undefined` (not limited).
 */
export function limitKeyOf(model: string, limits: LimitsByKey | undefined): string | undefined {
  if (limits === undefined) return undefined;
  if (Object.hasOwn(limits, model)) return model;
  const provider = model.slice(0, Math.max(0, model.indexOf(':')));
  return provider !== '' && Object.hasOwn(limits, provider) ? provider : undefined;
}

/** The task queue of a rate-limited key's attempts: `<taskQueue>/limit/<key>`, polled by every worker. */
export function limitQueue(taskQueue: string, key: string): string {
  return `${taskQueue}/limit/${key}`;
}

/**
 * The task queue an attempt on `model` runs on when a worker of `taskQueue` has these limits: its key's limit
 * queue when the key has a `requestsPerSecond`, else `undefined` (the workflow's own queue).
 */
export function attemptQueueOf(
  taskQueue: string,
  model: string,
  limits: LimitsByKey | undefined,
): string | undefined {
  const key = limitKeyOf(model, limits);
  if (key === undefined || limits?.[key]?.requestsPerSecond === undefined) return undefined;
  return limitQueue(taskQueue, key);
}
