/**
 * The ledger's moves on an envelope: a lease granted or refused, settlements, a worker's leases cut down, the
 * provider's word on a bucket, an operator's set and reset. Pure, like the rest of `envelope.ts`.
 */
import {
  MAX_DISAGREEMENTS,
  NO_AMOUNT,
  WINDOW_BUCKETS,
  add,
  fits,
  leftOf,
  passed,
  periodStartOf,
  renewsAt,
  rollover,
  sum,
  usedOf,
} from './envelope.js';
import type {
  Amount,
  Lease,
  LeaseAnswer,
  LeaseRequest,
  Observed,
  Settlement,
  SpendEntry,
  TenantEnvelope,
  TenantLedgerState,
} from './envelope.js';

/** The state after `settlements` (each lease once: a settlement of a lease the ledger does not hold changes nothing). */
export function settle(
  s: TenantLedgerState,
  settlements: readonly Settlement[],
  nowMs: number,
): TenantLedgerState {
  let next = rollover(s, nowMs);
  for (const t of settlements) {
    const lease = next.leases.find((l) => l.id === t.leaseId);
    if (lease === undefined) continue;
    const over = {
      tokens: Math.max(0, t.billed.tokens - t.reserved.tokens),
      costUsd: Math.max(0, t.billed.costUsd - t.reserved.costUsd),
    };
    next = {
      ...next,
      leases: next.leases.filter((l) => l !== lease),
      // Placed when it was billed (at most the lease's end), so a window keeps it for as long as it should.
      spent: addSpend(next, { ...t.billed, at: Math.min(nowMs, lease.expiresAt) }),
      overBilled: add(next.overBilled, over),
    };
  }
  return next;
}

/** `s.spent` with `entry`: one running total for a calendar period, else merged into the window's bucket. */
function addSpend(s: TenantLedgerState, entry: SpendEntry): SpendEntry[] {
  const windowMs = s.envelope.windowMs;
  if (windowMs === undefined) {
    const total = sum([...s.spent, entry]);
    return [{ ...total, at: s.spent[0]?.at ?? entry.at }];
  }
  const size = Math.max(1, Math.floor(windowMs / WINDOW_BUCKETS));
  const at = Math.floor(entry.at / size) * size;
  const same = s.spent.find((e) => e.at === at);
  if (same === undefined) return [...s.spent, { tokens: entry.tokens, costUsd: entry.costUsd, at }];
  return s.spent.map((e) => (e === same ? { ...add(e, entry), at } : e));
}

/** The envelope the ledger holds after a worker's file said `given`: a disagreement is noted, the ledger's holds. */
function heard(
  s: TenantLedgerState,
  worker: string,
  given: TenantEnvelope,
  nowMs: number,
): TenantLedgerState {
  if (sameEnvelope(s.envelope, given)) {
    return s.disagreements.some((d) => d.worker === worker)
      ? { ...s, disagreements: s.disagreements.filter((d) => d.worker !== worker) }
      : s;
  }
  const others = s.disagreements.filter((d) => d.worker !== worker);
  return {
    ...s,
    disagreements: [{ worker, envelope: given, at: nowMs }, ...others].slice(0, MAX_DISAGREEMENTS),
  };
}

/** Whether two envelopes say the same. */
export function sameEnvelope(a: TenantEnvelope, b: TenantEnvelope): boolean {
  const keys = ['maxCostUsd', 'maxTotalTokens', 'windowMs', 'weight'] as const;
  return keys.every((k) => a[k] === b[k]) && samePeriod(a, b);
}

/**
 * A lease for `request` at `nowMs` with id `id`: as much of `wanted` as is left (never less than `least`), or a
 * refusal saying why and until when. A lease id the ledger holds already is answered with that lease again (a
 * retried update). The worker's own leases it settles with the request are settled first.
 */
export function grantLease(
  s0: TenantLedgerState,
  request: LeaseRequest,
  id: string,
  nowMs: number,
): { state: TenantLedgerState; answer: LeaseAnswer } {
  const known = s0.leases.find((l) => l.id === id);
  if (known !== undefined)
    return { state: s0, answer: { granted: true, lease: known, envelope: s0.envelope } };
  let s = observe(
    heard(
      shrink(settle(s0, request.settle ?? [], nowMs), request.worker, request.shrink ?? []),
      request.worker,
      request.envelope,
      nowMs,
    ),
    request.observed,
    nowMs,
  );
  const e = s.envelope;
  const { spent, held } = usedOf(s);
  const used = add(spent, held);
  const capLeft = s.cap === undefined ? undefined : Math.max(0, s.cap.remaining - s.cap.granted);
  if (capLeft !== undefined && s.cap !== undefined && request.least.tokens > capLeft) {
    const answer: LeaseAnswer = {
      granted: false,
      why: 'spent',
      limit: 'maxTotalTokens',
      left: { tokens: Math.min(capLeft, leftOf(e, used).tokens ?? capLeft) },
      renewsAt: s.cap.resetAt,
      envelope: e,
    };
    return { state: s, answer };
  }
  if (!fits(e, used, request.least)) {
    const live = s.leases.filter((l) => l.expiresAt > nowMs);
    const dead = sum(s.leases.filter((l) => l.expiresAt <= nowMs).map((l) => l.amount));
    const freed = fits(e, add(spent, dead), request.least) && live.length > 0;
    const answer: LeaseAnswer = {
      granted: false,
      why: freed ? 'held' : 'spent',
      limit: passed(e, used, request.least),
      left: leftOf(e, used),
      renewsAt: renewsAt(s, nowMs, request.least),
      envelope: e,
    };
    if (freed) answer.retryAfterMs = Math.min(...live.map((l) => l.expiresAt)) - nowMs;
    return { state: s, answer };
  }
  const left = leftOf(e, used);
  const amount: Amount = {
    tokens: Math.max(
      request.least.tokens,
      Math.min(request.wanted.tokens, left.tokens ?? request.wanted.tokens, capLeft ?? Infinity),
    ),
    costUsd: Math.max(
      request.least.costUsd,
      Math.min(request.wanted.costUsd, left.costUsd ?? request.wanted.costUsd),
    ),
  };
  const lease: Lease = {
    id,
    worker: request.worker,
    amount,
    grantedAt: nowMs,
    expiresAt: leaseEnd(s, request.ttlMs, nowMs),
  };
  s = { ...s, leases: [...s.leases, lease] };
  if (s.cap !== undefined) s = { ...s, cap: { ...s.cap, granted: s.cap.granted + amount.tokens } };
  return { state: s, answer: { granted: true, lease, envelope: e } };
}

/**
 * When a lease granted at `nowMs` ends: its ttl, never past the period's end (a calendar period's leases all end
 * with it, so none is still used when the next one starts afresh) and never longer than half a rolling window.
 */
function leaseEnd(s: TenantLedgerState, ttlMs: number, nowMs: number): number {
  const windowMs = s.envelope.windowMs;
  if (windowMs !== undefined) return nowMs + Math.max(1, Math.min(ttlMs, Math.floor(windowMs / 2)));
  return Math.min(nowMs + ttlMs, renewsAt(s, nowMs));
}

/**
 * The state after the provider's word (newer than the last heard): until its reset no more than `remaining` is
 * granted, whatever the bucket's own count says. A cap past its reset is forgotten.
 */
export function observe(s: TenantLedgerState, o: Observed | undefined, nowMs: number): TenantLedgerState {
  let next = s;
  if (next.cap !== undefined && next.cap.resetAt <= nowMs) {
    const { cap: _c, ...rest } = next;
    next = rest;
  }
  if (o === undefined || o.resetAt <= nowMs || (next.cap !== undefined && o.at <= next.cap.at)) return next;
  return { ...next, cap: { ...o, granted: 0 } };
}

/** The state after `worker` cut its own leases down (never up, never another worker's). */
function shrink(
  s: TenantLedgerState,
  worker: string,
  cuts: readonly { leaseId: string; keep: Amount }[],
): TenantLedgerState {
  if (cuts.length === 0) return s;
  const leases = s.leases.map((l) => {
    const cut = cuts.find((c) => c.leaseId === l.id);
    if (cut === undefined || l.worker !== worker) return l;
    const amount = {
      tokens: Math.min(l.amount.tokens, Math.max(0, cut.keep.tokens)),
      costUsd: Math.min(l.amount.costUsd, Math.max(0, cut.keep.costUsd)),
    };
    return { ...l, amount };
  });
  return { ...s, leases };
}

/** Whether two envelopes renew alike (no `period` is a day). */
function samePeriod(a: TenantEnvelope, b: TenantEnvelope): boolean {
  return a.windowMs === b.windowMs && (a.period ?? 'day') === (b.period ?? 'day');
}

/** The state after an operator set the envelope: it holds over every file's from now on. */
export function setEnvelope(
  s: TenantLedgerState,
  envelope: TenantEnvelope,
  nowMs: number,
): TenantLedgerState {
  const current = rollover(s, nowMs);
  const next = { ...current, envelope, source: 'set' as const, disagreements: [] };
  if (samePeriod(s.envelope, envelope)) return next;
  // Another kind of period: the spend so far and the live leases stay counted, now in the new period (or window).
  const { periodStart: _p, ...rest } = next;
  const spent = sum(current.spent);
  const carried = { ...rest, spent: spent.tokens + spent.costUsd > 0 ? [{ ...spent, at: nowMs }] : [] };
  return envelope.windowMs !== undefined
    ? carried
    : { ...carried, periodStart: periodStartOf(nowMs, envelope.period ?? 'day') };
}

/** The state after an operator's reset: the period's spend, its over-billing and every lease forgotten. */
export function resetLedger(s: TenantLedgerState, nowMs: number): TenantLedgerState {
  return rollover({ ...s, spent: [], leases: [], overBilled: { ...NO_AMOUNT } }, nowMs);
}
