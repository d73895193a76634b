/** The longest delay `setTimeout` takes (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Why the activity stopped its own request. */
export type StoppedBy = 'timeout' | 'cancelled';

/** The signal of one request, and which of the activity's reasons stopped it first. */
export interface RequestSignal {
  signal: AbortSignal;
  /** The first reason that stopped the request; `undefined` while nothing did. */
  stoppedBy(): StoppedBy | undefined;
  /** Clears the timer and the listener. */
  dispose(): void;
}

/**
 * An abort signal for one request that fires when the request timeout T runs out (a `TimeoutError`) or when
 * the activity is cancelled (the activity's own reason), and remembers which came first, so the outcome is
 * read from what happened, not from the shape of whatever the HTTP client threw.
 */
export function requestSignal(cancellation: AbortSignal, timeoutMs: number): RequestSignal {
  const controller = new AbortController();
  let stoppedBy: StoppedBy | undefined;
  const stop = (why: StoppedBy, reason: unknown): void => {
    if (stoppedBy !== undefined) return;
    stoppedBy = why;
    controller.abort(reason);
  };
  const ms = Number.isFinite(timeoutMs) ? Math.min(Math.max(0, timeoutMs), MAX_TIMER_MS) : MAX_TIMER_MS;
  const timer = setTimeout(
    () => stop('timeout', new DOMException(`no complete answer within ${ms} ms`, 'TimeoutError')),
    ms,
  );
  const onCancel = (): void => stop('cancelled', cancellation.reason);
  if (cancellation.aborted) onCancel();
  else cancellation.addEventListener('abort', onCancel, { once: true });
  return {
    signal: controller.signal,
    stoppedBy: () => stoppedBy,
    dispose() {
      clearTimeout(timer);
      cancellation.removeEventListener('abort', onCancel);
    },
  };
}
