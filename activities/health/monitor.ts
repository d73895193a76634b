/**
 * A worker's view of fleet health: per backend, a cached copy of its health workflow's breaker (re-read from the
 * workflow's memo about every second), the outcomes of this worker's attempts waiting to be sent (one signal per
 * backend per `flushMs` at most), and this worker's probe claims. One per worker process.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';
import { admission, recordOutcome } from '../../policy/index.js';
import type { Admission, AttemptOutcome, BreakerSettings } from '../../policy/index.js';
import { HEALTH_CLAIM_SIGNAL, HEALTH_OUTCOMES_SIGNAL, healthWorkflowId } from '../../common/health.js';
import type { OutcomeBatch } from '../../common/health.js';
import { applySnapshot, entryKey, newEntry } from './backend-entry.js';
import type { Entry } from './backend-entry.js';
import { measureBreaker, readHealth } from './read.js';
import { signalHealth } from './signal.js';
import type { HealthOptions } from './settings.js';

/** How long an attempt waits for its probe claim to be answered before it counts as cooling. */
const CLAIM_WAIT_MS = 3_000;

/** Fleet health in one worker process. */
export class HealthMonitor {
  private readonly entries = new Map<string, Entry>();
  private readonly worker = randomUUID().slice(0, 8);
  private client: Client | undefined;
  /** The meter of the latest attempt (the worker runtime's): the state gauge and the trip count go there. */
  private meter: MetricMeter | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private refreshTimer: NodeJS.Timeout | undefined;
  private readonly flushMs: number;
  private readonly refreshMs: number;
  private readonly idleMs: number;

  constructor(options: HealthOptions = {}) {
    this.flushMs = options.flushMs ?? 250;
    this.refreshMs = options.refreshMs ?? 1_000;
    this.idleMs = options.idleMs ?? 5 * 60_000;
  }

  /**
   * What an attempt on `backend` may do now: send, probe, or cool down. When the probe is free, this worker asks
   * for it once (one claim in flight per backend, whatever the number of attempts waiting) and the first attempt
   * that sees it granted takes it: no other attempt of the fleet gets it. `until` (ms since the epoch) bounds the
   * wait for a claim's answer: an attempt waits no longer than its own time allows (past it, it is `cooling`, as
   * when no answer came), so Temporal's timeout never ends an attempt that sent nothing. It bounds the read of the
   * backend's state that a new (or idle) copy makes first, too: a read not answered by then is `cooling` (the
   * read goes on, for the next attempt).
   */
  async admit(
    client: Client,
    taskQueue: string,
    backend: string,
    settings: BreakerSettings,
    until?: number,
  ): Promise<Admission> {
    const entered = await within(this.entry(client, taskQueue, backend, settings), until);
    if (entered === LATE) return { kind: 'cooling', retryAfterMs: 1_000 };
    const entry = entered;
    for (let round = 0; round < 2; round++) {
      const a = admission(entry.breaker, Date.now(), entry.claims);
      if (a.kind === 'probe') {
        entry.claims = entry.claims.filter((id) => id !== a.id);
        return a;
      }
      if (a.kind !== 'claim') return a;
      entry.claiming ??= this.claim(entry).finally(() => {
        entry.claiming = undefined;
      });
      if (!(await settledBy(entry.claiming, until))) break;
    }
    return { kind: 'cooling', retryAfterMs: 1_000 };
  }

  /**
   * How long `backend` is still cooling by this worker's copy, without taking a probe: `undefined` when it is not
   * (closed, a free probe, or a backend this worker has not seen yet). A check is a use: attempts held back by it
   * never `admit`, and the copy they are held by must keep being re-read, or a `health reset` (or the end of an
   * opening) would never reach them. A copy idle past `idleMs` (no longer re-read: it may be minutes old) is read
   * again first, as `admit` does, so that a stale `open` holds no attempt.
   */
  async coolingFor(taskQueue: string, backend: string): Promise<number | undefined> {
    const entry = this.entries.get(entryKey(taskQueue, backend));
    if (entry === undefined) return undefined;
    await this.readIfIdle(entry);
    entry.lastUsed = Date.now();
    const a = admission(entry.breaker, Date.now(), entry.claims);
    return a.kind === 'cooling' ? a.retryAfterMs : undefined;
  }

  /** Asks the health workflow for the probe and re-reads it until it says who has it (or a few seconds pass). */
  private async claim(entry: Entry): Promise<void> {
    const id = `${this.worker}:${randomUUID().slice(0, 8)}`;
    entry.claims.push(id);
    await this.signal(entry, HEALTH_CLAIM_SIGNAL, { id, at: Date.now() });
    const until = Date.now() + CLAIM_WAIT_MS;
    while (Date.now() < until) {
      await this.refresh(entry);
      if (admission(entry.breaker, Date.now(), entry.claims).kind !== 'claim') return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * Queues one attempt's outcome; it is applied to the local copy at once and sent with the next batch. One that
   * changes the copy's phase (a trip, a retry-after, a probe's answer) is sent at once, after the batch in flight
   * if any, not at the next flush: the rest of the fleet learns of it only through the health workflow.
   */
  report(taskQueue: string, backend: string, outcome: AttemptOutcome): void {
    const entry = this.entries.get(entryKey(taskQueue, backend));
    if (entry === undefined) return;
    entry.pending.push(outcome);
    const before = entry.breaker.phase;
    entry.breaker = recordOutcome(entry.breaker, outcome, Date.now(), entry.settings);
    if (entry.breaker.phase !== before) void this.flushOne(entry).then(() => this.flushOne(entry));
  }

  /** Stops the timers (pending outcomes are sent first, also those queued while a batch was in flight). */
  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    clearInterval(this.refreshTimer);
    await this.flush();
    await this.flush();
  }

  /** The backend's entry; a new one reads the workflow's state first, so a fresh worker does not send blind. */
  private async entry(
    client: Client,
    taskQueue: string,
    backend: string,
    settings: BreakerSettings,
  ): Promise<Entry> {
    this.client ??= client;
    this.start();
    const key = entryKey(taskQueue, backend);
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = newEntry(this.worker, taskQueue, backend, settings);
      this.entries.set(key, entry);
      await this.refresh(entry).catch(() => undefined);
    } else {
      await this.readIfIdle(entry);
    }
    entry.settings = settings;
    entry.lastUsed = Date.now();
    return entry;
  }

  /**
   * Idle past `idleMs`: no longer re-read, so the copy may be minutes old (the fleet may have opened or reset the
   * backend meanwhile): read it again before it decides an attempt, as for a new entry.
   */
  private async readIfIdle(entry: Entry): Promise<void> {
    if (entry.lastUsed > Date.now() - this.idleMs) return;
    await this.refresh(entry).catch(() => undefined);
  }

  private start(): void {
    if (this.flushTimer !== undefined) return;
    this.flushTimer = setInterval(() => void this.flush(), this.flushMs);
    this.refreshTimer = setInterval(() => void this.refreshAll(), this.refreshMs);
    this.flushTimer.unref();
    this.refreshTimer.unref();
  }

  /** Sends every backend's pending outcomes; a backend whose batch is still in flight is waited for, not sent twice. */
  private async flush(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => this.flushOne(e)));
  }

  private flushOne(e: Entry): Promise<void> {
    if (e.flushing === undefined && e.pending.length > 0) {
      e.flushing = this.send(e).finally(() => {
        e.flushing = undefined;
      });
    }
    return e.flushing ?? Promise.resolve();
  }

  /**
   * One batch, numbered: it counts as sent while on its way (a state read meanwhile keeps it applied, see
   * `applySnapshot`); on failure its outcomes go back to the front of the queue, for the next flush.
   */
  private async send(e: Entry): Promise<void> {
    e.seq += 1;
    const batch = { outcomes: e.pending.splice(0), seq: e.seq, at: Date.now() };
    e.sent.push(batch);
    const arg: OutcomeBatch = {
      outcomes: batch.outcomes,
      settings: e.settings,
      from: { worker: this.worker, seq: batch.seq },
    };
    try {
      await this.signal(e, HEALTH_OUTCOMES_SIGNAL, arg);
    } catch {
      e.sent = e.sent.filter((b) => b !== batch);
      e.pending.unshift(...batch.outcomes);
    }
  }

  /** Re-reads every backend an attempt used (admitted or checked) within `idleMs`. */
  private async refreshAll(): Promise<void> {
    const idleAfter = Date.now() - this.idleMs;
    await Promise.all(
      [...this.entries.values()]
        .filter((e) => e.lastUsed > idleAfter)
        .map((e) => this.refresh(e).catch(() => undefined)),
    );
  }

  /** Re-reads the workflow's state (see `applySnapshot`); joins the read already in flight, if any. */
  private refresh(entry: Entry): Promise<void> {
    entry.reading ??= this.read(entry).finally(() => {
      entry.reading = undefined;
    });
    return entry.reading;
  }

  private async read(entry: Entry): Promise<void> {
    if (this.client === undefined) return;
    const snapshot = await readHealth(this.client, healthWorkflowId(entry.taskQueue, entry.backend));
    if (snapshot === undefined || !applySnapshot(entry, snapshot, Date.now())) return;
    if (this.meter === undefined) return;
    measureBreaker(
      this.meter,
      { backend: entry.backend, task_queue: entry.taskQueue },
      snapshot.breaker,
      entry.tripsSeen,
    );
    entry.tripsSeen = snapshot.breaker.trips;
  }

  /** Remembers the meter attempts record into (the state gauge and the trip counter go there). */
  useMeter(meter: MetricMeter): void {
    this.meter = meter;
  }

  private async signal(entry: Entry, signal: string, arg: unknown): Promise<void> {
    if (this.client === undefined) return;
    await signalHealth(this.client, entry, signal, arg);
  }
}

/** What {@link within} gives when `until` came first. */
const LATE: unique symbol = Symbol('late');

/** The value of `p`, or {@link LATE} when `until` passes first (always the value, however long, without `until`). */
async function within<T>(p: Promise<T>, until: number | undefined): Promise<T | typeof LATE> {
  if (until === undefined) return p;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), Math.max(0, until - Date.now()));
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `p` settled by `until` (always, waiting as long as it takes, without `until`). */
async function settledBy(p: Promise<void>, until: number | undefined): Promise<boolean> {
  return (await within(p, until)) !== LATE;
}
