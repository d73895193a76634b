/**
 * The response headers of the attempts fleet health watches, kept while each runs: the outcome an attempt reports
 * to its backend's breaker reads a rate-limit reset from them. An attempt's place is opened by the health check
 * before it sends and closed however it ends (an answer, a failure, a cancel, an orphan that ends after its
 * heartbeat timed out); headers of an attempt with no open place (its backend not watched: fleet health off, the
 * default) are not kept at all. So none outlives its attempt, in a worker that runs for months.
 */
import type { ModelRequestInput } from '../../common/attempt.js';

type Headers = Readonly<Record<string, string>>;

/** How many attempts' places every store of this process holds (each `createActivities` has its own store). */
let heldInProcess = 0;

/**
 * How many attempts' response headers this process holds now: zero once no watched attempt runs. For tests and
 * diagnostics (a number that only grows is a leak).
 */
export function attemptHeadersHeld(): number {
  return heldInProcess;
}

/** The key an attempt's headers are kept under: its request id (`X-Request-Id`), unique per attempt. */
export const attemptKey = (input: Pick<ModelRequestInput, 'workflowId' | 'modelCallId'>): string =>
  `${input.workflowId}/${input.modelCallId}`;

/** The response headers of the watched attempts running in one worker process, by attempt. */
export class AttemptHeaders {
  private readonly byAttempt = new Map<string, Headers | undefined>();

  /** Keeps the headers `key`'s attempt will see, until {@link close}. */
  open(key: string): void {
    if (this.byAttempt.has(key)) return;
    this.byAttempt.set(key, undefined);
    heldInProcess += 1;
  }

  /** The attempt's response headers (the latest seen); ignored for an attempt that is not open. */
  record(key: string, headers: Headers): void {
    if (this.byAttempt.has(key)) this.byAttempt.set(key, headers);
  }

  get(key: string): Headers | undefined {
    return this.byAttempt.get(key);
  }

  /** Lets the attempt's headers go. */
  close(key: string): void {
    if (this.byAttempt.delete(key)) heldInProcess -= 1;
  }

  get size(): number {
    return this.byAttempt.size;
  }
}
