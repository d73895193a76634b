/**
 * A tenant's envelope: what it may spend per period, held by one ledger for every call, turn, attempt and worker
 * of the tenant. Workers lease allowances from the ledger and reserve each attempt against their lease before
 * sending; what was billed settles after. Until a lease is settled its whole amount counts as spent, so nothing is
 * ever sent on room another worker may be using; what providers bill beyond the reservations is counted apart.
 * Pure: the ledger workflow calls these with Temporal's time.
 */

import { utcMonthStart, utcYearMonth } from './time.js';

/** A period an envelope renews at: midnight UTC (`day`) or the first of the month, midnight UTC (`month`). */
export type TenantPeriod = 'day' | 'month';

/** One tenant's envelope (and fairness weight), as the tenants file gives it. */
export interface TenantEnvelope {
  /** USD per period (billed cost, else priced by the providers file's `pricing`). */
  maxCostUsd?: number;
  /** Input + output tokens per period. */
  maxTotalTokens?: number;
  /** The calendar period the limits hold for, UTC. Not with `windowMs`. @default 'day' (when neither is given) */
  period?: TenantPeriod;
  /** A rolling window instead of a calendar period: the limits hold for any `windowMs` of time. */
  windowMs?: number;
  /** The tenant's fairness weight: its share of the task queue and of in-worker waits. @default 1 */
  weight?: number;
}

/** What an envelope counts: tokens and USD. */
export interface Amount {
  tokens: number;
  costUsd: number;
}

/** Nothing. */
export const NO_AMOUNT: Readonly<Amount> = Object.freeze({ tokens: 0, costUsd: 0 });

/** One lease the ledger has granted and not had settled. */
export interface Lease {
  id: string;
  /** The worker that holds it (its identity). */
  worker: string;
  /** What the lease allows; counted as spent until settled. */
  amount: Amount;
  /** When it was granted and until when the worker may reserve against it (epoch ms). */
  grantedAt: number;
  expiresAt: number;
}

/** A worker asks for an allowance (the update's id is the lease's). */
export interface LeaseRequest {
  /** The worker's identity. */
  worker: string;
  /** What the worker asks for: it takes less, down to `least`. */
  wanted: Amount;
  /** The least it can use: the reservation of the attempt that made it ask. */
  least: Amount;
  /** How long the lease lasts. */
  ttlMs: number;
  /** The envelope of the worker's tenants file for this tenant: a disagreement with the ledger's is reported. */
  envelope: TenantEnvelope;
  /** Leases of this worker it is done with (nothing in flight on them), settled before the new one is granted. */
  settle?: Settlement[];
  /** What the provider last said is left (its remaining-tokens headers), for a tokens-per-minute bucket. */
  observed?: Observed;
  /**
   * Leases of this worker it stops reserving against while attempts are still in flight on them: each is cut down
   * to `keep` (what was billed and what is in flight), so the rest is free for others at once.
   */
  shrink?: { leaseId: string; keep: Amount }[];
}

/** A provider's word on what is left: `remaining` tokens until `resetAt`, as of `at` (epoch ms). */
export interface Observed {
  remaining: number;
  resetAt: number;
  at: number;
}

/** The provider's cap until its reset: what it said was left, and what was granted since. */
export interface ProviderCap extends Observed {
  granted: number;
}

/** The ledger's answer to a {@link LeaseRequest}. */
export type LeaseAnswer =
  | { granted: true; lease: Lease; envelope: TenantEnvelope }
  | {
      granted: false;
      /**
       * `spent`: what was spent (settled, and expired leases not settled yet) leaves less than `least` before the
       * envelope renews. `held`: live leases of workers leave less; they free by `retryAfterMs` at the latest.
       */
      why: 'spent' | 'held';
      /** The limit that does not fit: `maxTotalTokens` or `maxCostUsd`. */
      limit: 'maxTotalTokens' | 'maxCostUsd';
      /** What is left of the envelope, spent and held counted (for the limits it sets). */
      left: Partial<Amount>;
      /** When the envelope renews (the next period's start, or when enough spend leaves the window). */
      renewsAt?: number;
      /** `held`: how long until the earliest live lease expires. */
      retryAfterMs?: number;
      envelope: TenantEnvelope;
    };

/** What a worker settles of one lease: what was billed under it, and what it reserved under it in all. */
export interface Settlement {
  leaseId: string;
  billed: Amount;
  reserved: Amount;
}

/** Settled spend; `at` places it in a rolling window. */
export interface SpendEntry extends Amount {
  at: number;
}

/** A worker whose file's envelope differs from the ledger's. */
export interface Disagreement {
  worker: string;
  envelope: TenantEnvelope;
  at: number;
}

/** The ledger's durable state. */
export interface TenantLedgerState {
  envelope: TenantEnvelope;
  /** Where the envelope came from: a worker's file, or an operator's `tenants set` (which files do not undo). */
  source: 'file' | 'set';
  /** A calendar period's start (epoch ms); absent for a rolling window. */
  periodStart?: number;
  /** Settled spend in the period (a rolling window keeps it in buckets, see `WINDOW_BUCKETS`). */
  spent: SpendEntry[];
  leases: Lease[];
  /** What providers billed beyond the reservations in the period (Σ max(0, billed − reserved) per lease). */
  overBilled: Amount;
  /** Workers whose file disagrees with the ledger's envelope (a few, latest first). */
  disagreements: Disagreement[];
  /** A tokens-per-minute bucket: what the provider said is left until its reset (its headers). */
  cap?: ProviderCap;
}

/** A rolling window keeps its settled spend in at most this many buckets (its memory is bounded). */
export const WINDOW_BUCKETS = 120;
/** How many disagreeing workers a ledger remembers. */
export const MAX_DISAGREEMENTS = 8;

const LIMITS = [
  { limit: 'maxTotalTokens', key: 'tokens' },
  { limit: 'maxCostUsd', key: 'costUsd' },
] as const;

/** Whether the envelope limits anything (a weight-only entry does not). */
export function limitsSpend(e: TenantEnvelope | undefined): boolean {
  return e !== undefined && (e.maxTotalTokens !== undefined || e.maxCostUsd !== undefined);
}

const DAY_MS = 86_400_000;

/** The start of the calendar period holding `nowMs`, UTC (calendar arithmetic only: policy/ reads no clock). */
export function periodStartOf(nowMs: number, period: TenantPeriod): number {
  if (period === 'day') return Math.floor(nowMs / DAY_MS) * DAY_MS;
  const { year, month } = utcYearMonth(nowMs);
  return utcMonthStart(year, month);
}

/** The start of the calendar period after the one starting at `startMs`. */
export function nextPeriodStart(startMs: number, period: TenantPeriod): number {
  if (period === 'day') return startMs + DAY_MS;
  const { year, month } = utcYearMonth(startMs);
  return utcMonthStart(year, month + 1);
}

const periodOf = (e: TenantEnvelope): TenantPeriod => e.period ?? 'day';
export const add = (a: Amount, b: Amount): Amount => ({
  tokens: a.tokens + b.tokens,
  costUsd: a.costUsd + b.costUsd,
});
export const sum = (xs: readonly Amount[]): Amount => xs.reduce(add, { ...NO_AMOUNT });

/** A new ledger's state. */
export function initialLedger(envelope: TenantEnvelope, nowMs: number): TenantLedgerState {
  return rollover(
    { envelope, source: 'file', spent: [], leases: [], overBilled: { ...NO_AMOUNT }, disagreements: [] },
    nowMs,
  );
}

/**
 * The state at `nowMs`: a calendar period that ended starts the next one afresh (its leases' later settlements
 * belong to the period they were reserved in, so they are dropped with it); a rolling window forgets the spend and
 * the leases granted before it.
 */
export function rollover(s: TenantLedgerState, nowMs: number): TenantLedgerState {
  const windowMs = s.envelope.windowMs;
  if (windowMs !== undefined) {
    const from = nowMs - windowMs;
    const { periodStart: _p, ...rest } = s;
    return {
      ...rest,
      spent: s.spent.filter((e) => e.at > from),
      // A lease counts until its end has left the window (it may be used up to its end).
      leases: s.leases.filter((l) => l.expiresAt > from),
    };
  }
  const start = periodStartOf(nowMs, periodOf(s.envelope));
  if (s.periodStart === start) return s;
  return { ...s, periodStart: start, spent: [], leases: [], overBilled: { ...NO_AMOUNT } };
}

/** When the envelope renews for an attempt needing `least`: the next period, or when enough spend leaves the window. */
export function renewsAt(s: TenantLedgerState, nowMs: number, least: Amount = NO_AMOUNT): number {
  const windowMs = s.envelope.windowMs;
  if (windowMs === undefined) {
    return nextPeriodStart(s.periodStart ?? periodStartOf(nowMs, periodOf(s.envelope)), periodOf(s.envelope));
  }
  // The oldest spend leaves the window first: the first moment enough of it has left for `least` to fit.
  const entries = [...s.spent, ...s.leases.map((l) => ({ ...l.amount, at: l.expiresAt }))].sort(
    (a, b) => a.at - b.at,
  );
  let used = sum(entries);
  for (const e of entries) {
    used = { tokens: used.tokens - e.tokens, costUsd: used.costUsd - e.costUsd };
    if (fits(s.envelope, used, least)) return e.at + windowMs;
  }
  return nowMs + windowMs;
}

/** Whether `used + least` stays within every limit of `e`. */
export function fits(e: TenantEnvelope, used: Amount, least: Amount): boolean {
  return LIMITS.every(({ limit, key }) => {
    const max = e[limit];
    return max === undefined || used[key] + least[key] <= max;
  });
}

/** The first limit of `e` that `used + least` passes. */
export function passed(e: TenantEnvelope, used: Amount, least: Amount): 'maxTotalTokens' | 'maxCostUsd' {
  const hit = LIMITS.find(({ limit, key }) => {
    const max = e[limit];
    return max !== undefined && used[key] + least[key] > max;
  });
  return hit?.limit ?? 'maxTotalTokens';
}

/** What is left of each limit `e` sets, after `used`. */
export function leftOf(e: TenantEnvelope, used: Amount): Partial<Amount> {
  const left: Partial<Amount> = {};
  for (const { limit, key } of LIMITS) {
    const max = e[limit];
    if (max !== undefined) left[key] = Math.max(0, max - used[key]);
  }
  return left;
}

/** Settled spend and what leases hold (an expired one in full, until settled). */
export function usedOf(s: TenantLedgerState): { spent: Amount; held: Amount } {
  return { spent: sum(s.spent), held: sum(s.leases.map((l) => l.amount)) };
}

/** What the envelope looks like at `nowMs`: spent, held, left, renewal. */
export function envelopeView(s: TenantLedgerState, nowMs: number) {
  const { spent, held } = usedOf(s);
  return {
    spent,
    held,
    left: leftOf(s.envelope, add(spent, held)),
    renewsAt: renewsAt(s, nowMs),
  };
}
