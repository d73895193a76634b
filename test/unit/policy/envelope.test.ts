import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decide,
  failedAttempt,
  initialState,
  raisedFacts,
  envelopeView,
  grantLease,
  initialLedger,
  nextPeriodStart,
  periodStartOf,
  renewsAt,
  resetLedger,
  setEnvelope,
  settle,
  usedOf,
} from '../../../policy/index.js';
import { fixedRandom, plan } from './harness.js';
import type { Amount, LeaseRequest, TenantEnvelope, TenantLedgerState } from '../../../policy/index.js';

const T0 = Date.UTC(2026, 11, 4, 10, 0, 0);
const tokens = (n: number): Amount => ({ tokens: n, costUsd: 0 });
const ask = (least: number, wanted = least, worker = 'w1', envelope: TenantEnvelope = DAY): LeaseRequest => ({
  worker,
  least: tokens(least),
  wanted: tokens(wanted),
  ttlMs: 30_000,
  envelope,
});
const DAY: TenantEnvelope = { maxTotalTokens: 1_000, period: 'day' };

/** Grants in order, returning the state and every answer. */
function leaseAll(s: TenantLedgerState, requests: LeaseRequest[], at = T0) {
  const answers = [];
  for (const [i, r] of requests.entries()) {
    const g = grantLease(s, r, `l${i}`, at);
    s = g.state;
    answers.push(g.answer);
  }
  return { s, answers };
}

describe('periods', () => {
  it.each([
    ['day', Date.UTC(2026, 11, 4, 23, 59), Date.UTC(2026, 11, 4), Date.UTC(2026, 11, 5)],
    ['day', Date.UTC(2026, 11, 31, 12), Date.UTC(2026, 11, 31), Date.UTC(2027, 0, 1)],
    ['month', Date.UTC(2026, 11, 4, 10), Date.UTC(2026, 11, 1), Date.UTC(2027, 0, 1)],
    ['month', Date.UTC(2028, 1, 29, 10), Date.UTC(2028, 1, 1), Date.UTC(2028, 2, 1)],
  ] as const)('a %s holding %s starts at %s and renews at %s (UTC)', (period, now, start, next) => {
    expect(periodStartOf(now, period)).toBe(start);
    expect(nextPeriodStart(start, period)).toBe(next);
  });
});

describe('leases', () => {
  it('grants what is wanted while it is left, then down to the least, then refuses as spent', () => {
    const { answers } = leaseAll(initialLedger(DAY, T0), [ask(100, 600), ask(100, 600), ask(100, 600)]);
    expect(answers.map((a) => (a.granted ? a.lease.amount.tokens : a.why))).toEqual([600, 400, 'held']);
  });

  it('a lease held by a live lease of another worker is refused as held, with when it expires', () => {
    const { answers } = leaseAll(initialLedger(DAY, T0), [ask(900), ask(200, 200, 'w2')]);
    const refused = answers[1];
    expect(refused).toMatchObject({
      granted: false,
      why: 'held',
      retryAfterMs: 30_000,
      limit: 'maxTotalTokens',
    });
  });

  it('an expired lease not settled counts as spent: the refusal is spent, renewing at midnight UTC', () => {
    const s = leaseAll(initialLedger(DAY, T0), [ask(900)]).s;
    const later = grantLease(s, ask(200, 200, 'w2'), 'x', T0 + 60_000).answer;
    expect(later).toMatchObject({
      granted: false,
      why: 'spent',
      renewsAt: Date.UTC(2026, 11, 5),
      left: { tokens: 100 },
    });
  });

  it('settling gives back what was not billed, counts what was, and measures over-billing', () => {
    let s = leaseAll(initialLedger(DAY, T0), [ask(500)]).s;
    s = settle(s, [{ leaseId: 'l0', billed: tokens(300), reserved: tokens(250) }], T0 + 1);
    expect(usedOf(s)).toEqual({ spent: tokens(300), held: tokens(0) });
    expect(s.overBilled).toEqual(tokens(50));
    // A settlement sent twice is taken once.
    const again = settle(s, [{ leaseId: 'l0', billed: tokens(300), reserved: tokens(250) }], T0 + 2);
    expect(usedOf(again).spent).toEqual(tokens(300));
    expect(grantLease(s, ask(700), 'n', T0 + 3).answer.granted).toBe(true);
    expect(grantLease(s, ask(701), 'n', T0 + 3).answer).toMatchObject({ granted: false, why: 'spent' });
  });

  it('a retried lease request (same id) is answered with the same lease, granted once', () => {
    const first = grantLease(initialLedger(DAY, T0), ask(400), 'same', T0);
    const again = grantLease(first.state, ask(400), 'same', T0 + 5);
    expect(again.answer).toEqual(first.answer);
    expect(usedOf(again.state).held).toEqual(tokens(400));
  });

  it("a worker cuts its busy lease down to what it holds: the rest is another worker's at once", () => {
    const s = leaseAll(initialLedger(DAY, T0), [ask(900)]).s;
    expect(grantLease(s, ask(500, 500, 'w2'), 'x', T0 + 1).answer).toMatchObject({
      granted: false,
      why: 'held',
    });
    const cut = grantLease(
      s,
      { ...ask(100), shrink: [{ leaseId: 'l0', keep: tokens(300) }] },
      'n',
      T0 + 1,
    ).state;
    expect(usedOf(cut).held).toEqual(tokens(400));
    expect(grantLease(cut, ask(500, 500, 'w2'), 'x', T0 + 2).answer.granted).toBe(true);
    // Never up, and never another worker's lease.
    const up = grantLease(
      s,
      { ...ask(10, 10, 'w2'), shrink: [{ leaseId: 'l0', keep: tokens(0) }] },
      'y',
      T0 + 1,
    );
    expect(up.state.leases.find((l) => l.id === 'l0')?.amount).toEqual(tokens(900));
  });

  it('settlements that ride with a request are settled before it is granted', () => {
    const s = leaseAll(initialLedger(DAY, T0), [ask(900)]).s;
    const g = grantLease(
      s,
      { ...ask(500), settle: [{ leaseId: 'l0', billed: tokens(100), reserved: tokens(100) }] },
      'n',
      T0 + 1,
    );
    expect(g.answer.granted).toBe(true);
    expect(usedOf(g.state)).toEqual({ spent: tokens(100), held: tokens(500) });
  });

  it('a new day forgets the spend and the leases of the day before', () => {
    let s = leaseAll(initialLedger(DAY, T0), [ask(900)]).s;
    s = settle(s, [{ leaseId: 'l0', billed: tokens(900), reserved: tokens(900) }], T0);
    const tomorrow = Date.UTC(2026, 11, 5, 0, 0, 1);
    expect(grantLease(s, ask(1_000), 'n', tomorrow).answer.granted).toBe(true);
  });

  it('a cost limit refuses by cost, naming maxCostUsd', () => {
    const e: TenantEnvelope = { maxCostUsd: 1, maxTotalTokens: 1e9 };
    const r: LeaseRequest = {
      ...ask(10, 10, 'w', e),
      least: { tokens: 10, costUsd: 1.5 },
      wanted: { tokens: 10, costUsd: 1.5 },
    };
    expect(grantLease(initialLedger(e, T0), r, 'c', T0).answer).toMatchObject({
      granted: false,
      limit: 'maxCostUsd',
    });
  });
});

describe('a rolling window', () => {
  const W: TenantEnvelope = { maxTotalTokens: 1_000, windowMs: 60_000 };

  it('frees spend as it leaves the window, and says when', () => {
    let s = leaseAll(initialLedger(W, T0), [ask(800)]).s;
    s = settle(s, [{ leaseId: 'l0', billed: tokens(800), reserved: tokens(800) }], T0 + 10);
    const refused = grantLease(s, ask(400), 'n', T0 + 20_000).answer;
    expect(refused).toMatchObject({ granted: false, why: 'spent' });
    if (!refused.granted) expect(refused.renewsAt).toBeGreaterThan(T0 + 20_000);
    expect(grantLease(s, ask(400), 'n', T0 + 60_001).answer.granted).toBe(true);
  });

  it('keeps its memory bounded however many settlements come', () => {
    let s = initialLedger(W, T0);
    for (let i = 0; i < 2_000; i++) {
      const g = grantLease(s, ask(1, 1), `l${i}`, T0 + i * 50);
      s = settle(g.state, [{ leaseId: `l${i}`, billed: tokens(0), reserved: tokens(1) }], T0 + i * 50);
    }
    expect(s.spent.length).toBeLessThanOrEqual(121);
    expect(s.leases.length).toBe(0);
  });
});

describe('operators', () => {
  it('a set envelope holds over every file, and a disagreeing file is reported', () => {
    let s = setEnvelope(initialLedger(DAY, T0), { maxTotalTokens: 50 }, T0);
    const g = grantLease(s, ask(10, 10, 'w9', DAY), 'n', T0);
    s = g.state;
    expect(s.source).toBe('set');
    expect(s.disagreements).toEqual([{ worker: 'w9', envelope: DAY, at: T0 }]);
    expect(grantLease(s, ask(41), 'm', T0).answer).toMatchObject({ granted: false });
  });

  it('a reset forgets the spend and the leases', () => {
    const s = resetLedger(leaseAll(initialLedger(DAY, T0), [ask(900)]).s, T0);
    expect(envelopeView(s, T0)).toMatchObject({ spent: tokens(0), held: tokens(0), left: { tokens: 1_000 } });
    expect(renewsAt(s, T0)).toBe(Date.UTC(2026, 11, 5));
  });
});

describe('the envelope is never passed by what is granted', () => {
  it('holds for any sequence of leases and settlements', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            least: fc.integer({ min: 1, max: 400 }),
            extra: fc.integer({ min: 0, max: 400 }),
            settle: fc.boolean(),
            billedShare: fc.double({ min: 0, max: 1, noNaN: true }),
            dt: fc.integer({ min: 0, max: 40_000 }),
          }),
          { maxLength: 40 },
        ),
        (steps) => {
          let s = initialLedger(DAY, T0);
          let now = T0;
          for (const [i, step] of steps.entries()) {
            now += step.dt;
            const g = grantLease(s, ask(step.least, step.least + step.extra), `l${i}`, now);
            s = g.state;
            const { spent, held } = usedOf(s);
            // What is granted and not settled, with what was billed at most the reservations, fits the envelope.
            expect(spent.tokens + held.tokens).toBeLessThanOrEqual(1_000);
            if (step.settle && g.answer.granted) {
              const amount = g.answer.lease.amount.tokens;
              const billed = Math.floor(amount * step.billedShare);
              s = settle(s, [{ leaseId: `l${i}`, billed: tokens(billed), reserved: tokens(amount) }], now);
            }
          }
        },
      ),
    );
  });
});

describe('an attempt its tenant envelope refused', () => {
  const refused = {
    class: 'QuotaExhausted' as const,
    overEnvelope: "tenant acme's envelope has 0 tokens left",
  };

  it.each([
    ['with backends and waits left', plan({ waits: [100], maxAttempts: 5 }), 2],
    [
      'whatever the plan says of QuotaExhausted',
      plan({ waits: [100], actions: { QuotaExhausted: 'retry-same' } }),
      1,
    ],
  ])('stops the call budget %s, saying why', (_what, p, backends) => {
    const d = decide(p, { ...initialState(backends), attempts: 1 }, refused, 0, fixedRandom(0));
    expect(d).toMatchObject({ kind: 'stop', reason: 'budget', why: refused.overEnvelope });
  });

  it('is recorded as what was raised, and tells the policy to stop', () => {
    const facts = raisedFacts(
      'QuotaExhausted',
      { overEnvelope: true, code: 'tenant-envelope', message: 'm' },
      '',
    );
    const { failure, record } = failedAttempt(facts);
    expect(failure).toEqual({ class: 'QuotaExhausted', overEnvelope: 'm' });
    expect(record).toEqual({ class: 'QuotaExhausted', code: 'tenant-envelope', message: 'm' });
  });
});

describe('calendar periods agree with the calendar', () => {
  it('for any moment from 1970 to 2400', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(2400, 0, 1) }), (now) => {
        const d = new Date(now);
        expect(periodStartOf(now, 'day')).toBe(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
        expect(periodStartOf(now, 'month')).toBe(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
        expect(nextPeriodStart(periodStartOf(now, 'month'), 'month')).toBe(
          Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
        );
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('leases never outlive what they count in', () => {
  it("a day's lease ends at midnight UTC, so the next day starts with none still in use", () => {
    const late = Date.UTC(2026, 11, 4, 23, 59, 50);
    const g = grantLease(initialLedger(DAY, late), ask(1_000), 'l', late);
    expect(g.answer).toMatchObject({ granted: true, lease: { expiresAt: Date.UTC(2026, 11, 5) } });
  });

  it("a rolling window's lease lasts at most half the window, and counts until its end has left it", () => {
    const W: TenantEnvelope = { maxTotalTokens: 1_000, windowMs: 5_000 };
    const g = grantLease(initialLedger(W, T0), ask(1_000), 'l', T0);
    expect(g.answer).toMatchObject({ granted: true, lease: { expiresAt: T0 + 2_500 } });
    // Not settled: at +6 s its end (+2.5 s) is still inside the window (+1 s to +6 s): no room.
    expect(grantLease(g.state, ask(1_000, 1_000, 'w2'), 'x', T0 + 6_000).answer.granted).toBe(false);
    expect(grantLease(g.state, ask(1_000, 1_000, 'w2'), 'y', T0 + 7_501).answer.granted).toBe(true);
  });

  it('a set envelope without a period keeps the day it had: the spend and the leases stay counted', () => {
    let s = leaseAll(initialLedger(DAY, T0), [ask(500), ask(100)]).s;
    s = settle(s, [{ leaseId: 'l0', billed: tokens(400), reserved: tokens(500) }], T0 + 1);
    const set = setEnvelope(s, { maxTotalTokens: 2_000 }, T0 + 2);
    expect(usedOf(set)).toEqual({ spent: tokens(400), held: tokens(100) });
    const windowed = setEnvelope(s, { maxTotalTokens: 2_000, windowMs: 3_600_000 }, T0 + 2);
    expect(usedOf(windowed)).toEqual({ spent: tokens(400), held: tokens(100) });
  });
});
