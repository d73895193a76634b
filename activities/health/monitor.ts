/**
 * A worker's view of fleet health: per backend, a cached copy of its health workflow's breaker (re-read from the
 * workflow's memo about every second), the outcomes of this worker's attempts waiting to be sent (one signal per
 * backend per `flushMs` at most), and this worker's probe claims. One per worker process.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { MetricMeter } from '@temporalio/common';
import { admission, initialBreaker, recordOutcome } from '../../policy/index.js';
import type { Admission, AttemptOutcome, Breaker, BreakerSettings } from '../../policy/index.js';
import {
  HEALTH_CLAIM_SIGNAL,
  HEALTH_OUTCOMES_SIGNAL,
  HEALTH_WORKFLOW_TYPE,
  healthWorkflowId,
} from '../../common/health.js';
import type { HealthInput } from '../../common/health.js';
import { measureBreaker, readHealth } from './read.js';
import type { HealthOptions } from './settings.js';

/** How long an attempt waits for its probe claim to be answered before it counts as cooling. */
const CLAIM_WAIT_MS = 3_000;

interface Entry {
  taskQueue: string;
  backend: string;
  settings: BreakerSettings;
  breaker: Breaker;
  pending: AttemptOutcome[];
  /**
   * Outcomes sent, with when their signal was accepted: until a state read from after then (the workflow has
   * them), they stay applied to the local copy, so a read that raced the signal cannot undo what they did.
   */
  sent: { outcomes: AttemptOutcome[]; at: number }[];
  /** The workflow time of the latest state applied (epoch ms; 0 before the first read). */
  asOf: number;
  /** The trips the workflow had counted when last read (-1 before the first read): the counter adds the rest. */
  tripsSeen: number;
  /** This worker's probe claims not yet taken by an attempt. */
  claims: string[];
  /** The claim this worker is waiting on, if any. */
  claiming?: Promise<void> | undefined;
  lastUsed: number;
}

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

  constructor(options: HealthOptions = {}) {
    this.flushMs = options.flushMs ?? 250;
    this.refreshMs = options.refreshMs ?? 1_000;
  }

  /**
   * What an attempt on `backend` may do now: send, probe, or cool down. When the probe is free, this worker asks
   * for it once (one claim in flight per backend, whatever the number of attempts waiting) and the first attempt
   * that sees it granted takes it: no other attempt of the fleet gets it.
   */
  async admit(
    client: Client,
    taskQueue: string,
    backend: string,
    settings: BreakerSettings,
  ): Promise<Admission> {
    const entry = await this.entry(client, taskQueue, backend, settings);
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
      await entry.claiming;
    }
    return { kind: 'cooling', retryAfterMs: 1_000 };
  }

  /**
   * How long `backend` is still cooling by this worker's copy, without asking the workflow or taking a probe:
   * `undefined` when it is not (closed, a free probe, or a backend this worker has not seen yet).
   */
  coolingFor(taskQueue: string, backend: string): number | undefined {
    const entry = this.entries.get(`${taskQueue}\u0000${backend}`);
    if (entry === undefined) return undefined;
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

  /** Queues one attempt's outcome; it is applied to the local copy at once and sent with the next batch. */
  report(taskQueue: string, backend: string, outcome: AttemptOutcome): void {
    const entry = this.entries.get(`${taskQueue}\u0000${backend}`);
    if (entry === undefined) return;
    entry.pending.push(outcome);
    entry.breaker = recordOutcome(entry.breaker, outcome, Date.now(), entry.settings);
  }

  /** Stops the timers (pending outcomes are sent first). */
  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    clearInterval(this.refreshTimer);
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
    const key = `${taskQueue}\u0000${backend}`;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      entry = {
        taskQueue,
        backend,
        settings,
        breaker: initialBreaker(0, settings),
        pending: [],
        sent: [],
        claims: [],
        lastUsed: 0,
        tripsSeen: -1,
        asOf: 0,
      };
      this.entries.set(key, entry);
      await this.refresh(entry).catch(() => undefined);
    }
    entry.settings = settings;
    entry.lastUsed = Date.now();
    return entry;
  }

  private start(): void {
    if (this.flushTimer !== undefined) return;
    this.flushTimer = setInterval(() => void this.flush().catch(() => undefined), this.flushMs);
    this.refreshTimer = setInterval(() => void this.refreshAll(), this.refreshMs);
    this.flushTimer.unref();
    this.refreshTimer.unref();
  }

  private async flush(): Promise<void> {
    await Promise.all(
      [...this.entries.values()]
        .filter((e) => e.pending.length > 0)
        .map(async (e) => {
          const outcomes = e.pending.splice(0);
          // The workflow's state has them once it was read from a task that started after the signal; taking the
          // time before sending errs towards forgetting them a moment early, never towards counting them twice.
          const at = Date.now();
          try {
            await this.signal(e, HEALTH_OUTCOMES_SIGNAL, { outcomes, settings: e.settings });
            e.sent.push({ outcomes, at });
          } catch {
            e.pending.unshift(...outcomes);
          }
        }),
    );
  }

  private async refreshAll(): Promise<void> {
    const idleAfter = Date.now() - 5 * 60_000;
    await Promise.all(
      [...this.entries.values()]
        .filter((e) => e.lastUsed > idleAfter)
        .map((e) => this.refresh(e).catch(() => undefined)),
    );
  }

  /**
   * Re-reads the workflow's state. A read older than one already applied is ignored (reads may finish out of
   * order), and this worker's own opening stays until the workflow has had the outcomes that caused it: a state
   * read before then (`asOf` earlier than the local opening) cannot undo it.
   */
  private async refresh(entry: Entry): Promise<void> {
    if (this.client === undefined) return;
    const snapshot = await readHealth(this.client, healthWorkflowId(entry.taskQueue, entry.backend));
    if (snapshot === undefined || snapshot.asOf < entry.asOf) return;
    entry.asOf = snapshot.asOf;
    const local = entry.breaker;
    // Outcomes the workflow may not have yet (not sent, or sent after the state read was made) stay in the local
    // copy until it has them.
    entry.sent = entry.sent.filter((batch) => batch.at > snapshot.asOf);
    const unseen = [...entry.sent.flatMap((batch) => batch.outcomes), ...entry.pending];
    const read = unseen.reduce((b, o) => recordOutcome(b, o, Date.now(), entry.settings), snapshot.breaker);
    const ownOpening =
      local.phase === 'open' && local.since > snapshot.asOf && (local.until ?? 0) > Date.now();
    entry.breaker = ownOpening && read.phase !== 'open' ? local : read;
    if (entry.breaker.phase === 'closed') entry.claims = [];
    this.measure(entry, snapshot.breaker);
  }

  /** Remembers the meter attempts record into (see {@link measure}). */
  useMeter(meter: MetricMeter): void {
    this.meter = meter;
  }

  private measure(entry: Entry, breaker: Breaker): void {
    if (this.meter === undefined) return;
    measureBreaker(
      this.meter,
      { backend: entry.backend, task_queue: entry.taskQueue },
      breaker,
      entry.tripsSeen,
    );
    entry.tripsSeen = breaker.trips;
  }

  private async signal(entry: Entry, signal: string, arg: unknown): Promise<void> {
    if (this.client === undefined) return;
    const input: HealthInput = {
      taskQueue: entry.taskQueue,
      backend: entry.backend,
      settings: entry.settings,
    };
    await this.client.workflow.signalWithStart(HEALTH_WORKFLOW_TYPE, {
      workflowId: healthWorkflowId(entry.taskQueue, entry.backend),
      taskQueue: entry.taskQueue,
      args: [input],
      signal,
      signalArgs: [arg],
      staticSummary: `fleet health of ${entry.backend} on ${entry.taskQueue}`,
      staticDetails:
        'The breaker of one backend (closed / open / half-open): see current details, or `model-retry health`.',
    });
  }
}
