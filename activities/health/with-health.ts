/**
 * Fleet health around the attempt activity: before sending, the worker's cached breaker of the backend says
 * whether the request goes (closed), goes as the fleet's one probe (half-open), or does not go at all: then the
 * attempt fails at once as `CoolingDown` with `retryAfterMs`, having sent nothing. Every attempt's outcome (its
 * class, and a retry-after or a rate-limit reset at zero remaining) joins the backend's next batch.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { rateLimitResetMs } from '../../policy/index.js';
import type { Admission, AttemptOutcome, FailureClass } from '../../policy/index.js';
import type {
  AttemptFailureDetails,
  AttemptHeartbeat,
  ModelRequestInput,
  ModelRequestResult,
} from '../../common/attempt.js';
import type { CoolingCheckActivities } from '../../common/attempt-activity.js';
import { attemptFailure, failureDetails } from '../attempt/attempt-failure.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { LimitsByKey } from '../../common/limits.js';
import type { HealthMonitor } from './monitor.js';
import { healthTaskQueue, watchedBackend } from './settings.js';
import { leastRequestMs, requestTimeoutMs } from '../attempt/attempt-time.js';
import { attemptKey } from './attempt-headers.js';
import type { AttemptHeaders } from './attempt-headers.js';
import { startHeartbeat } from '../heartbeat.js';
import { hasBegunSending } from '../sending.js';
import { cancellationOutcome } from '../cancellation.js';

type ModelRequest = (input: ModelRequestInput) => Promise<ModelRequestResult>;

/** What the wrapper needs. */
export interface WithHealthDeps {
  monitor: HealthMonitor;
  /** Whether the worker has fleet health on for every backend (else only providers with a `health` entry). */
  on: boolean;
  providers: () => ProviderRegistry;
  /**
   * The response headers of the watched attempts while they run (filled by the attempt activity's `onHeaders`;
   * an attempt's place is opened here and closed however it ends).
   */
  headers: AttemptHeaders;
  /** How often an attempt heartbeats while its backend's health is checked. @default HEARTBEAT_INTERVAL_MS */
  heartbeatIntervalMs?: number | undefined;
}

/**
 * How long an attempt whose health check failed (a probe claim or a state read that Temporal refused) says the
 * backend stays out: as long as one whose claim was not answered in time (the monitor's `cooling` then).
 */
const CHECK_FAILED_RETRY_MS = 1_000;

/** The `CoolingDown` failure: nothing was sent; `retryAfterMs` says how long the backend stays out. */
function coolingDown(
  backend: string,
  retryAfterMs: number,
  startedAt: string,
  message = `fleet health: backend ${backend} is cooling down for ${retryAfterMs} ms; nothing was sent`,
): ApplicationFailure {
  const now = Date.now();
  const observation = { coolingDown: true, headers: { 'retry-after-ms': String(retryAfterMs) } };
  const times = { startedAt, endedAt: new Date(now).toISOString() };
  return attemptFailure(failureDetails(observation, message, [], times, now));
}

/**
 * A health check given up on (the activity cancelled, timed out, or the worker shutting down): nothing was sent.
 * The workflow's cancel is rethrown as such; a shutdown is `WorkerLost`, as during a request.
 */
function checkGivenUp(ctx: Context, startedAt: string): Error {
  const outcome = cancellationOutcome(ctx);
  if (outcome.kind === 'cancelled') return outcome.failure;
  const now = Date.now();
  const times = { startedAt, endedAt: new Date(now).toISOString() };
  const message = 'the worker shut down while fleet health was checked; nothing was sent';
  return attemptFailure(failureDetails({ workerShutdown: true }, message, [], times, now));
}

/** What {@link underHeartbeat} gives when the activity was given up first. */
const GIVEN_UP: unique symbol = Symbol('given up');

/**
 * Runs the health check before sending (a state read, a probe claim: RPCs to Temporal that may be slow) under the
 * attempt's heartbeat, so a slow check never passes for a lost worker (a heartbeat timeout would retry the call
 * while this attempt went on and sent). An attempt given up meanwhile (cancelled, timed out) leaves at once and
 * sends nothing; a probe the check still grants it is given back through `giveBack`. A check that fails is an
 * attempt failure like any other: classified (`CoolingDown`: nothing was sent, and this worker cannot tell
 * whether the backend may be sent to), its message scrubbed and bounded, with its times.
 */
async function underHeartbeat<T>(
  ctx: Context,
  deps: Pick<WithHealthDeps, 'heartbeatIntervalMs'>,
  startedAt: string,
  backend: string,
  check: () => Promise<T>,
  giveBack: (late: T) => void = () => undefined,
): Promise<T> {
  const stopHeartbeat = startHeartbeat(
    ctx,
    { startedAt } satisfies AttemptHeartbeat,
    deps.heartbeatIntervalMs,
  );
  const signal = ctx.cancellationSignal;
  let onAbort = (): void => undefined;
  const givenUp = new Promise<typeof GIVEN_UP>((resolve) => {
    onAbort = () => resolve(GIVEN_UP);
    if (signal.aborted) resolve(GIVEN_UP);
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const running = check();
  try {
    const first = await Promise.race([running, givenUp]);
    if (first !== GIVEN_UP && !signal.aborted) return first;
    if (first === GIVEN_UP) void running.then(giveBack, () => undefined);
    else giveBack(first);
    throw checkGivenUp(ctx, startedAt);
  } catch (error) {
    if (error instanceof ApplicationFailure || error instanceof CancelledFailure) throw error;
    if (signal.aborted) throw checkGivenUp(ctx, startedAt);
    const why = error instanceof Error ? error.message : String(error);
    throw coolingDown(
      backend,
      CHECK_FAILED_RETRY_MS,
      startedAt,
      `fleet health could not check backend ${backend} (${why}); nothing was sent`,
    );
  } finally {
    signal.removeEventListener('abort', onAbort);
    stopHeartbeat();
  }
}

/** The outcome of a finished attempt: its class, and until when the provider said nothing is left. */
function outcomeOf(
  cls: FailureClass | undefined,
  retryAfterMs: number | undefined,
  headers: Readonly<Record<string, string>> | undefined,
  probe: string | undefined,
): AttemptOutcome {
  const at = Date.now();
  const resetMs = rateLimitResetMs(headers, at);
  const openMs = retryAfterMs ?? resetMs;
  return {
    at,
    ...(cls === undefined ? {} : { class: cls }),
    ...(openMs === undefined || openMs <= 0 ? {} : { openUntil: at + openMs }),
    ...(probe === undefined ? {} : { probe }),
  };
}

/** The backend fleet health watches for `model` (or a provider's name) on this worker, if any. */
function watchedOf(model: string, deps: Pick<WithHealthDeps, 'on' | 'providers'>) {
  const provider = model.split(':')[0] ?? '';
  return watchedBackend(model, deps.on, deps.providers().configOf?.(provider)?.health);
}

/**
 * `backendCooling` (a local activity, see `CoolingCheckActivities`): how long this worker's copy has `model`'s
 * backend still cooling, without asking the health workflow or taking a probe.
 */
export function createCoolingCheck(deps: WithHealthDeps): CoolingCheckActivities {
  return {
    async backendCooling(model) {
      const watched = watchedOf(model, deps);
      if (watched === undefined) return undefined;
      return deps.monitor.coolingFor(healthTaskQueue(Context.current().info.taskQueue), watched.key);
    },
  };
}

/**
 * The rate-limited keys of `limits` whose backends fleet health watches (`WorkerConfig.healthWatchedLimits`):
 * an attempt due on one of their limit queues is checked with `backendCooling` first; no other is.
 */
export function healthWatchedLimits(
  limits: LimitsByKey,
  on: boolean,
  providers: () => ProviderRegistry,
): string[] {
  return Object.entries(limits)
    .filter(
      ([key, l]) => l.requestsPerSecond !== undefined && watchedOf(key, { on, providers }) !== undefined,
    )
    .map(([key]) => key);
}

/** `modelRequest` with fleet health in front of it. */
export function withHealth(modelRequest: ModelRequest, deps: WithHealthDeps): ModelRequest {
  return async function modelRequestWithHealth(input) {
    const watched = watchedOf(input.model, deps);
    if (input.held === undefined && watched === undefined) return modelRequest(input);
    const ctx = Context.current();
    const startedAt = new Date().toISOString();
    const taskQueue = healthTaskQueue(ctx.info.taskQueue);
    if (input.held !== undefined) {
      // Off its limit queue: never sent from here, even if the backend closed since the workflow asked. The
      // cool-down is the workflow's answer: this worker's copy may not know the backend (it answered 0, and the
      // call then spent an attempt per round instead of one wait).
      const key = watched?.key ?? input.model;
      let retryAfterMs = input.held === true ? 0 : input.held.retryAfterMs;
      if (input.held === true && watched !== undefined) {
        const cooling = () => deps.monitor.coolingFor(taskQueue, key);
        retryAfterMs = (await underHeartbeat(ctx, deps, startedAt, key, cooling)) ?? 0;
      }
      throw coolingDown(key, retryAfterMs, startedAt);
    }
    if (watched === undefined) return modelRequest(input);
    deps.monitor.useMeter(ctx.metricMeter);
    // The wait for a probe claim's answer is bounded by the attempt's own time (what a request still needs
    // left, minAttemptMs, taken off), as the wait for a maxInFlight slot is.
    const startMs = Date.now();
    const until = startMs + requestTimeoutMs(input, startMs) - leastRequestMs(input);
    const giveBack = (late: Admission): void => {
      if (late.kind !== 'probe') return;
      deps.monitor.report(taskQueue, watched.key, { at: Date.now(), probe: late.id, unsent: true });
    };
    const a = await underHeartbeat(
      ctx,
      deps,
      startedAt,
      watched.key,
      () => deps.monitor.admit(ctx.client, taskQueue, watched.key, watched.settings, until),
      giveBack,
    );
    if (a.kind === 'cooling') {
      ctx.metricMeter
        .createCounter(
          'model_retry_health_cooled_attempts',
          'attempts',
          'Attempts not sent: backend cooling down',
        )
        .add(1, { backend: watched.key });
      throw coolingDown(watched.key, a.retryAfterMs, startedAt);
    }
    const probe = a.kind === 'probe' ? a.id : undefined;
    if (probe !== undefined) {
      ctx.metricMeter
        .createCounter('model_retry_health_probes', 'probes', 'Half-open probes sent')
        .add(1, { backend: watched.key });
    }
    const key = attemptKey(input);
    const report = (cls: FailureClass | undefined, retryAfterMs?: number): void => {
      deps.monitor.report(taskQueue, watched.key, outcomeOf(cls, retryAfterMs, deps.headers.get(key), probe));
    };
    deps.headers.open(key);
    try {
      const result = await modelRequest(input);
      report(undefined);
      return result;
    } catch (error) {
      // A cancelled attempt, a lost worker, or a worker that could not make the request (`Misconfigured`: a
      // missing key, no price under a cost budget; `CoolingDown`: no maxInFlight slot in time, or too little time
      // left to send; nothing was sent) says nothing about the backend. A probe that sent nothing is given back at
      // once (else the whole fleet would wait for it to be let go a cool-down later); one lost with a worker or a
      // cancel after the provider was asked may have been sent, and expires by itself.
      const unsent =
        (error instanceof ApplicationFailure &&
          (error.type === 'Misconfigured' || error.type === 'CoolingDown')) ||
        // Cancelled or lost before the provider was asked (in a slot wait, a file download): nothing went out.
        ((error instanceof CancelledFailure ||
          (error instanceof ApplicationFailure && error.type === 'WorkerLost')) &&
          !hasBegunSending(ctx));
      if (unsent && probe !== undefined) {
        deps.monitor.report(taskQueue, watched.key, { at: Date.now(), probe, unsent: true });
      }
      if (
        error instanceof ApplicationFailure &&
        error.type !== 'WorkerLost' &&
        error.type !== 'Misconfigured' &&
        error.type !== 'CoolingDown' &&
        !(error instanceof CancelledFailure)
      ) {
        const details = error.details?.[0] as Partial<AttemptFailureDetails> | undefined;
        report((details?.class ?? error.type ?? 'Unknown') as FailureClass, details?.retryAfterMs);
      }
      throw error;
    } finally {
      deps.headers.close(key);
    }
  };
}
