/**
 * One wave of the outage benchmark: many calls with the chain [A, B] started at once on worker processes, A
 * failing, B healthy; while it runs, A's health workflow is watched (when A has fleet health on) for the moment
 * it opened. Everything else is read afterwards: the loopback's requests and every call's history.
 */
import { readHealth } from '../../activities/health/read.js';
import { TRANSIENT_CLASSES } from '../../policy/index.js';
import { readCallHistory } from '../../client/history-reader.js';
import { healthWorkflowId } from '../../common/health.js';
import type { HealthSnapshot } from '../../common/health.js';
import type { AttemptRecord, ModelCallInput } from '../../common/call.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { startCall } from '../lib/calls.js';
import { healthHistory } from './health-history.js';
import type { HealthHistoryFigures } from './health-history.js';

/** What a wave runs. */
export interface WaveSpec {
  taskQueue: string;
  calls: number;
  /** `[A, B]` as `provider:model`. */
  chain: [string, string];
  retry: NonNullable<ModelCallInput['retry']>;
  /** A's health workflow key (its model name) when A has fleet health on. */
  healthBackend?: string;
  /** The trip threshold (failures), for the goal check. */
  threshold: number;
  /** A's loopback model id, when A answers through the loopback (a closed port receives nothing). */
  loopbackModel?: string;
}

/** What a wave measured. */
export interface WaveFigures {
  calls: number;
  answered: number;
  answeredByB: number;
  unfinished: number;
  /** Requests the loopback received for A (absent when A is a closed port). */
  requestsToA?: number;
  /** Attempt records on A: all, those that tried to send (not `CoolingDown`), and the `CoolingDown` ones. */
  attemptsOnA: number;
  sentAttemptsOnA: number;
  coolingDown: number;
  /** Sum of the attempts' times on A (scheduled to closed, as the call lived them), ms. */
  wastedAttemptMs: number;
  /** From the first start to the last call's end, ms. */
  lastAnswerMs: number;
  /** Health on: trips and probes the breaker counted. */
  trips?: number;
  probes?: number;
  tripAtMs?: number;
  /**
   * Health on: when the threshold-th transient failure on A ended (the earliest a breaker can open), and when
   * A's health workflow opened (ms from the first start); attempts on A scheduled before the first, ended after.
   */
  openedAtMs?: number;
  inFlightAtTrip?: number;
  /** Health on: requests to A (refused: attempts that tried) after the trip was visible fleet-wide. */
  afterVisible?: number;
  /** Health on: in flight at the trip + threshold + probes; and whether what reached A stayed within it. */
  goalBound?: number;
  goalMet?: boolean;
  /** Health on: A's health workflow's events and signals, and how long its signals waited for a workflow task. */
  healthWorkflow?: HealthHistoryFigures;
}

const ms = (iso: string | undefined): number => (iso === undefined ? Number.NaN : Date.parse(iso));

/** Polls A's health workflow until stopped: the first snapshot in which the breaker had opened, and the last. */
function watchHealth(ctx: BenchContext, taskQueue: string, backend: string) {
  const id = healthWorkflowId(taskQueue, backend);
  let first: HealthSnapshot | undefined;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const s = await readHealth(ctx.client, id).catch(() => undefined);
      if (first === undefined && s !== undefined && s.breaker.trips > 0) first = s;
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    async stop(): Promise<{ first?: HealthSnapshot; last?: HealthSnapshot }> {
      stopped = true;
      await loop;
      const last = await readHealth(ctx.client, id).catch(() => undefined);
      return { ...(first ? { first } : {}), ...(last ? { last } : {}) };
    },
  };
}

/** When the breaker first opened: its `since` in the first snapshot that counted a trip (if still open then). */
function tripTime(s: HealthSnapshot | undefined): number | undefined {
  if (s === undefined) return undefined;
  return s.breaker.phase === 'open' ? s.breaker.since : s.asOf;
}

/** Runs one wave to its end and reads what it did. */
export async function runWave(ctx: BenchContext, spec: WaveSpec): Promise<WaveFigures> {
  const watch = spec.healthBackend ? watchHealth(ctx, spec.taskQueue, spec.healthBackend) : undefined;
  const started = Date.now();
  const handles = await Promise.all(
    Array.from({ length: spec.calls }, () =>
      startCall(ctx, spec.taskQueue, { model: spec.chain, prompt: 'hi', retry: spec.retry }),
    ),
  );
  const ends = await Promise.all(
    handles.map(async (h) => {
      const result = await h.result().catch(() => undefined);
      const endedAt = Date.now();
      return { result, endedAt, history: readCallHistory(await h.fetchHistory()) };
    }),
  );
  const health = await watch?.stop();
  const onA = ends.flatMap((e) => e.history.attempts.filter((r) => r.model === spec.chain[0]));
  const sent = onA.filter((r) => r.failure?.class !== 'CoolingDown');
  const answered = ends.filter((e) => e.result?.stopReason === 'succeeded');
  const figures: WaveFigures = {
    calls: spec.calls,
    answered: answered.length,
    answeredByB: answered.filter((e) => e.result?.model === spec.chain[1]).length,
    unfinished: spec.calls - answered.length,
    ...(spec.loopbackModel ? { requestsToA: ctx.lp.requests(spec.loopbackModel).length } : {}),
    attemptsOnA: onA.length,
    sentAttemptsOnA: sent.length,
    coolingDown: onA.length - sent.length,
    wastedAttemptMs: onA.reduce((n, r) => n + (ms(r.endedAt) - ms(r.startedAt) || 0), 0),
    lastAnswerMs: Math.max(...ends.map((e) => e.endedAt)) - started,
  };
  if (health === undefined) return figures;
  const healthWorkflow = spec.healthBackend
    ? await healthHistory(ctx.client, healthWorkflowId(spec.taskQueue, spec.healthBackend), started)
    : undefined;
  if (healthWorkflow) figures.healthWorkflow = healthWorkflow;
  // When each request reached A: the loopback's arrival times; at a closed port, when the attempt was scheduled.
  const sentAt = spec.loopbackModel
    ? ctx.lp.requests(spec.loopbackModel).map((r) => r.receivedAt)
    : sent.map((r) => ms(r.startedAt));
  return { ...figures, ...goal(spec, figures, sent, sentAt, health, started) };
}

/** How often a worker re-reads a backend's state (the monitor's default `refreshMs`): the trip is visible by then. */
const REFRESH_MS = 1_000;

/**
 * The goal checks of a wave with health on. The earliest a breaker can open is when the threshold-th transient
 * failure on A ended (a worker's own copy opens then if it saw them all): what reached A should be at most the
 * attempts in flight at that moment + the threshold + the probes. Once the health workflow has opened and a
 * refresh has passed, the trip is visible fleet-wide: only probes should reach A after that.
 */
function goal(
  spec: WaveSpec,
  f: WaveFigures,
  sent: readonly AttemptRecord[],
  sentAt: readonly number[],
  health: { first?: HealthSnapshot; last?: HealthSnapshot },
  started: number,
): Partial<WaveFigures> {
  const openedAt = tripTime(health.first);
  const probes = health.last?.breaker.probes ?? 0;
  const trips = health.last?.breaker.trips ?? 0;
  const ends = sent
    .filter((r) => r.failure !== undefined && TRANSIENT_CLASSES.includes(r.failure.class))
    .map((r) => ms(r.endedAt))
    .sort((x, y) => x - y);
  const tripAt = ends[spec.threshold - 1];
  if (openedAt === undefined || tripAt === undefined) return { trips, probes };
  const inFlight = sent.filter((r) => ms(r.startedAt) <= tripAt && !(ms(r.endedAt) <= tripAt)).length;
  const bound = inFlight + spec.threshold + probes;
  const reached = f.requestsToA ?? f.sentAttemptsOnA;
  const visibleAt = openedAt + REFRESH_MS;
  const afterVisible = sentAt.filter((t) => t > visibleAt).length;
  return {
    trips,
    probes,
    tripAtMs: tripAt - started,
    openedAtMs: openedAt - started,
    inFlightAtTrip: inFlight,
    goalBound: bound,
    goalMet: reached <= bound,
    afterVisible,
  };
}
