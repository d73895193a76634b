import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BREAKER,
  FAILURE_CLASSES,
  TRANSIENT_CLASSES,
  admission,
  atTime,
  claimProbe,
  initialBreaker,
  recordOutcome,
  resetBreaker,
} from '../../../policy/index.js';
import type { AttemptOutcome, Breaker, BreakerSettings, FailureClass } from '../../../policy/index.js';

const S: BreakerSettings = { failures: 3, windowMs: 10_000, coolDownMs: 1_000, maxCoolDownMs: 5_000 };

/** Plays outcomes in order, each recorded at its own `at`. */
function play(outcomes: readonly AttemptOutcome[], settings = S, b0 = initialBreaker(0, settings)): Breaker {
  return outcomes.reduce((b, o) => recordOutcome(b, o, o.at, settings), b0);
}

const fail = (at: number, cls: FailureClass = 'ServerError'): AttemptOutcome => ({ at, class: cls });
const ok = (at: number): AttemptOutcome => ({ at });

/** A breaker tripped at t = 300 (open until 1300). */
const tripped = (): Breaker => play([fail(100), fail(200), fail(300)]);

describe('the breaker: trip', () => {
  it.each([
    ['three transient failures in the window', [fail(1), fail(2), fail(3)], 'open'],
    ['two are not enough', [fail(1), fail(2)], 'closed'],
    ['a success among them resets the count', [fail(1), fail(2), ok(3), fail(4), fail(5)], 'closed'],
    ['failures older than the window do not count', [fail(1), fail(2), fail(20_000)], 'closed'],
    [
      'failures that are not transient do not count',
      [fail(1, 'BadRequest'), fail(2, 'AuthFailed'), fail(3)],
      'closed',
    ],
    [
      'every transient class counts',
      [fail(1, 'RateLimited'), fail(2, 'ConnectFailed'), fail(3, 'ResponseTimeout')],
      'open',
    ],
  ] as const)('%s', (_name, outcomes, phase) => {
    expect(play(outcomes).phase).toBe(phase);
  });

  it('a trip opens it for the cool-down and counts a trip', () => {
    const b = tripped();
    expect(b).toMatchObject({ phase: 'open', since: 300, until: 1300, trips: 1, failures: [] });
    expect(b.reason).toMatch(/tripped: 3 transient failures/);
  });

  it('the contract defaults: 5 in 30 s, 30 s cool-down, 5 min cap', () => {
    expect(DEFAULT_BREAKER).toEqual({
      failures: 5,
      windowMs: 30_000,
      coolDownMs: 30_000,
      maxCoolDownMs: 300_000,
    });
    expect([...TRANSIENT_CLASSES].sort()).toEqual(
      [
        'ConnectFailed',
        'ConnectionLost',
        'RateLimited',
        'RequestTimeout',
        'ResponseTimeout',
        'ServerError',
      ].sort(),
    );
  });

  it('a retry-after opens it until then, from closed, and extends an open one', () => {
    const b = recordOutcome(initialBreaker(0, S), { at: 10, class: 'RateLimited', openUntil: 30_010 }, 10, S);
    expect(b).toMatchObject({ phase: 'open', until: 30_010, reason: 'retry-after' });
    const later = recordOutcome(tripped(), { at: 400, class: 'RateLimited', openUntil: 9_000 }, 400, S);
    expect(later).toMatchObject({ phase: 'open', since: 300, until: 9_000, trips: 1 });
  });

  it('outcomes of requests sent before the trip change nothing while open', () => {
    const b = play([ok(400), fail(500)], S, tripped());
    expect(b).toMatchObject({ phase: 'open', until: 1300 });
    expect(b.recent.map((r) => r.outcome)).toEqual([
      'ServerError',
      'ServerError',
      'ServerError',
      'succeeded',
      'ServerError',
    ]);
  });
});

describe('the breaker: half-open and probes', () => {
  it('open past until is half-open, with no probe out', () => {
    expect(atTime(tripped(), 1299).phase).toBe('open');
    expect(atTime(tripped(), 1300)).toMatchObject({ phase: 'half-open', since: 1300 });
  });

  it('one probe fleet-wide: the first claim is granted, later claims are not', () => {
    let b = claimProbe(tripped(), 'w1:a', 1400);
    b = claimProbe(b, 'w2:b', 1401);
    expect(b.probe).toEqual({ id: 'w1:a', grantedAt: 1400 });
    expect(b.probes).toBe(1);
    expect(admission(b, 1402, ['w1:a'])).toEqual({ kind: 'probe', id: 'w1:a' });
    expect(admission(b, 1402, ['w2:b'])).toEqual({ kind: 'cooling', retryAfterMs: 998 });
  });

  it("the probe's answer closes it and resets the cool-down", () => {
    const b = recordOutcome(claimProbe(tripped(), 'p', 1400), { at: 1500, probe: 'p' }, 1500, S);
    expect(b).toMatchObject({ phase: 'closed', since: 1500, coolDownMs: 1000 });
    expect(b.probe).toBeUndefined();
  });

  it('a non-transient answer to the probe closes it too (the backend answered)', () => {
    const b = recordOutcome(
      claimProbe(tripped(), 'p', 1400),
      { at: 1500, probe: 'p', class: 'BadRequest' },
      1500,
      S,
    );
    expect(b.phase).toBe('closed');
  });

  it('a failed probe opens it again for twice the cool-down, at most the cap', () => {
    let b = tripped();
    const untils: number[] = [];
    let now = 1300;
    for (let i = 0; i < 5; i++) {
      b = claimProbe(b, `p${i}`, now);
      b = recordOutcome(b, { at: now + 1, probe: `p${i}`, class: 'ServerError' }, now + 1, S);
      untils.push((b.until ?? 0) - (now + 1));
      now = b.until ?? 0;
    }
    expect(untils).toEqual([2000, 4000, 5000, 5000, 5000]);
    expect(b.probes).toBe(5);
  });

  it('outcomes that are not the probe change nothing in half-open', () => {
    const b = claimProbe(tripped(), 'p', 1400);
    expect(recordOutcome(b, ok(1401), 1401, S)).toMatchObject({ phase: 'half-open', probe: { id: 'p' } });
    expect(recordOutcome(b, { at: 1401, probe: 'q' }, 1401, S).phase).toBe('half-open');
  });

  it("a let-go probe's late answer closes it when no other probe is out; its late failure changes nothing", () => {
    // Granted at 1400, let go at 2400 (one cool-down); its answer arrives at 2600.
    const b = claimProbe(tripped(), 'slow', 1400);
    expect(recordOutcome(b, { at: 2600, probe: 'slow' }, 2600, S)).toMatchObject({ phase: 'closed' });
    const failed = recordOutcome(b, { at: 2600, probe: 'slow', class: 'ServerError' }, 2600, S);
    expect(failed).toMatchObject({ phase: 'half-open' });
    expect(failed.probe).toBeUndefined();
    // Another probe out: that one decides.
    const other = claimProbe(b, 'next', 2500);
    expect(recordOutcome(other, { at: 2600, probe: 'slow' }, 2600, S)).toMatchObject({ phase: 'half-open' });
  });

  it.each([
    // [what, the late answer's end, the breaker it reaches]
    ['ended before the latest trip (re-queued from an earlier half-open)', 2_000, 'half-open'],
    ['ended at the latest trip', 3_000, 'half-open'],
    ['ended after the latest trip', 4_500, 'closed'],
  ] as const)("a let-go probe's late answer that %s: %s", (_what, at, phase) => {
    // Probe 'old' granted at 1400 in the first half-open, let go at 2400; probe 'p2' granted at 2500 fails at
    // 3000: open again until 5000 (twice the cool-down). In the second half-open, no probe out, the answer comes.
    const first = claimProbe(tripped(), 'old', 1400);
    const second = claimProbe(first, 'p2', 2500);
    const reopened = recordOutcome(second, { at: 3000, probe: 'p2', class: 'ServerError' }, 3000, S);
    expect(reopened).toMatchObject({ phase: 'open', openedAt: 3000, until: 5000, trips: 2 });
    expect(recordOutcome(reopened, { at, probe: 'old' }, 5100, S).phase).toBe(phase);
  });

  it("a retry-after that extends an opening moves the latest opening: an earlier probe's answer cannot close it", () => {
    const b = claimProbe(tripped(), 'slow', 1400);
    // The probe was let go at 2400; a retry-after at 2500 opens it until 3000.
    const after = recordOutcome(b, { at: 2500, class: 'RateLimited', openUntil: 3000 }, 2500, S);
    expect(after).toMatchObject({ phase: 'open', openedAt: 2500 });
    expect(recordOutcome(after, { at: 2450, probe: 'slow' }, 3100, S).phase).toBe('half-open');
    expect(recordOutcome(after, { at: 2600, probe: 'slow' }, 3100, S).phase).toBe('closed');
  });

  it('a breaker kept before `openedAt` existed: its latest opening is a cool-down before its half-open', () => {
    const { openedAt: _o, ...legacy } = recordOutcome(
      claimProbe(claimProbe(tripped(), 'old', 1400), 'p2', 2500),
      { at: 3000, probe: 'p2', class: 'ServerError' },
      3000,
      S,
    );
    expect(recordOutcome(legacy, { at: 2000, probe: 'old' }, 5100, S).phase).toBe('half-open');
    expect(recordOutcome(legacy, { at: 3100, probe: 'old' }, 5100, S).phase).toBe('closed');
  });

  it('closed keeps no opening time', () => {
    const b = recordOutcome(claimProbe(tripped(), 'p', 1400), { at: 1500, probe: 'p' }, 1500, S);
    expect(b.phase).toBe('closed');
    expect(b).not.toHaveProperty('openedAt');
  });

  it('a probe that never reports within a cool-down is let go, and another may be granted', () => {
    const b = claimProbe(tripped(), 'lost', 1400);
    expect(admission(b, 2400)).toEqual({ kind: 'claim' });
    expect(claimProbe(b, 'next', 2400).probe).toEqual({ id: 'next', grantedAt: 2400 });
  });

  it('a probe whose attempt sent nothing is given back at once: another may be granted, nothing else changes', () => {
    const b = claimProbe(tripped(), 'unsent', 1400);
    const back = recordOutcome(b, { at: 1450, probe: 'unsent', unsent: true }, 1450, S);
    expect(back).toMatchObject({ phase: 'half-open', coolDownMs: b.coolDownMs, recent: b.recent });
    expect(back).not.toHaveProperty('probe');
    expect(admission(back, 1451)).toEqual({ kind: 'claim' });
    expect(claimProbe(back, 'next', 1451).probe).toEqual({ id: 'next', grantedAt: 1451 });
  });

  it.each([
    ['another probe is out', claimProbe(tripped(), 'other', 1400), 'mine'],
    ['closed', initialBreaker(0, S), 'mine'],
    ['open', tripped(), 'mine'],
  ])('an unsent outcome changes nothing when %s', (_name, b, id) => {
    expect(recordOutcome(b, { at: 1450, probe: id, unsent: true }, 1450, S)).toBe(b);
  });

  it('admission: closed sends, open cools until until, half-open with no probe claims', () => {
    expect(admission(initialBreaker(0, S), 5)).toEqual({ kind: 'send' });
    expect(admission(tripped(), 800)).toEqual({ kind: 'cooling', retryAfterMs: 500 });
    expect(admission(tripped(), 1300)).toEqual({ kind: 'claim' });
  });

  it('reset closes it by hand', () => {
    expect(resetBreaker(tripped(), 400, S)).toMatchObject({ phase: 'closed', since: 400, failures: [] });
  });
});

const outcome = fc.record({
  dt: fc.integer({ min: 0, max: 3000 }),
  cls: fc.option(fc.constantFrom(...FAILURE_CLASSES), { nil: undefined }),
  claim: fc.boolean(),
});

describe('the breaker: properties', () => {
  it('without retry-after, it never opens before `failures` transient failures with no success between', () => {
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 60 }), (steps) => {
        let b = initialBreaker(0, S);
        let now = 0;
        let run = 0;
        for (const s of steps) {
          now += s.dt;
          const before = atTime(b, now);
          b = recordOutcome(b, { at: now, ...(s.cls === undefined ? {} : { class: s.cls }) }, now, S);
          if (before.phase === 'closed') {
            if (s.cls === undefined) run = 0;
            else if (TRANSIENT_CLASSES.includes(s.cls)) run += 1;
            if (b.phase === 'open') expect(run).toBeGreaterThanOrEqual(S.failures);
          }
          if (b.phase === 'open') run = 0;
        }
      }),
    );
  });

  it('at most one probe per half-open period, and the cool-down stays within [coolDownMs, maxCoolDownMs]', () => {
    fc.assert(
      fc.property(fc.array(outcome, { maxLength: 80 }), (steps) => {
        let b = initialBreaker(0, S);
        let now = 0;
        let i = 0;
        for (const s of steps) {
          now += s.dt;
          const probesBefore = b.probes;
          const held = atTime(b, now).probe;
          b = s.claim ? claimProbe(b, `c${i++}`, now) : b;
          if (held !== undefined) expect(b.probes).toBe(probesBefore);
          const probe = s.claim ? b.probe?.id : undefined;
          const o: AttemptOutcome = { at: now, ...(s.cls === undefined ? {} : { class: s.cls }) };
          b = recordOutcome(b, probe === undefined ? o : { ...o, probe }, now, S);
          expect(b.coolDownMs).toBeGreaterThanOrEqual(S.coolDownMs);
          expect(b.coolDownMs).toBeLessThanOrEqual(S.maxCoolDownMs);
          if (b.phase === 'open') expect(b.until).toBeGreaterThan(now - 1);
        }
      }),
    );
  });

  it('a late answer never closes it on an outcome that ended before its latest opening', () => {
    fc.assert(
      fc.property(
        fc.array(outcome, { maxLength: 80 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { maxLength: 10 }),
        (steps, lates) => {
          let b = initialBreaker(0, S);
          let now = 0;
          let i = 0;
          let lastOpen = -Infinity;
          for (const [k, s] of steps.entries()) {
            now += s.dt;
            b = s.claim ? claimProbe(b, `c${i++}`, now) : b;
            const probe = s.claim ? b.probe?.id : undefined;
            const o: AttemptOutcome = { at: now, ...(s.cls === undefined ? {} : { class: s.cls }) };
            const before = b;
            b = recordOutcome(b, probe === undefined ? o : { ...o, probe }, now, S);
            if (b.phase === 'open' && (before.phase !== 'open' || b.until !== before.until)) lastOpen = now;
            // A let-go probe's success, ended at some earlier time, reaching the workflow now.
            const late = lates[k % Math.max(1, lates.length)];
            if (late === undefined || atTime(b, now).phase !== 'half-open' || atTime(b, now).probe) continue;
            const at = now - late;
            const after = recordOutcome(b, { at, probe: 'let-go' }, now, S);
            if (at <= lastOpen) expect(after.phase).toBe('half-open');
            else expect(after.phase).toBe('closed');
          }
        },
      ),
    );
  });
});
