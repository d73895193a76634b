/**
 * Fleet health's circuit breaker for one backend, as pure functions over plain JSON (it lives in the health
 * workflow's state and crosses continue-as-new; workers evaluate the same rules on their cached copy).
 * `closed`: requests go. `open`: nothing is sent until `until`. `half-open`: one probe fleet-wide; its
 * success closes the backend, its transient failure opens it again for twice the cool-down (at most the cap).
 */
import type { FailureClass } from './classes.js';

/** The breaker's states. */
export type BreakerPhase = 'closed' | 'open' | 'half-open';

/** A backend's breaker settings (the providers file's `health` entry, with defaults). */
export interface BreakerSettings {
  /** Transient failures within `windowMs`, with no success among them, that open the backend. @default 5 */
  failures: number;
  /** @default 30000 */
  windowMs: number;
  /** The first cool-down, doubling while probes fail. @default 30000 */
  coolDownMs: number;
  /** The longest cool-down. @default 300000 */
  maxCoolDownMs: number;
}

/** The contract's defaults. */
export const DEFAULT_BREAKER: Readonly<BreakerSettings> = Object.freeze({
  failures: 5,
  windowMs: 30_000,
  coolDownMs: 30_000,
  maxCoolDownMs: 300_000,
});

/** The classes that count toward a trip: the provider (or the way to it) is failing, not the request. */
export const TRANSIENT_CLASSES: readonly FailureClass[] = Object.freeze([
  'ServerError',
  'ConnectFailed',
  'ConnectionLost',
  'ResponseTimeout',
  'RateLimited',
  'RequestTimeout',
]);

/** One attempt's outcome as a worker reports it. */
export interface AttemptOutcome {
  /** When it ended (epoch ms, the worker's clock). */
  at: number;
  /** Its failure class; absent for an answer. */
  class?: FailureClass;
  /** A retry-after or a rate-limit reset at zero remaining: the backend is open for everyone until then. */
  openUntil?: number;
  /** The probe id, when this attempt was the half-open probe. */
  probe?: string;
  /**
   * The attempt sent nothing (no `maxInFlight` slot in time, too little time left, a worker that could not make
   * the request): it says nothing of the backend, and a probe it held is given back at once, so the fleet's one
   * probe is not held until it is let go a cool-down later.
   */
  unsent?: true;
}

/** The probe granted in `half-open`. */
export interface Probe {
  id: string;
  grantedAt: number;
}

/** The breaker of one backend. */
export interface Breaker {
  phase: BreakerPhase;
  /** Since when it is in this phase (epoch ms). */
  since: number;
  /** `open`: until when nothing is sent. */
  until?: number;
  /** The cool-down the next trip or failed probe uses (doubles while probes fail). */
  coolDownMs: number;
  /** Times of the transient failures since the last success, within the window. */
  failures: number[];
  /** How many times it opened, and how many probes were granted, since this breaker began. */
  trips: number;
  probes: number;
  probe?: Probe;
  /** Why it is open (`tripped`, `retry-after`). */
  reason?: string;
  /**
   * When it last opened or had its opening extended (epoch ms; absent when closed): a let-go probe's answer from
   * before then cannot close it (see {@link recordOutcome}).
   */
  openedAt?: number;
  /** The latest outcomes, newest last (at most {@link RECENT}). */
  recent: { at: number; outcome: string }[];
}

/** How many recent outcomes a breaker keeps. */
export const RECENT = 20;

/** A closed breaker. */
export function initialBreaker(nowMs: number, settings: BreakerSettings = DEFAULT_BREAKER): Breaker {
  return {
    phase: 'closed',
    since: nowMs,
    coolDownMs: settings.coolDownMs,
    failures: [],
    trips: 0,
    probes: 0,
    recent: [],
  };
}

const isTransient = (c: FailureClass | undefined): boolean =>
  c !== undefined && TRANSIENT_CLASSES.includes(c);

function opened(b: Breaker, nowMs: number, until: number, reason: string): Breaker {
  const { probe: _probe, ...rest } = b;
  const already = b.phase === 'open';
  return {
    ...rest,
    phase: 'open',
    since: already ? b.since : nowMs,
    until: already && b.until !== undefined ? Math.max(b.until, until) : until,
    failures: [],
    trips: already ? b.trips : b.trips + 1,
    reason,
    openedAt: nowMs,
  };
}

function closed(b: Breaker, nowMs: number, settings: BreakerSettings): Breaker {
  const { probe: _p, until: _u, reason: _r, openedAt: _o, ...rest } = b;
  return { ...rest, phase: 'closed', since: nowMs, coolDownMs: settings.coolDownMs, failures: [] };
}

/** `b` at `nowMs`: an `open` past its `until` is `half-open`; a probe that never reported within a cool-down is let go. */
export function atTime(b: Breaker, nowMs: number): Breaker {
  if (b.phase === 'open' && b.until !== undefined && nowMs >= b.until) {
    const { until: _u, probe: _p, ...rest } = b;
    return { ...rest, phase: 'half-open', since: b.until };
  }
  if (b.phase === 'half-open' && b.probe !== undefined && nowMs >= b.probe.grantedAt + b.coolDownMs) {
    const { probe: _p, ...rest } = b;
    return rest;
  }
  return b;
}

/**
 * `b` after one outcome, at `nowMs`. A retry-after or reset opens it until then, whatever its phase. `closed`:
 * an answer forgets the failures; a transient failure counts, and the `failures`-th within the window opens it for
 * the cool-down. `half-open`: the probe's answer (or a failure that is not transient: the backend answered)
 * closes it; its transient failure opens it for twice the cool-down, at most the cap; the answer of a probe that was
 * let go closes it too when no other probe is out and it ended after the latest opening. Outcomes that are not a probe's, while open or half-open, came
 * from requests sent before: they change nothing.
 */
export function recordOutcome(
  b0: Breaker,
  o: AttemptOutcome,
  nowMs: number,
  settings: BreakerSettings,
): Breaker {
  if (o.unsent === true) {
    const b = atTime(b0, nowMs);
    if (b.phase !== 'half-open' || o.probe === undefined || b.probe?.id !== o.probe) return b0;
    const { probe: _p, ...rest } = b;
    return rest;
  }
  const recent = [...b0.recent, { at: o.at, outcome: o.class ?? 'succeeded' }].slice(-RECENT);
  const b = { ...atTime(b0, nowMs), recent };
  if (o.openUntil !== undefined && o.openUntil > nowMs) return opened(b, nowMs, o.openUntil, 'retry-after');
  if (b.phase === 'half-open') {
    // A probe let go (its answer came after a cool-down, e.g. through a slow signal) that answered, with no other
    // probe out: the backend answered a request sent after the trip. Dropping it left the backend half-open with
    // no probe until the next attempt happened to claim one, whose answer could come late in the same way.
    // Only an answer that ended after the latest opening: a re-queued signal may carry the success of a probe from
    // an earlier half-open, which says nothing about the backend since it tripped again.
    if (b.probe === undefined && o.probe !== undefined && !isTransient(o.class))
      return o.at > lastOpened(b) ? closed(b, nowMs, settings) : b;
    if (o.probe === undefined || o.probe !== b.probe?.id) return b;
    if (!isTransient(o.class)) return closed(b, nowMs, settings);
    const coolDownMs = Math.min(b.coolDownMs * 2, settings.maxCoolDownMs);
    return opened({ ...b, coolDownMs }, nowMs, nowMs + coolDownMs, 'probe failed');
  }
  if (b.phase === 'open') return b;
  if (o.class === undefined) return { ...b, failures: [] };
  if (!isTransient(o.class)) return b;
  const failures = [...b.failures.filter((t) => t > o.at - settings.windowMs), o.at];
  if (failures.length < settings.failures) return { ...b, failures };
  const why = `tripped: ${failures.length} transient failures within ${settings.windowMs} ms`;
  return opened(b, nowMs, nowMs + b.coolDownMs, why);
}

/**
 * When `b` (open or half-open) last opened. A breaker kept before `openedAt` existed (a health workflow's state
 * across continue-as-new, a worker's cached memo) falls back to its cool-down before `since` (the half-open's
 * start, its `until`): exact for a trip or a failed probe, which open for `coolDownMs`.
 */
function lastOpened(b: Breaker): number {
  return b.openedAt ?? b.since - b.coolDownMs;
}

/** `b` after a worker asked for the probe (`id`): granted when half-open with none out. */
export function claimProbe(b0: Breaker, id: string, nowMs: number): Breaker {
  const b = atTime(b0, nowMs);
  if (b.phase !== 'half-open' || b.probe !== undefined) return b;
  return { ...b, probe: { id, grantedAt: nowMs }, probes: b.probes + 1 };
}

/** `b` set `closed` by hand (`model-retry health reset`). */
export function resetBreaker(b: Breaker, nowMs: number, settings: BreakerSettings): Breaker {
  return closed(b, nowMs, settings);
}

/** What an attempt may do now, by a (cached) breaker. */
export type Admission =
  | { kind: 'send' }
  | { kind: 'probe'; id: string }
  | { kind: 'claim' }
  | { kind: 'cooling'; retryAfterMs: number };

/**
 * What an attempt on this backend does at `nowMs`: `send` (closed); `probe` (half-open and `mine` holds the
 * probe); `claim` (half-open with no probe out, or open past its `until`: ask for the probe); `cooling` with how
 * long (open: until `until`; half-open with another's probe out: until that probe's answer, at most a cool-down).
 */
export function admission(b0: Breaker, nowMs: number, mine: readonly string[] = []): Admission {
  const b = atTime(b0, nowMs);
  if (b.phase === 'closed') return { kind: 'send' };
  if (b.phase === 'open') return { kind: 'cooling', retryAfterMs: Math.max(1, (b.until ?? nowMs) - nowMs) };
  if (b.probe === undefined) return { kind: 'claim' };
  if (mine.includes(b.probe.id)) return { kind: 'probe', id: b.probe.id };
  return { kind: 'cooling', retryAfterMs: Math.max(1, b.probe.grantedAt + b.coolDownMs - nowMs) };
}
