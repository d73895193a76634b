import type { WorkflowHandle } from '@temporalio/client';
import { fail, ok, slow } from '../../loopback/index.js';
import type { WorkerTuning } from '../../worker/worker.js';
import { startCall } from '../lib/calls.js';
import type { BenchContext } from '../lib/context.js';
import {
  activityScheduleToStart,
  ATTEMPT_ACTIVITY_TYPES,
  attemptIntervals,
  countTypes,
  peakOverlap,
  timerLateness,
  workflowTaskScheduleToStart,
} from '../lib/history.js';
import type { History } from '../lib/history.js';
import { cpuSeconds, findDevServerPid } from '../lib/proc.js';
import { seededRandom, summarize } from '../lib/stats.js';
import type { Summary } from '../lib/stats.js';
import { startWorkerProcess } from '../lib/worker-spawn.js';

/** One load: `calls` concurrent model calls on one worker process. */
export interface LoadSpec {
  calls: number;
  /** The provider's latency for every request (answer or failure), ms. */
  latencyMs: number;
  /** Share of attempts that fail (a 502 after the latency), drawn per attempt from a seeded random source. */
  failureRate: number;
  /** The plan's wait before each retry, ms. */
  waitMs: number;
  tuning: WorkerTuning;
  seed: number;
  /** Give up waiting after this long (the calls still running are then terminated and counted). */
  timeoutMs: number;
  /** The server's CPU seconds so far (a cluster: its services and database); default: the dev server's. */
  serverCpuSeconds?: () => number | undefined;
}

/** What one load did. */
export interface LoadFigures {
  calls: number;
  attempts: number;
  succeeded: number;
  unfinished: number;
  /** From the first start to the last result, ms. */
  completionMs: number;
  /** Starting every workflow (the client's start requests), ms. */
  startPhaseMs: number;
  /** The longest call's planned time (its attempts' latency and its waits): the best possible completion. */
  idealMs: number;
  attemptsPerSecond: number;
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
  /** CPU seconds while the load ran, by process. */
  cpuSeconds: { worker?: number; devServer?: number; bench: number };
}

const MAX_FAILURES = 4;

/** Runs one load on a fresh worker process and reads every call's history afterwards. */
export async function runLoad(
  ctx: BenchContext,
  spec: LoadSpec,
  inspect?: (histories: History[]) => void,
): Promise<LoadFigures> {
  const worker = await startWorkerProcess(ctx, spec.tuning);
  const random = seededRandom(spec.seed);
  const inputs = Array.from({ length: spec.calls }, () => {
    const model = ctx.model(`load-${spec.calls}`);
    let failures = 0;
    while (failures < MAX_FAILURES && random() < spec.failureRate) failures += 1;
    const steps = [
      ...Array.from({ length: failures }, () => slow(spec.latencyMs, fail(502))),
      slow(spec.latencyMs, ok()),
    ];
    ctx.lp.script(model.id, steps);
    const planned = (failures + 1) * spec.latencyMs + failures * spec.waitMs;
    return { model: model.name, planned };
  });
  const serverPid = findDevServerPid(Number(ctx.address.split(':').at(-1)));
  const serverNow = spec.serverCpuSeconds ?? (() => (serverPid ? cpuSeconds(serverPid) : undefined));
  const cpu0 = {
    worker: worker.cpuSeconds(),
    server: serverNow(),
    bench: process.cpuUsage(),
  };

  const t0 = Date.now();
  const handles = await Promise.all(
    inputs.map((i) =>
      startCall(ctx, worker.taskQueue, {
        model: i.model,
        prompt: 'a call among many',
        retry: {
          waits: Array.from({ length: MAX_FAILURES }, () => spec.waitMs),
          retriesPerBackend: MAX_FAILURES,
        },
      }),
    ),
  );
  const startPhaseMs = Date.now() - t0;
  let lastAt = t0;
  let succeeded = 0;
  const settled = Promise.all(
    handles.map((h) =>
      h.result().then(
        () => {
          succeeded += 1;
          lastAt = Date.now();
        },
        () => {
          lastAt = Date.now();
        },
      ),
    ),
  );
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    settled.then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), spec.timeoutMs))),
  ]);
  clearTimeout(timer);
  const end = finished ? lastAt : Date.now();
  const benchCpu = process.cpuUsage(cpu0.bench);
  const serverCpu = cpu0.server !== undefined ? (serverNow() ?? 0) - cpu0.server : undefined;
  const workerCpu1 = worker.cpuSeconds();
  const unfinished = finished ? 0 : await terminateRunning(handles);
  const stopped = await worker.stop();

  const histories = await fetchAll(handles, 16);
  inspect?.(histories);
  const wft = histories.flatMap(workflowTaskScheduleToStart);
  const act = histories.flatMap(activityScheduleToStart);
  const late = histories.flatMap(timerLateness);
  const attempts = histories.reduce((n, h) => n + countAttempts(h), 0);
  const types = histories.map(countTypes);
  const total = (type: string) => types.reduce((n, t) => n + (t.get(type) ?? 0), 0);
  const completionMs = end - t0;
  return {
    calls: spec.calls,
    attempts,
    succeeded,
    unfinished,
    completionMs,
    startPhaseMs,
    idealMs: Math.max(...inputs.map((i) => i.planned)),
    attemptsPerSecond: attempts / (completionMs / 1000),
    workflowTaskScheduleToStartMs: summarize(wft),
    activityScheduleToStartMs: summarize(act),
    timerLatenessMs: summarize(late),
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

function countAttempts(history: History): number {
  return (history.events ?? []).filter((e) => {
    const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
    return typeof name === 'string' && ATTEMPT_ACTIVITY_TYPES.has(name);
  }).length;
}

async function terminateRunning(handles: readonly WorkflowHandle[]): Promise<number> {
  let running = 0;
  for (const h of handles) {
    const { status } = await h.describe();
    if (status.name === 'RUNNING') {
      running += 1;
      await h.terminate('bench: the load did not finish in time');
    }
  }
  return running;
}

/** Every handle's history, `limit` at a time. */
async function fetchAll(handles: readonly WorkflowHandle[], limit: number): Promise<History[]> {
  const out: History[] = new Array<History>(handles.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, handles.length) }, async () => {
      while (next < handles.length) {
        const i = next++;
        out[i] = await (handles[i] as WorkflowHandle).fetchHistory();
      }
    }),
  );
  return out;
}
