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

/** Whose turn a waiter's is: its tenant (`''` for none) and the tenant's weight. */
export interface Share {
  key: string;
  weight: number;
}

/** One waiter: its grant, and its place in weighted fair order (the lowest `tag` goes first). */
interface Waiter {
  grant: () => void;
  tag: number;
  seq: number;
}

/**
 * A semaphore whose waiters are served by weighted fair queueing: each tenant's waiters are tagged in turn, a
 * tenant of weight w advancing its tag by 1/w per waiter, and the lowest tag goes first. A tenant's burst then
 * queues behind its own tags, not in front of every other tenant's waiter; with one tenant it is first come first
 * served.
 */
class Semaphore {
  private running = 0;
  private readonly waiting: Waiter[] = [];
  /** The tag of the waiter served last, and each tenant's last tag. */
  private virtualNow = 0;
  private readonly lastTag = new Map<string, number>();
  private seq = 0;
  constructor(readonly max: number) {}

  /** Resolves when a slot is taken; rejects (and leaves the queue) when `signal` aborts first. */
  take(signal: AbortSignal, onAbort: () => Error, share: Share = NO_SHARE): Promise<void> {
    if (signal.aborted) return Promise.reject(onAbort());
    if (this.running < this.max && this.waiting.length === 0) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const tag = Math.max(this.virtualNow, this.lastTag.get(share.key) ?? 0) + 1 / share.weight;
      this.lastTag.set(share.key, tag);
      const waiter: Waiter = {
        tag,
        seq: ++this.seq,
        grant: () => {
          signal.removeEventListener('abort', abort);
          this.running += 1;
          resolve();
        },
      };
      const abort = (): void => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(onAbort());
      };
      this.waiting.push(waiter);
      signal.addEventListener('abort', abort, { once: true });
    });
  }

  give(): void {
    this.running -= 1;
    if (this.waiting.length === 0) {
      // Nobody waits: tags start afresh, so an idle tenant carries no debt or credit into the next backlog.
      this.virtualNow = 0;
      this.lastTag.clear();
      return;
    }
    let next = 0;
    for (let i = 1; i < this.waiting.length; i++) {
      const a = this.waiting[i] as Waiter;
      const b = this.waiting[next] as Waiter;
      if (a.tag < b.tag || (a.tag === b.tag && a.seq < b.seq)) next = i;
    }
    const [chosen] = this.waiting.splice(next, 1);
    if (chosen === undefined) return;
    this.virtualNow = chosen.tag;
    chosen.grant();
  }
}

/** The share of a waiter without a tenant. */
const NO_SHARE: Share = { key: '', weight: 1 };

/** What a request that needs no slot gives back: nothing. */
const NO_SLOTS: Release = () => undefined;

/** The longest timeout `AbortSignal.timeout` takes (about 49.7 days). */
const MAX_SIGNAL_TIMEOUT_MS = 2 ** 32 - 1;

/** The `maxInFlight` semaphores of one worker process, by limit key. */
export class InFlightLimits {
  private readonly semaphores = new Map<string, Semaphore>();

  /**
   * @param weightOf a tenant's fairness weight (its entry's `weight` in the tenants file): waiters of a tenant are
   *   served by it. @default every tenant 1
   */
  constructor(
    private readonly limits: () => LimitsByKey | undefined,
    private readonly weightOf: (tenant: string) => number = () => 1,
  ) {}

  /**
   * Takes a slot for a request to `model` of every key that holds for it with a `maxInFlight` (its own, then
   * its provider's: both hold; at once when none has one), waiting at most `timeoutMs` in all and never past
   * `signal` (the activity's cancellation).
   * @throws NoSlotError when the wait ends without every slot (those taken are given back).
   */
  async acquire(model: string, signal: AbortSignal, timeoutMs: number, tenant?: string): Promise<Release> {
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
    const share = tenant === undefined ? NO_SHARE : { key: tenant, weight: this.weightOf(tenant) };
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
        await slot.take(
          either,
          () => new NoSlotError(signal.aborted ? 'aborted' : 'timeout', key, max),
          share,
        );
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
