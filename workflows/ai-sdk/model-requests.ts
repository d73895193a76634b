/**
 * What `durableModel` and `durableEmbeddingModel` share: the plan of every request a model object makes, the part
 * of a call's `spent` that is its own, and a request that an AI SDK abort signal cancels as a host cancel would.
 */
import { CancellationScope, isCancellation } from '@temporalio/workflow';
import type { RetryPlan, Spent } from '../../policy/index.js';

/**
 * The plan of a durable model's requests when its options give none: about what the AI SDK does by default
 * (`maxRetries: 2`, 2 s doubling, retry-after honoured up to 60 s), with model-retry's classes and actions deciding.
 */
export const DEFAULT_DURABLE_MODEL_PLAN: RetryPlan = {
  maxAttempts: 3,
  backoff: { initialMs: 2000, factor: 2, maxMs: 4000, jitterMs: 0 },
  retryAfter: { honor: true, maxMs: 60000 },
};

/** The options of a model object that make its requests' plan. */
export interface PlanOptions {
  retry?: RetryPlan | false | null;
  deadline?: string;
  deadlineInMs?: number;
  reserveMs?: number;
}

/**
 * The plan with the model object's deadline in it: without `retry`, the default plan; `retry: false` (or `null`),
 * one attempt (bounded by the deadline when there is one).
 */
export function planOf({ retry, deadline, deadlineInMs, reserveMs }: PlanOptions): RetryPlan | false {
  const base =
    retry === undefined ? DEFAULT_DURABLE_MODEL_PLAN : retry === false || retry === null ? false : retry;
  const bounds = {
    ...(deadline !== undefined ? { deadline } : {}),
    ...(deadlineInMs !== undefined ? { deadlineInMs } : {}),
    ...(reserveMs !== undefined ? { reserveMs } : {}),
  };
  if (Object.keys(bounds).length === 0) return base;
  return base === false ? { maxAttempts: 1, ...bounds } : { ...base, ...bounds };
}

/** What `a` spent beyond `b` (a call's own part of its `spent`, which counts from the `before` it was given). */
export function ownSpent(a: Spent, b: Spent): Spent {
  return {
    inputTokens: a.inputTokens - b.inputTokens,
    outputTokens: a.outputTokens - b.outputTokens,
    totalTokens: a.totalTokens - b.totalTokens,
    costUsd: a.costUsd - b.costUsd,
  };
}

/**
 * Runs `call` in a cancellable scope of its own, which `signal` (the AI SDK's abort signal) cancels as a host
 * cancel would: it then rejects with the signal's reason. A cancellation of the workflow itself rejects with
 * Temporal's own `CancelledFailure`, so the run ends cancelled. `onScope` gets the scope's cancel (a stream's reader
 * may cancel the call too).
 */
export async function runCancellable<T>(
  call: () => Promise<T>,
  signal: AbortSignal | undefined,
  onScope?: (cancel: () => void) => void,
): Promise<T> {
  if (signal?.aborted) throw signal.reason;
  const outer = CancellationScope.current();
  const scope = new CancellationScope({ cancellable: true });
  const cancel = () => scope.cancel();
  onScope?.(cancel);
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    return await scope.run(call);
  } catch (error) {
    if (signal?.aborted && isCancellation(error) && !outer.consideredCancelled) throw signal.reason;
    throw error;
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}
