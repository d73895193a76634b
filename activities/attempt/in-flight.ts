/**
 * `maxInFlight`: at most N requests to a backend at once from this worker process (one `InFlightLimits` per
 * `createActivities`, shared by every Worker of the process, its limit queues' included). Temporal has no
 * fleet-wide concurrency limit, so this is per process by design. A hand-written semaphore because an attempt
 * waiting for a slot must give it up on cancellation or at its timeout (p-limit's queue cannot drop one entry).
 */
import { limitKeysOf } from '../../common/limits.js';
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

/** What a request that needs no slot gives back: nothing. */
const NO_SLOTS: Release = () => undefined;

/** The longest timeout `AbortSignal.timeout` takes (about 49.7 days). */
const MAX_SIGNAL_TIMEOUT_MS = 2 ** 32 - 1;

/** The `maxInFlight` semaphores of one worker process, by limit key. */
export class InFlightLimits {
  private readonly semaphores = new Map<string, Semaphore>();

  constructor(private readonly limits: () => LimitsByKey | undefined) {}

  /**
   * Takes a slot for a request to `model` of every key that holds for it with a `maxInFlight` (its own, then
   * its provider's: both hold; at once when none has one), waiting at most `timeoutMs` in all and never past
   * `signal` (the activity's cancellation).
   * @throws NoSlotError when the wait ends without every slot (those taken are given back).
   */
  async acquire(model: string, signal: AbortSignal, timeoutMs: number): Promise<Release> {
    const limits = this.limits();
    // The model's key first, then its provider's: see below. No limit holds for most models: then nothing waits,
    // and no signal or timer is made (an `AbortSignal.any` per attempt costs more than the rest of this file).
    const held = limitKeysOf(model, limits)
      .reverse()
      .flatMap((key) => {
        const max = limits?.[key]?.maxInFlight;
        return max === undefined ? [] : [{ key, max }];
      });
    if (held.length === 0) return NO_SLOTS;
    // AbortSignal.timeout takes at most 2^32 - 1 ms (a RangeError past it); a plan's attemptTimeoutMs may be longer.
    const waitMs = Math.min(Math.max(0, timeoutMs), MAX_SIGNAL_TIMEOUT_MS);
    const either = AbortSignal.any([signal, AbortSignal.timeout(waitMs)]);
    const taken: Semaphore[] = [];
    const giveAll = (): void => {
      for (const slot of taken.splice(0).reverse()) slot.give();
    };
    // The model's slot first, then its provider's: an attempt queued behind its model's limit holds no provider
    // slot, so the provider's other models are not starved by it. Always in this order (every model's key before
    // any provider's key, which is taken last and alone), so two waiters never hold one slot each of the other's.
    for (const { key, max } of held) {
      const slot = this.semaphore(key, max);
      try {
        await slot.take(either, () => new NoSlotError(signal.aborted ? 'aborted' : 'timeout', key, max));
      } catch (error) {
        giveAll();
        throw error;
      }
      taken.push(slot);
    }
    return giveAll;
  }

  private semaphore(key: string, max: number): Semaphore {
    let semaphore = this.semaphores.get(key);
    if (!semaphore) this.semaphores.set(key, (semaphore = new Semaphore(max)));
    return semaphore;
  }
}
