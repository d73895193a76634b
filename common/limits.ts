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
  /**
   * At most this many tokens (input bound + output bound) per rolling minute to this backend, across every worker
   * of the namespace: a bucket kept by a ledger workflow, fed by billed usage and the provider's remaining-tokens
   * headers. An attempt that does not fit waits (`CoolingDown`) instead of meeting a 429.
   */
  tokensPerMinute?: number;
}

/**
 * Limits by key: a provider name (`local`: all its models together) or a backend (`local:fast`: that model
 * alone). Both hold for a backend that has both: its own and its provider's.
 */
export type LimitsByKey = Readonly<Record<string, BackendLimits>>;

/**
 * The key whose limits hold for the backend `model` (`provider:model`): the model's own entry, else its
 * provider's, else `undefined` (not limited). See {@link limitKeysOf} for every key that holds.
 */
export function limitKeyOf(model: string, limits: LimitsByKey | undefined): string | undefined {
  return limitKeysOf(model, limits).at(-1);
}

/**
 * Every key whose limits hold for the backend `model`: its provider's entry first, then its own (a model's
 * limits add to its provider's, they do not replace them). Empty when neither has an entry.
 */
export function limitKeysOf(model: string, limits: LimitsByKey | undefined): string[] {
  if (limits === undefined) return [];
  const provider = model.slice(0, Math.max(0, model.indexOf(':')));
  return [provider, model].filter((key) => key !== '' && Object.hasOwn(limits, key));
}

/** The task queue of a rate-limited key's attempts: `<taskQueue>/limit/<key>`, polled by every worker. */
export function limitQueue(taskQueue: string, key: string): string {
  return `${taskQueue}/limit/${key}`;
}

/**
 * The task queue an attempt on `model` runs on when a worker of `taskQueue` has these limits: the limit queue
 * of the model's own `requestsPerSecond`, else of its provider's, else `undefined` (the workflow's own queue).
 * A model with its own rate and a provider with one both hold through {@link queueRates}.
 */
export function attemptQueueOf(
  taskQueue: string,
  model: string,
  limits: LimitsByKey | undefined,
): string | undefined {
  const key = limitKeysOf(model, limits)
    .filter((k) => limits?.[k]?.requestsPerSecond !== undefined)
    .at(-1);
  return key === undefined ? undefined : limitQueue(taskQueue, key);
}

/**
 * The rate of each limit queue, so that every `requestsPerSecond` holds although an attempt runs on one queue
 * only. A model's own queue takes its own rate; its provider's queue (the provider's other models) takes what
 * is left of the provider's rate. When the models' rates leave less than half of it, they are scaled down
 * together to half of it and the provider's queue keeps the other half (see
 * docs/decisions/fleet-health-limits/009-limits-per-provider-and-model.md).
 */
export function queueRates(limits: LimitsByKey): [key: string, requestsPerSecond: number][] {
  const rates = new Map<string, number>();
  for (const [key, l] of Object.entries(limits)) {
    if (l.requestsPerSecond !== undefined) rates.set(key, l.requestsPerSecond);
  }
  for (const [provider, total] of [...rates].filter(([k]) => !k.includes(':'))) {
    const models = [...rates].filter(([k]) => k.startsWith(`${provider}:`));
    const used = models.reduce((sum, [, r]) => sum + r, 0);
    if (models.length === 0) continue;
    const scale = used <= total / 2 ? 1 : total / 2 / used;
    for (const [k, r] of models) rates.set(k, r * scale);
    rates.set(provider, total - used * scale);
  }
  return [...rates];
}
