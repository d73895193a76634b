/**
 * A worker's side of the tenant ledgers: per tenant, the lease it holds and the reservations made against it.
 * An attempt reserves its bound locally; only when the lease cannot hold it does the worker ask the ledger for a
 * new one (one request per tenant at a time, so a burst of attempts makes one round trip, not one each). A lease is
 * settled (what was billed under it, by signal) once it has expired or been replaced and nothing is in flight on
 * it: until then the ledger counts it in full, so no other worker can spend its room.
 */
import type { Client } from '@temporalio/client';
import { NO_AMOUNT } from '../../policy/index.js';
import { add } from '../../policy/envelope.js';
import type {
  Amount,
  Lease,
  LeaseAnswer,
  LeaseRequest,
  Observed,
  Settlement,
  TenantEnvelope,
} from '../../policy/index.js';
import { tenantLedgerId } from '../../common/tenants.js';
import type { TenantLedgerInput } from '../../common/tenants.js';
import { abortable, askLedger, sendSettlements, wantedOf } from './ledger-client.js';

/** How long a lease lasts: a few round trips per worker per minute at most. */
export const LEASE_TTL_MS = 30_000;
/** A lease this close to its end takes no new reservation (an attempt may start just before it ends). */
const LEASE_MARGIN_MS = 1_000;

const sub = (a: Amount, b: Amount): Amount => ({
  tokens: a.tokens - b.tokens,
  costUsd: a.costUsd - b.costUsd,
});
/** Whether `a` stays within `max` in each limit `envelope` sets (a dimension it does not limit is not counted). */
const within = (a: Amount, max: Amount, envelope: TenantEnvelope): boolean =>
  (envelope.maxTotalTokens === undefined || a.tokens <= max.tokens) &&
  (envelope.maxCostUsd === undefined || a.costUsd <= max.costUsd + 1e-12);

/** A lease as this worker keeps it: what it reserved, what finished attempts billed, what is in flight. */
interface Held {
  lease: Lease;
  /** The envelope it was leased under: the limits its reservations are held to. */
  envelope: TenantEnvelope;
  tenant: string;
  /** Σ reservations of the attempts in flight on it. */
  inFlight: Amount;
  running: number;
  /** Σ billed by the attempts done on it. */
  billed: Amount;
  /** Σ reservations of the attempts done on it (for over-billing). */
  reservedDone: Amount;
  /** Replaced by a newer lease, or expired: settled when nothing is in flight. */
  retired: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

/** One attempt's reservation: `done` settles what it billed into the lease. */
export interface Reservation {
  leaseId: string;
  amount: Amount;
  done(billed: Amount): void;
}

/** Why nothing was reserved: the ledger's refusal, or a ledger that could not be reached. */
export type NoRoom = { refused: Extract<LeaseAnswer, { granted: false }> } | { unreachable: string };

/** A ledger: a tenant's (`model-retry-tenant:<tenant>`) or a tokens-per-minute bucket's. */
export interface LedgerRef {
  id: string;
  /** Its name in its input: the tenant, or the bucket's key. */
  name: string;
}

/** The ledger of `tenant`. */
export const tenantLedger = (tenant: string): LedgerRef => ({ id: tenantLedgerId(tenant), name: tenant });

/** Where the ledgers are and who asks. */
export interface LeaseContext {
  client: Client;
  /** The task queue the ledger runs on when this worker starts it. */
  taskQueue: string;
  signal: AbortSignal;
}

/** Every `TenantLeases` of this process, so a stopping worker can give back what it holds. */
const LIVE = new Set<TenantLeases>();

/**
 * Settles every idle lease of this process (what its attempts billed; the rest goes back to the ledger), waiting at
 * most `withinMs`. A worker calls it when it stops: a lease never settled stays counted until its period renews.
 */
export async function settleEveryLease(withinMs = 5_000): Promise<void> {
  const all = Promise.all([...LIVE].map((l) => l.settleAll()));
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)));
  await Promise.race([all.then(() => undefined), late]).finally(() => clearTimeout(timer));
}

/** The tenant ledgers as one worker process sees them. */
export class TenantLeases {
  private readonly held = new Map<string, Held[]>();
  private readonly asking = new Map<string, Promise<unknown>>();
  /** The provider's latest word per ledger, sent with its next lease request. */
  private readonly observed = new Map<string, Observed>();
  private seq = 0;

  constructor(
    private readonly worker: string,
    private readonly now: () => number = Date.now,
    private readonly ttlMs = LEASE_TTL_MS,
  ) {
    LIVE.add(this);
  }

  /**
   * Reserves `amount` for an attempt of `tenant` under `envelope`: against a lease this worker holds, else a new
   * one. A refusal or an unreachable ledger reserves nothing (the attempt must not be sent).
   */
  async reserve(
    ledger: LedgerRef | string,
    envelope: TenantEnvelope,
    amount: Amount,
    at: LeaseContext,
  ): Promise<Reservation | NoRoom> {
    const ref = typeof ledger === 'string' ? tenantLedger(ledger) : ledger;
    const tenant = ref.id;
    const local = this.take(tenant, amount);
    if (local !== undefined) return local;
    // One lease request per tenant at a time: those that wait for it reserve against what it brings.
    for (let before = this.asking.get(tenant); before !== undefined; before = this.asking.get(tenant)) {
      await before.catch(() => undefined);
      const after = this.take(tenant, amount);
      if (after !== undefined) return after;
    }
    const asked = this.lease(ref, envelope, amount, at);
    this.asking.set(tenant, asked);
    try {
      const answer = await asked;
      if ('unreachable' in answer) return answer;
      if (!answer.granted) return { refused: answer };
      return (
        this.take(tenant, amount) ?? {
          unreachable: 'other attempts of this worker used the new lease up first',
        }
      );
    } finally {
      if (this.asking.get(tenant) === asked) this.asking.delete(tenant);
    }
  }

  private take(tenant: string, amount: Amount): Reservation | undefined {
    const now = this.now();
    const usable = (this.held.get(tenant) ?? []).find(
      (h) =>
        !h.retired &&
        h.lease.expiresAt - LEASE_MARGIN_MS > now &&
        within(add(add(h.billed, h.inFlight), amount), h.lease.amount, h.envelope),
    );
    if (usable === undefined) return undefined;
    usable.inFlight = add(usable.inFlight, amount);
    usable.running += 1;
    let settled = false;
    return {
      leaseId: usable.lease.id,
      amount,
      done: (billed) => {
        if (settled) return;
        settled = true;
        usable.inFlight = sub(usable.inFlight, amount);
        usable.running -= 1;
        usable.billed = add(usable.billed, billed);
        usable.reservedDone = add(usable.reservedDone, amount);
        if (usable.retired && usable.running === 0) void this.settleNow([usable]);
      },
    };
  }

  /**
   * The provider says `remaining` tokens are left until `resetAt`: a lease of this worker with more room than that
   * is retired, so the next attempt asks the ledger, carrying what the provider said.
   */
  heard(ledgerId: string, o: Observed): void {
    const last = this.observed.get(ledgerId);
    if (last !== undefined && last.at >= o.at) return;
    this.observed.set(ledgerId, o);
    for (const h of this.held.get(ledgerId) ?? []) {
      const room = h.lease.amount.tokens - h.billed.tokens - h.inFlight.tokens;
      if (room > o.remaining) h.retired = true;
    }
  }

  private async lease(
    ref: LedgerRef,
    envelope: TenantEnvelope,
    least: Amount,
    at: LeaseContext,
  ): Promise<LeaseAnswer | { unreachable: string }> {
    const tenant = ref.id;
    // This worker's leases that cannot hold the attempt are retired: the idle ones settle with the request.
    const mine = this.held.get(tenant) ?? [];
    for (const h of mine) h.retired = true;
    const idle = mine.filter((h) => h.running === 0);
    // A busy lease keeps only what its attempts billed and hold: the rest goes back with the request.
    const busy = mine.filter((h) => h.running > 0);
    for (const h of busy) h.lease = { ...h.lease, amount: add(h.billed, h.inFlight) };
    this.forget(tenant, idle);
    const request: LeaseRequest = {
      worker: this.worker,
      wanted: wantedOf(envelope, least),
      least,
      ttlMs: this.ttlMs,
      envelope,
      ...(idle.length > 0 ? { settle: idle.map(settlementOf) } : {}),
      ...(busy.length > 0
        ? { shrink: busy.map((h) => ({ leaseId: h.lease.id, keep: h.lease.amount })) }
        : {}),
    };
    const observed = this.observed.get(tenant);
    if (observed !== undefined && observed.resetAt > this.now()) request.observed = observed;
    const sentAt = this.now();
    const leaseId = `${this.worker}/${sentAt}/${++this.seq}`;
    const input: TenantLedgerInput = { tenant: ref.name, envelope };
    try {
      const asked = askLedger(at.client, tenant, at.taskQueue, input, request, leaseId);
      // A lease granted after the attempt was given up is kept all the same, so it is settled at its end (the
      // ledger counts a lease never settled as spent until the period renews).
      const kept = asked.then((answer) => {
        if (answer.granted) this.keep(tenant, envelope, answer.lease, sentAt, at.client);
        return answer;
      });
      kept.catch(() => undefined);
      return await abortable(kept, at.signal, tenant, at.taskQueue);
    } catch (error) {
      // The settlements that rode with the request are sent again on their own: the ledger takes each once.
      if (idle.length > 0) void this.signal(at.client, tenant, idle.map(settlementOf));
      const why = error instanceof Error ? error.message : String(error);
      return { unreachable: why.length > 300 ? `${why.slice(0, 300)}…` : why };
    }
  }

  private keep(tenant: string, envelope: TenantEnvelope, lease: Lease, sentAt: number, client: Client): void {
    const h: Held = {
      lease,
      envelope,
      tenant,
      inFlight: { ...NO_AMOUNT },
      running: 0,
      billed: { ...NO_AMOUNT },
      reservedDone: { ...NO_AMOUNT },
      retired: false,
    };
    // The ledger's clock granted it; this worker's says when to stop using it, counted from when it asked (the
    // ledger granted it later than that), so never later than the ledger's end.
    const lastsMs = Math.max(0, Math.min(lease.expiresAt - lease.grantedAt, this.ttlMs));
    h.lease = { ...lease, expiresAt: sentAt + lastsMs };
    const leftMs = Math.max(0, sentAt + lastsMs - this.now());
    h.timer = setTimeout(() => {
      h.retired = true;
      if (h.running === 0) void this.settleNow([h], client);
    }, leftMs);
    h.timer.unref?.();
    this.held.set(tenant, [...(this.held.get(tenant) ?? []), h]);
    this.clients.set(tenant, client);
  }

  private readonly clients = new Map<string, Client>();

  private forget(tenant: string, done: readonly Held[]): void {
    for (const h of done) if (h.timer !== undefined) clearTimeout(h.timer);
    const left = (this.held.get(tenant) ?? []).filter((h) => !done.includes(h));
    if (left.length > 0) this.held.set(tenant, left);
    else this.held.delete(tenant);
  }

  private async settleNow(done: Held[], client?: Client): Promise<void> {
    const first = done[0];
    if (first === undefined) return;
    this.forget(first.tenant, done);
    const to = client ?? this.clients.get(first.tenant);
    if (to !== undefined) await this.signal(to, first.tenant, done.map(settlementOf));
  }

  private async signal(client: Client, ledgerId: string, settlements: Settlement[]): Promise<void> {
    // A lost settlement only keeps the room held (counted as spent) until the period renews: never over-spends.
    await sendSettlements(client, ledgerId, { worker: this.worker, settlements }).catch(() => undefined);
  }

  /** Settles every idle lease now (a worker shutting down gives its room back). */
  async settleAll(): Promise<void> {
    const all = [...this.held.values()].flat().filter((h) => h.running === 0);
    const byTenant = new Map<string, Held[]>();
    for (const h of all) byTenant.set(h.tenant, [...(byTenant.get(h.tenant) ?? []), h]);
    await Promise.all([...byTenant.values()].map((hs) => this.settleNow(hs)));
  }
}

/** What a lease settles: what its attempts billed and reserved. */
function settlementOf(h: Held): Settlement {
  return { leaseId: h.lease.id, billed: h.billed, reserved: h.reservedDone };
}
