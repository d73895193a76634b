import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import { always, ok } from '../../loopback/index.js';
import type { FloorCallInput } from '../../test/harness/floor/workflows.js';
import { startCall } from '../lib/calls.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { cpuSeconds, findDevServerPid } from '../../test/harness/spawn/proc.js';
import { summarize } from '../lib/stats.js';
import type { Summary } from '../lib/stats.js';
import { startWorkerProcess } from '../../test/harness/spawn/index.js';
import type { WorkerTuning } from '../../worker/worker.js';

/**
 * Which workflow a scale load starts: model-retry's `modelCallWorkflow`, or the floor's `floorCallWorkflow` (a
 * plain workflow calling one plain activity that sends the same request, on a floor worker with the same slots).
 */
export type ScaleWorkflow = 'ours' | 'floor';

export interface ScaleSpec {
  calls: number;
  workflow: ScaleWorkflow;
  /** Give up waiting after this long: the calls still running are terminated and counted. */
  timeoutMs: number;
  /** The worker's settings; default: model-retry's (the floor's worker takes the same). */
  tuning?: WorkerTuning;
  /** The server's CPU seconds so far; default: the dev server's at the context's address. */
  serverCpuSeconds?: () => number | undefined;
}

export interface ScaleFigures {
  calls: number;
  succeeded: number;
  /** Calls that ended in a failure, and the first one's cause (none is expected: every answer is ok). */
  failed: number;
  firstFailure?: string;
  unfinished: number;
  /** From the first start request to the last result (or to the timeout), ms. */
  completionMs: number;
  /** Sending every start request, ms. */
  startPhaseMs: number;
  /** Calls that succeeded per second of `completionMs`. */
  callsPerSecond: number;
  /** Each finished call's start request to its result, as the host sees it, ms. */
  latencyMs: Summary;
  cpuSeconds: { worker?: number; server?: number };
}

const PROMPT = 'a call among thousands';
const REQUEST_TIMEOUT_MS = 60_000;
/** Start requests in flight at once: the calls are queued as fast as the server takes them. */
const START_CONCURRENCY = 64;

/**
 * `calls` calls that answer at once, queued together (at most 64 start requests in flight) on a fresh worker process (model-retry's settings),
 * then awaited: the whole queue's completion time, the calls per second and each call's start-to-result latency.
 */
export async function runScale(ctx: BenchContext, spec: ScaleSpec): Promise<ScaleFigures> {
  const kind = spec.workflow === 'ours' ? 'model-retry' : 'floor';
  const worker = await startWorkerProcess(ctx, spec.tuning ?? {}, { kind });
  const model = ctx.model(`scale-${spec.workflow}`);
  // Every request answers at once, a retry's too (an attempt lost to a heartbeat timeout on a busy machine).
  ctx.lp.script(model.id, [always(ok())]);
  const serverPid = findDevServerPid(Number(ctx.address.split(':').at(-1)));
  const serverNow = spec.serverCpuSeconds ?? (() => (serverPid ? cpuSeconds(serverPid) : undefined));
  const cpu0 = { worker: worker.cpuSeconds(), server: serverNow() };
  const latencies: number[] = [];
  const open = new Set<WorkflowHandle>();
  let lastAt = 0;
  const t0 = Date.now();
  const failures: string[] = [];
  const handles: { handle: WorkflowHandle; sentAt: number }[] = [];
  // At most START_CONCURRENCY start requests in flight: 5,000 at once overran the dev server's SQLite (a start
  // refused with DEADLINE_EXCEEDED after 55 s); a start that still fails is a failed call, not the end of the load.
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(START_CONCURRENCY, spec.calls) }, async () => {
      for (; next < spec.calls;) {
        next += 1;
        const sentAt = Date.now();
        try {
          const handle = await start(ctx, worker.taskQueue, spec.workflow, model.name);
          open.add(handle);
          handles.push({ handle, sentAt });
        } catch (error) {
          failures.push(`start: ${describe(error)}`);
        }
      }
    }),
  );
  const startPhaseMs = Date.now() - t0;
  let succeeded = 0;
  const settled = Promise.all(
    handles.map(({ handle, sentAt }) =>
      resultOf(handle).then(
        () => {
          // A call that ends after the limit was already counted as unfinished.
          if (!open.delete(handle)) return;
          lastAt = Date.now();
          succeeded += 1;
          latencies.push(lastAt - sentAt);
        },
        (error: unknown) => {
          if (!open.delete(handle)) return;
          lastAt = Date.now();
          failures.push(describe(error));
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
  const completionMs = (finished ? lastAt : Date.now()) - t0;
  const worker1 = worker.cpuSeconds();
  const server1 = serverNow();
  // The calls still running are unfinished, not failed: their results reject once they are terminated.
  const running = [...open];
  open.clear();
  await terminateAll(running, 16);
  await worker.stop();
  return {
    calls: spec.calls,
    succeeded,
    failed: failures.length,
    ...(failures[0] !== undefined ? { firstFailure: failures[0] } : {}),
    unfinished: running.length,
    completionMs,
    startPhaseMs,
    callsPerSecond: succeeded / (completionMs / 1000),
    latencyMs: summarize(latencies),
    cpuSeconds: {
      ...(worker1 !== undefined && cpu0.worker !== undefined ? { worker: worker1 - cpu0.worker } : {}),
      ...(server1 !== undefined && cpu0.server !== undefined ? { server: server1 - cpu0.server } : {}),
    },
  };
}

/**
 * The call's result, as the host waits for it: a long poll of its history per call. 5,000 such polls at once pass
 * the server's limit of concurrent long polls per namespace (`RESOURCE_EXHAUSTED: namespace concurrent poller limit
 * exceeded`), which refuses the poll, not the call: asked again after a short pause (a closed run's poll answers at
 * once), so a refused wait is not counted as a failed call.
 */
async function resultOf(handle: WorkflowHandle): Promise<unknown> {
  for (;;) {
    try {
      return await handle.result();
    } catch (error) {
      if (!describe(error).includes('RESOURCE_EXHAUSTED')) throw error;
      await new Promise((r) => setTimeout(r, 250 + Math.random() * 500));
    }
  }
}

/** A failed call's error and its causes, in one line. */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e instanceof Error; e = e.cause) parts.push(`${e.name}: ${e.message}`);
  return parts.join(' <- ') || String(error);
}

function start(ctx: BenchContext, taskQueue: string, workflow: ScaleWorkflow, model: string) {
  if (workflow === 'ours') return startCall(ctx, taskQueue, { model, prompt: PROMPT });
  const messages = [{ role: 'user' as const, content: PROMPT }];
  const input: FloorCallInput = { model, messages, timeoutMs: REQUEST_TIMEOUT_MS };
  return ctx.client.workflow.start('floorCallWorkflow', {
    taskQueue,
    workflowId: `bench-floor-${randomUUID()}`,
    args: [input],
  });
}

/** Terminates the calls still running, `limit` at a time (a run that did not finish in its time). */
async function terminateAll(handles: WorkflowHandle[], limit: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, handles.length) }, async () => {
      while (next < handles.length) {
        const handle = handles[next++] as WorkflowHandle;
        await handle.terminate('bench: the scale load did not finish in time').catch(() => undefined);
      }
    }),
  );
}
