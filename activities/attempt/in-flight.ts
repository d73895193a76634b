/**
 * `maxInFlight`: at most N requests to a backend at once from this worker process (one `InFlightLimits` per
 * `createActivities`, shared by every Worker of the process, its limit queues' included). Temporal has no
 * fleet-wide concurrency limit, so this is per process by design. A hand-written semaphore because an attempt
 * waiting for a slot must give it up on cancellation or at its timeout (p-limit's queue cannot drop one entry).
 */
import { limitKeyOf } from '../../common/limits.js';
import type { LimitsByKey } from '../../common/limits.js';

/** Releases a slot taken by `InFlightLimits.acquire`. */
export type Release = () => void;

/** Why a wait for a slot ended without one. */
export class NoSlotError extends Error {
  override readonly name = 'NoSlotError';
  constructor(
    readonly reason: 'aborted' | 'timeout',
    readonly key: string,
    readonly maxInFlight: number,
  ) {
    super(`no free slot for "${key}" (maxInFlight ${maxInFlight} on this worker)`);
  }
}

class Semaphore {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(readonly max: number) {}

  /** Resolves when a slot is taken; rejects (and leaves the queue) when `signal` aborts first. */
  take(signal: AbortSignal, onAbort: () => Error): Promise<void> {
    if (signal.aborted) return Promise.reject(onAbort());
    if (this.running < this.max) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal.removeEventListener('abort', abort);
        this.running += 1;
        resolve();
      };
      const abort = (): void => {
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(onAbort());
      };
      this.waiting.push(grant);
      signal.addEventListener('abort', abort, { once: true });
    });
  }

  give(): void {
    this.running -= 1;
    this.waiting.shift()?.();
  }
}

/** The `maxInFlight` semaphores of one worker process, by limit key. */
export class InFlightLimits {
  private readonly semaphores = new Map<string, Semaphore>();

  constructor(private readonly limits: () => LimitsByKey | undefined) {}

  /**
   * Takes a slot for a request to `model` (at once when its key has no `maxInFlight`), waiting at most
   * `timeoutMs` and never past `signal` (the activity's cancellation).
   * @throws NoSlotError when the wait ends without a slot.
   */
  async acquire(model: string, signal: AbortSignal, timeoutMs: number): Promise<Release> {
    const limits = this.limits();
    const key = limitKeyOf(model, limits);
    const max = key === undefined ? undefined : limits?.[key]?.maxInFlight;
    if (key === undefined || max === undefined) return () => undefined;
    let semaphore = this.semaphores.get(key);
    if (!semaphore) this.semaphores.set(key, (semaphore = new Semaphore(max)));
    const timeout = AbortSignal.timeout(Math.max(0, timeoutMs));
    const either = AbortSignal.any([signal, timeout]);
    const slot = semaphore;
    await slot.take(either, () => new NoSlotError(signal.aborted ? 'aborted' : 'timeout', key, max));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      slot.give();
    };
  }
}
