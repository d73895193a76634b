import type { Action, OverridableClass } from './classes.js';

/**
 * Exponential backoff: the n-th wait of the call (n = 1, 2, ...) is
 * `min(initialMs × factor^(n−1), maxMs)` plus a jitter in `[0, jitterMs)` drawn from the workflow's
 * deterministic random. The jitter is added after the cap so that callers at the cap still spread out.
 */
export interface BackoffPlan {
  /**
   * The first wait, in ms.
   * @default 1000
   */
  initialMs?: number;
  /**
   * How much each wait grows over the one before; at least 1.
   * @default 2
   */
  factor?: number;
  /**
   * The cap of a wait before jitter, in ms; not less than `initialMs`.
   * @default 30000
   */
  maxMs?: number;
  /**
   * The width of the random jitter added to every wait, in ms.
   * @default 500
   */
  jitterMs?: number;
}

/** How a provider's `retry-after-ms` / `retry-after` header is treated. */
export interface RetryAfterPlan {
  /**
   * Whether to honour it: the wait becomes max(planned wait, retry-after), and the backend is not tried
   * again before that time.
   * @default true
   */
  honor?: boolean;
  /**
   * The longest retry-after the call accepts, in ms. A longer one makes the call advance to another
   * backend if one is left, else stop with `retry-after-exceeded`.
   * @default 300000
   */
  maxMs?: number;
}

/**
 * How much event history a call lets its run grow to before it stops with `history-limit` instead of making
 * another attempt. Both stay under Temporal's own limits (50 MB, 51 200 events), where Temporal terminates the
 * run, with room for the call to stop and report.
 */
export interface HistoryLimitPlan {
  /**
   * The most bytes of history, in bytes (MB of 1024 × 1024 bytes, as Temporal counts): at most 48 MB.
   * @default 41943040 (40 MB)
   */
  bytes?: number;
  /**
   * The most events of history: at most 50 000.
   * @default 40000
   */
  events?: number;
}

/**
 * How a model call retries: plain JSON, validated by {@link validatePlan} before the run starts, kept in
 * workflow state. A call without a plan (or with `false`) makes exactly one attempt. A plan with neither
 * `waits` nor `backoff` uses the default `backoff`.
 */
export interface RetryPlan {
  /**
   * An explicit schedule of waits in ms (`[10, 30]`): the n-th wait is `waits[n-1]`. Without a deadline
   * the list is the bound; with a deadline its last wait repeats while the deadline rule allows.
   * Not with `backoff`.
   */
  waits?: number[];
  /** Exponential backoff with jitter (the default schedule). Not with `waits`. */
  backoff?: BackoffPlan;
  /**
   * The most attempts across all backends, between 1 and 1000.
   * @default 100
   */
  maxAttempts?: number;
  /** An absolute deadline as an ISO 8601 instant with a zone (`2026-03-01T12:00:00Z`). Not with `deadlineInMs`. */
  deadline?: string;
  /**
   * A deadline in ms from the start of the workflow chain (`workflowInfo().startTime`), stored as an
   * absolute time and carried across continue-as-new. Not with `deadline`.
   */
  deadlineInMs?: number;
  /**
   * Time the call never spends, in ms: it is left to the host at the deadline.
   * @default 60000
   */
  reserveMs?: number;
  /**
   * The longest one attempt may take, in ms (capped further by the deadline less the reserve).
   * @default 300000
   */
  attemptTimeoutMs?: number;
  /**
   * The shortest time worth starting an attempt for, in ms: no attempt starts with less room than this
   * before the reserve.
   * @default 1000
   */
  minAttemptMs?: number;
  /** How `retry-after` headers are treated. */
  retryAfter?: RetryAfterPlan;
  /**
   * Per-class action overrides, e.g. `{ RateLimited: 'retry-same' }`. They win over `x-should-retry`,
   * which wins over the default table. `StreamInterrupted` cannot be overridden.
   * @default {}
   */
  actions?: Partial<Record<OverridableClass, Action>>;
  /**
   * How many same-backend retries a backend gets in a row before `retry-same` becomes `advance`.
   * @default 2
   */
  retriesPerBackend?: number;
  /**
   * How far the run's history may grow: before every attempt the call estimates what the attempt adds, and
   * stops with `history-limit` when it would pass this (see {@link HistoryLimitPlan}).
   * @default { bytes: 41943040, events: 40000 }
   */
  historyLimit?: HistoryLimitPlan;
}

/** What a caller may pass as `retry`: a plan, or `false` / nothing (`null` included) for one attempt. */
export type RetryOption = RetryPlan | false | null | undefined;

/**
 * A validated plan with every default filled in: what `decide` reads. Plain JSON (no `undefined` values
 * that matter, no functions), so it can live in workflow state and cross continue-as-new.
 */
export interface ResolvedPlan {
  /** Whether the call retries at all (`false`: exactly one attempt). */
  retry: boolean;
  /** The explicit schedule, when the plan gave one. */
  waits?: number[];
  /** The backoff, when the plan uses one (with every default filled in). */
  backoff?: Required<BackoffPlan>;
  maxAttempts: number;
  /** The absolute deadline in epoch ms, when the plan has one. */
  deadlineMs?: number;
  reserveMs: number;
  attemptTimeoutMs: number;
  minAttemptMs: number;
  retryAfter: Required<RetryAfterPlan>;
  actions: Partial<Record<OverridableClass, Action>>;
  retriesPerBackend: number;
  historyLimit: Required<HistoryLimitPlan>;
}

/** A megabyte as Temporal counts it (its 2 MB and 50 MB limits). */
export const MB = 1024 * 1024;

/** The defaults of every plan field. */
export const PLAN_DEFAULTS = Object.freeze({
  backoff: Object.freeze({ initialMs: 1000, factor: 2, maxMs: 30_000, jitterMs: 500 }),
  maxAttempts: 100,
  reserveMs: 60_000,
  attemptTimeoutMs: 300_000,
  minAttemptMs: 1000,
  retryAfter: Object.freeze({ honor: true, maxMs: 300_000 }),
  retriesPerBackend: 2,
  historyLimit: Object.freeze({ bytes: 40 * MB, events: 40_000 }),
});

/**
 * Temporal's own limits (its server's defaults): one payload over `payloadBytes` is refused (a start fails,
 * an activity's schedule terminates the run), and a run past `historyBytes` or `historyEvents` is terminated.
 */
export const TEMPORAL_LIMITS = Object.freeze({
  /** `limit.blobSize.error`. */
  payloadBytes: 2 * MB,
  /** `limit.historySize.error`. */
  historyBytes: 50 * MB,
  /** `limit.historyCount.error`. */
  historyEvents: 51_200,
});

/**
 * The most a plan's `historyLimit` may allow: Temporal's limits less room for what follows the last check
 * (an attempt's answer up to one payload larger than estimated, the stop and its report).
 */
export const MAX_HISTORY_LIMIT = Object.freeze({
  bytes: TEMPORAL_LIMITS.historyBytes - TEMPORAL_LIMITS.payloadBytes,
  events: 50_000,
});

/** The most attempts any plan may allow (keeps every call well inside Temporal's history limits). */
export const MAX_ATTEMPTS_LIMIT = 1000;

/**
 * The longest time any plan field may give (a wait, a timeout, the reserve, a deadline from now): 100 years.
 * Longer ones cannot be held by what a call computes with them (JavaScript dates end at 8.64e15 ms, Temporal's
 * durations at 10,000 years, Node's timers at 2^32 ms), and would leave the call on a workflow task that fails
 * forever; 100 years is far past any call.
 */
export const MAX_PLAN_MS = 3_155_760_000_000;

/** The resolved plan of a call without retry: exactly one attempt, no deadline. */
export function noRetryPlan(): ResolvedPlan {
  return {
    retry: false,
    maxAttempts: 1,
    reserveMs: PLAN_DEFAULTS.reserveMs,
    attemptTimeoutMs: PLAN_DEFAULTS.attemptTimeoutMs,
    minAttemptMs: PLAN_DEFAULTS.minAttemptMs,
    retryAfter: { ...PLAN_DEFAULTS.retryAfter },
    actions: {},
    retriesPerBackend: PLAN_DEFAULTS.retriesPerBackend,
    historyLimit: { ...PLAN_DEFAULTS.historyLimit },
  };
}
