import { describe, expect, it } from 'vitest';
import { applySnapshot, hasBatch, newEntry } from '../../../activities/health/backend-entry.js';
import type { SentBatch } from '../../../activities/health/backend-entry.js';
import { SEEN_KEEP_MS } from '../../../common/health.js';
import type { HealthSnapshot } from '../../../common/health.js';
import { initialBreaker } from '../../../policy/index.js';
import type { AttemptOutcome, BreakerSettings } from '../../../policy/index.js';

const S: BreakerSettings = { failures: 3, windowMs: 60_000, coolDownMs: 30_000, maxCoolDownMs: 300_000 };
const T = 1_000_000;
const failure = (at: number): AttemptOutcome => ({ at, class: 'ServerError' });
const batch = (seq: number, at: number): SentBatch => ({ outcomes: [failure(at)], seq, at });
const snapshot = (asOf: number, seen?: HealthSnapshot['seen']): HealthSnapshot => ({
  backend: 'p:m',
  taskQueue: 'q',
  settings: S,
  breaker: initialBreaker(0, S),
  asOf,
  ...(seen === undefined ? {} : { seen }),
});

describe("a worker's copy of a backend against a state read from its health workflow", () => {
  it.each([
    [
      'has a batch whose number it has seen from this worker',
      { w1: { seq: 2, at: T } },
      batch(2, T - 5),
      true,
    ],
    [
      'has not a later one, even one sent before the state was made',
      { w1: { seq: 2, at: T } },
      batch(3, T - 5),
      false,
    ],
    [
      'has not a batch of a worker it never heard from, sent before the state was made',
      { w2: { seq: 9, at: T } },
      batch(1, T - 5),
      false,
    ],
    ['has a batch of a worker it forgot (silent for SEEN_KEEP_MS)', {}, batch(1, T - SEEN_KEEP_MS - 1), true],
    [
      '(a workflow from before `seen`) has a batch sent before the state was made',
      undefined,
      batch(1, T - 5),
      true,
    ],
    ['(a workflow from before `seen`) has not one sent after', undefined, batch(1, T + 5), false],
  ] as const)('the state %s', (_what, seen, b, had) => {
    expect(hasBatch(snapshot(T, seen), 'w1', b)).toBe(had);
  });

  it('a read that has not had the batch on its way keeps its failures: the third failure still trips the copy', () => {
    const e = newEntry('w1', 'q', 'p:m', S);
    e.sent.push(batch(1, T - 20), batch(2, T - 10));
    e.seq = 2;
    e.pending.push(failure(T - 1));
    // The workflow has the first batch only (the second was accepted after this state was made).
    expect(applySnapshot(e, snapshot(T, { w1: { seq: 1, at: T - 15 } }), T)).toBe(true);
    expect(e.sent.map((x) => x.seq)).toEqual([2]);
    // Its breaker has none of them (the read shows a closed one): the second batch and the pending one count.
    expect(e.breaker.failures).toEqual([T - 10, T - 1]);
    // Once it has the second batch, it is forgotten from the copy; what is pending still counts.
    applySnapshot(e, snapshot(T + 1, { w1: { seq: 2, at: T } }), T + 1);
    expect(e.sent).toEqual([]);
    expect(e.breaker.failures).toEqual([T - 1]);
  });
});
