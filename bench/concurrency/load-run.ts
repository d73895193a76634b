import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { fail, ok, slow } from '../../loopback/index.js';
import type { ModelCallInput } from '../../common/call.js';
import type { WorkerTuning } from '../../worker/worker.js';
import type { BenchContext } from '../../test/harness/lab.js';
import {
  activityScheduleToStart,
  attemptIntervals,
  countTypes,
  peakOverlap,
  timerLateness,
  workflowTaskScheduleToStart,
} from '../lib/history.js';
import { countAttempts, fetchAll, terminateRunning } from './load-histories.js';
import type { LoadWorkerKind, PlannedCall } from '../../test/harness/spawn/load-worker-spec.js';
import { startLoadWorker } from '../../test/harness/spawn/index.js';
import { cpuSeconds, findDevServerPid } from '../../test/harness/spawn/proc.js';
import { requestsPerCall } from '../lib/server-requests.js';
import { callsPerSecondTo, seededRandom, summarize } from '../lib/stats.js';
import type { Summary } from '../lib/stats.js';

/**
 * Who makes the calls: model-retry's `modelCallWorkflow` as a client starts it, `callModel` inside a user's
 * workflow, or the floor (a plain workflow and a plain activity making the same request, a timer between tries).
 */
export type LoadMode = 'modelCallWorkflow' | 'callModel' | 'contractFloor' | 'floor';

/** The server a load runs on, and a client of it for the histories. */
export interface LoadTarget {
  address: string;
  namespace: string;
  client: Client;
}

/** One load: `calls` concurrent calls on one worker process, started at once by a client in that process. */
export interface LoadSpec {
  mode: LoadMode;
  calls: number;
  /** The provider's latency for every request (answer or failure), ms. */
  latencyMs: number;
  /** Share of attempts that fail (a 502 after the latency), drawn per attempt from a seeded random source. */
  failureRate: number;
  /** The wait before each retry, ms. */
  waitMs: number;
  tuning: WorkerTuning;
  /** The same seed gives every mode the same failures, call by call. */
  seed: number;
  /** Give up waiting after this long (the calls still running are then terminated and counted). */
  timeoutMs: number;
  /** The worker asks for eager activities (the server must allow them). */
  eagerActivities: boolean;
  /** The client asks for eager workflow start. */
  eagerStart: boolean;
  /** The server's CPU seconds so far (a cluster: its services and database); default: the dev server's. */
  serverCpuSeconds?: () => number | undefined;
  /** The server's requests so far by operation (`readServerRequests`), when its metrics can be read. */
  serverRequests?: () => Promise<ReadonlyMap<string, number>>;
}

/** The share of a load's calls that `callsPerSecondTo90` counts: the last tenth is the queues' tail. */
export const STEADY_SHARE = 0.9;

/** What one load did. */
export interface LoadFigures {
  mode: LoadMode;
  eagerActivities: boolean;
  eagerStart: boolean;
  failureRate: number;
  calls: number;
  attempts: number;
  succeeded: number;
  unfinished: number;
  /** From the first start to the last result, ms. */
  completionMs: number;
  /** Starting every workflow (the client's start requests), ms. */
  startPhaseMs: number;
  /** Calls per second over the load (to the last result). */
  callsPerSecond: number;
  /**
   * Calls per second to the result that completes 90 % of the calls (`STEADY_SHARE`): the last few results of
   * calls started at once wait on whichever task sat longest in the server's queues, and swing from run to run.
   */
  callsPerSecondTo90: number;
  /** Each call's time from its start request to its result, ms. */
  latencyMs: Summary;
  /** Starts the server answered with the first workflow task inline. */
  eagerlyStarted: number;
  /** The longest call's planned time (its attempts' latency and its waits): the best possible completion. */
  idealMs: number;
  attemptsPerSecond: number;
  /** History events per call (median). */
  eventsPerCall: number;
  /** Requests to the provider per call (every attempt sends one). */
  providerRequestsPerCall: number;
  /**
   * Requests the server's frontend served per call while the load ran, by operation (the worker's, its client's
   * and the server's own; the bench's reads of the histories left out), when the server's metrics can be read.
   */
  serverRequestsPerCall?: Record<string, number>;
  workflowTaskScheduleToStartMs: Summary;
  activityScheduleToStartMs: Summary;
  timerLatenessMs: Summary;
  /** The most attempts running at one time (from the histories): how full the activity slots got. */
  peakAttemptsInFlight: number;
  /** Workflow tasks that timed out (a worker too busy to finish them), and attempts lost to a heartbeat timeout. */
  timeouts: { workflowTasks: number; attempts: number };
  workerPeakRssBytes?: number;
  /** The worker's resident memory once it polled, before the load. */
  workerStartRssBytes?: number;
  /** CPU seconds while the load ran, by process (the worker's includes its client's). */
  cpuSeconds: { worker?: number; devServer?: number; bench: number };
}

const MAX_FAILURES = 4;
/** How long after a load's end its requests are sure to show in the server's counters, ms. */
const SERVER_COUNTERS_MS = 1500;
const KIND: Record<LoadMode, LoadWorkerKind> = {
  modelCallWorkflow: 'model-retry',
  callModel: 'model-retry',
  contractFloor: 'floor',
  floor: 'floor',
};

/** The calls of a load: each its own scripted model (its failures drawn from the seed) and its planned time. */
function planCalls(ctx: BenchContext, spec: LoadSpec): { calls: PlannedCall[]; idealMs: number } {
  const random = seededRandom(spec.seed);
  let idealMs = 0;
  const calls = Array.from({ length: spec.calls }, (): PlannedCall => {
    const model = ctx.model(`load-${spec.mode}`);
    let failures = 0;
    while (failures < MAX_FAILURES && random() < spec.failureRate) failures += 1;
    const answer = spec.latencyMs > 0 ? slow(spec.latencyMs, ok()) : ok();
    const failure = spec.latencyMs > 0 ? slow(spec.latencyMs, fail(502)) : fail(502);
    ctx.lp.script(model.id, [...Array.from({ length: failures }, () => failure), answer]);
    idealMs = Math.max(idealMs, (failures + 1) * spec.latencyMs + failures * spec.waitMs);
    return plannedCall(spec, model.name);
  });
  return { calls, idealMs };
}

function plannedCall(spec: LoadSpec, model: string): PlannedCall {
  const prompt = 'a call among many';
  const waits = Array.from({ length: MAX_FAILURES }, () => spec.waitMs);
  const workflowId = `bench-load-${spec.mode}-${randomUUID()}`;
  if (spec.mode === 'floor' || spec.mode === 'contractFloor') {
    const input = { model, messages: [{ role: 'user', content: prompt }], timeoutMs: 30_000 };
    if (spec.mode === 'contractFloor')
      return { workflowType: 'contractFloorWorkflow', workflowId, input: { ...input, waits } };
    return spec.failureRate > 0
      ? { workflowType: 'floorRetryWorkflow', workflowId, input: { ...input, waits } }
      : { workflowType: 'floorCallWorkflow', workflowId, input };
  }
  const input: ModelCallInput = {
    model,
    prompt,
    retry: { waits, retriesPerBackend: MAX_FAILURES, attemptTimeoutMs: 30_000 },
  };
  const workflowType = spec.mode === 'callModel' ? 'userCallWorkflow' : 'modelCallWorkflow';
  return { workflowType, workflowId, input };
}

/** Runs one load on a fresh worker process (worker and client) and reads every call's history afterwards. */
export async function runLoad(ctx: BenchContext, target: LoadTarget, spec: LoadSpec): Promise<LoadFigures> {
  const { calls, idealMs } = planCalls(ctx, spec);
  const worker = await startLoadWorker(
    {
      kind: KIND[spec.mode],
      taskQueue: `bench-load-${randomUUID()}`,
      bundlePath: ctx.bundlePath,
      tuning: spec.tuning,
      eagerActivities: spec.eagerActivities,
      eagerStart: spec.eagerStart,
      calls,
      timeoutMs: spec.timeoutMs,
    },
    { address: target.address, namespace: target.namespace, env: ctx.workerEnv },
  );
  const serverPid = findDevServerPid(Number(target.address.split(':').at(-1)));
  const serverNow = spec.serverCpuSeconds ?? (() => (serverPid ? cpuSeconds(serverPid) : undefined));
  const requests0 = await spec.serverRequests?.();
  const cpu0 = {
    worker: worker.cpuSeconds(),
    server: serverNow(),
    bench: process.cpuUsage(),
  };
  const report = await worker.go();
  const benchCpu = process.cpuUsage(cpu0.bench);
  const serverCpu = cpu0.server !== undefined ? (serverNow() ?? 0) - cpu0.server : undefined;
  const workerCpu1 = worker.cpuSeconds();
  const unfinished = report.finished ? 0 : await terminateRunning(target.client, calls);
  const stopped = await worker.stop();
  const stoppedAt = Date.now();
  const histories = await fetchAll(target.client, calls, 16);
  // The server publishes its counters about once a second: the last requests of the load show after that.
  const settle = SERVER_COUNTERS_MS - (Date.now() - stoppedAt);
  if (requests0 && settle > 0) await new Promise((resolve) => setTimeout(resolve, settle));
  const requests1 = requests0 ? await spec.serverRequests?.() : undefined;
  const wft = histories.flatMap(workflowTaskScheduleToStart);
  const types = histories.map(countTypes);
  const total = (type: string) => types.reduce((n, t) => n + (t.get(type) ?? 0), 0);
  const attempts = histories.reduce((n, h) => n + countAttempts(h), 0);
  const seconds = report.completionMs / 1000;
  return {
    mode: spec.mode,
    eagerActivities: spec.eagerActivities,
    eagerStart: spec.eagerStart,
    failureRate: spec.failureRate,
    calls: spec.calls,
    attempts,
    succeeded: report.succeeded,
    unfinished,
    completionMs: report.completionMs,
    startPhaseMs: report.startPhaseMs,
    callsPerSecond: spec.calls / seconds,
    callsPerSecondTo90: callsPerSecondTo(report.endsMs, spec.calls, STEADY_SHARE),
    latencyMs: summarize(report.latenciesMs),
    eagerlyStarted: report.eagerlyStarted,
    idealMs,
    attemptsPerSecond: attempts / seconds,
    eventsPerCall: summarize(histories.map((h) => h.events?.length ?? 0)).p50,
    providerRequestsPerCall: attempts / spec.calls,
    ...(requests0 && requests1
      ? { serverRequestsPerCall: requestsPerCall(requests0, requests1, spec.calls) }
      : {}),
    workflowTaskScheduleToStartMs: summarize(wft),
    activityScheduleToStartMs: summarize(histories.flatMap(activityScheduleToStart)),
    timerLatenessMs: summarize(histories.flatMap(timerLateness)),
    peakAttemptsInFlight: peakOverlap(histories.flatMap(attemptIntervals)),
    timeouts: { workflowTasks: total('WorkflowTaskTimedOut'), attempts: total('ActivityTaskTimedOut') },
    ...(stopped.peakRssBytes !== undefined ? { workerPeakRssBytes: stopped.peakRssBytes } : {}),
    ...(worker.rssAtReadyBytes !== undefined ? { workerStartRssBytes: worker.rssAtReadyBytes } : {}),
    cpuSeconds: {
      ...(workerCpu1 !== undefined && cpu0.worker !== undefined ? { worker: workerCpu1 - cpu0.worker } : {}),
      ...(serverCpu !== undefined ? { devServer: serverCpu } : {}),
      bench: (benchCpu.user + benchCpu.system) / 1e6,
    },
  };
}
