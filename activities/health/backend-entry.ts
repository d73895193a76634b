/**
 * One backend in a worker's view of fleet health: the cached breaker, the outcomes the health workflow may not
 * have yet, the probe claims, and what is in flight. Merging a state read from the workflow into it is here, as
 * a function of the entry alone, so the rule that a read cannot undo this worker's own news is in one place.
 */
import { initialBreaker, recordOutcome } from '../../policy/index.js';
import type { AttemptOutcome, Breaker, BreakerSettings } from '../../policy/index.js';
import { SEEN_KEEP_MS } from '../../common/health.js';
import type { HealthSnapshot } from '../../common/health.js';

export interface Entry {
  /** This worker's monitor id (the `from` of its batches). */
  worker: string;
  taskQueue: string;
  backend: string;
  settings: BreakerSettings;
  breaker: Breaker;
  pending: AttemptOutcome[];
  /**
   * Outcome batches sent or on their way, with their sequence number and when they were sent: until a state read
   * says the workflow has them (its `seen` has this worker at `seq` or later), they stay applied to the local
   * copy, so a read that raced the signal cannot undo what they did.
   */
  sent: SentBatch[];
  /** The sequence number of this worker's latest batch to this backend (0 before the first). */
  seq: number;
  /** The workflow time of the latest state applied (epoch ms; 0 before the first read). */
  asOf: number;
  /** The trips the workflow had counted when last read (-1 before the first read): the counter adds the rest. */
  tripsSeen: number;
  /** This worker's probe claims not yet taken by an attempt. */
  claims: string[];
  /** The claim this worker is waiting on, if any. */
  claiming?: Promise<void> | undefined;
  /**
   * The read and the flush in flight, if any: at most one of each per backend, whatever the timers do while the
   * server is slow (a loaded server once had dozens of describes of one health workflow in flight).
   */
  reading?: Promise<void> | undefined;
  flushing?: Promise<void> | undefined;
  /** When an attempt last admitted or checked this backend: an entry unused for a while is no longer re-read. */
  lastUsed: number;
}

/** One batch of outcomes sent (or on its way) to the health workflow. */
export interface SentBatch {
  outcomes: AttemptOutcome[];
  seq: number;
  /** When it was sent (epoch ms, this worker's clock). */
  at: number;
}

/** A backend not read yet: closed, nothing pending. */
export function newEntry(
  worker: string,
  taskQueue: string,
  backend: string,
  settings: BreakerSettings,
): Entry {
  return {
    worker,
    taskQueue,
    backend,
    settings,
    breaker: initialBreaker(0, settings),
    pending: [],
    sent: [],
    seq: 0,
    claims: [],
    lastUsed: 0,
    tripsSeen: -1,
    asOf: 0,
  };
}

/** The map key of a backend on a task queue. */
export const entryKey = (taskQueue: string, backend: string): string => `${taskQueue}\u0000${backend}`;

/**
 * Applies a state read from the workflow; `false` when it was ignored. A read older than one already applied is
 * ignored (reads may finish out of order), and this worker's own opening stays until the workflow has had the
 * outcomes that caused it: a state read before then (`asOf` earlier than the local opening) cannot undo it.
 */
export function applySnapshot(entry: Entry, snapshot: HealthSnapshot, nowMs: number): boolean {
  if (snapshot.asOf < entry.asOf) return false;
  entry.asOf = snapshot.asOf;
  const local = entry.breaker;
  // Outcomes the workflow does not have yet (not sent, on their way, or accepted after the state read was made)
  // stay in the local copy until it has them.
  entry.sent = entry.sent.filter((batch) => !hasBatch(snapshot, entry.worker, batch));
  const unseen = [...entry.sent.flatMap((batch) => batch.outcomes), ...entry.pending];
  const read = unseen.reduce((b, o) => recordOutcome(b, o, nowMs, entry.settings), snapshot.breaker);
  const ownOpening = local.phase === 'open' && local.since > snapshot.asOf && (local.until ?? 0) > nowMs;
  entry.breaker = ownOpening && read.phase !== 'open' ? local : read;
  if (entry.breaker.phase === 'closed') entry.claims = [];
  return true;
}

/**
 * Whether the workflow's state `snapshot` includes `batch` of `worker`: by the sequence numbers it has seen. A
 * workflow from before them (no `seen`) is asked by time, as before: a batch sent before the state was made
 * counts as had (it may still be on its way: erring towards forgetting it, never towards counting it twice). A
 * worker missing from `seen` has had no batch taken, unless it was silent long enough to be dropped from it.
 */
export function hasBatch(snapshot: HealthSnapshot, worker: string, batch: SentBatch): boolean {
  if (snapshot.seen === undefined) return batch.at <= snapshot.asOf;
  const had = snapshot.seen[worker];
  if (had === undefined) return batch.at <= snapshot.asOf - SEEN_KEEP_MS;
  return had.seq >= batch.seq;
}
