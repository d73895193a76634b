import { randomUUID } from 'node:crypto';
import pRetry from 'p-retry';
import { toPrompt } from '../../activities/attempt/prompt.js';
import { REQUEST_ID_HEADER } from '../../activities/attempt/model-request.js';
import { fail, ok } from '../../loopback/index.js';
import type { Benchmark } from '../lib/benchmark.js';
import { runCall, runFloor, runServerRetry } from '../lib/calls.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { eventTimeMs, eventTypeName, timerLateness } from '../lib/history.js';
import type { History } from '../lib/history.js';
import { startFloorWorker } from '../../test/harness/floor/worker.js';
import { APPROACHES, byApproach, retryOverheadResult } from './tables.js';

/** Timer durations whose lateness is shown on their own (ms). */
const TIMER_DURATIONS_MS = [100, 250, 500, 900, 1000, 2000];

/**
 * Item 2: what a retry costs beyond its planned wait. Each repetition runs one call per approach (interleaved,
 * so drift on a shared machine hits all alike; the floor is a plain workflow with a timer between activities), each meeting `retries` 502s before the answer, with the
 * same wait before every retry. The loopback provider times every request: a retry's overhead is the time from
 * the end of the failed response to the arrival of the next request, less the planned wait.
 */
export const retryOverhead: Benchmark = {
  name: 'retry-overhead',
  title: '2. Overhead per retry beyond the planned wait',
  async run(ctx) {
    const quick = ctx.size === 'quick';
    const retries = quick ? 2 : 3;
    const waitMs = quick ? 200 : 1000;
    const reps = quick ? 1 : 6;
    const ours = await ctx.startWorker();
    const baseline = await ctx.startServerRetryWorker();
    const floor = await startFloorWorker(ctx);
    const overhead = byApproach();
    const callMs = byApproach();
    // The floor's own parts and timer lateness, read from its histories as model-retry's are.
    const floorParts = { before: [] as number[], after: [] as number[], late: [] as number[] };
    const lateness: number[] = [];
    // model-retry's gaps less each one's own timer lateness (paired in order), read from its history.
    const lessLate: number[] = [];
    const floorLessLate: number[] = [];
    const timers: { plannedMs: number; lateMs: number[] }[] = [];
    const beforeTimer: number[] = [];
    const afterTimer: number[] = [];
    try {
      for (let rep = 0; rep < reps; rep += 1) {
        for (const approach of APPROACHES) {
          const model = ctx.model(`overhead-${approach.split(' ')[0]}`);
          ctx.lp.script(model.id, [...Array.from({ length: retries }, () => fail(502)), ok()]);
          const started = Date.now();
          if (approach === 'model-retry') {
            const run = await runCall(ctx, ours.taskQueue, {
              model: model.name,
              prompt: 'measure my retries',
              retry: { waits: Array.from({ length: retries }, () => waitMs), retriesPerBackend: retries },
            });
            if (!run.ok) throw new Error(`retry-overhead: ${run.workflowId} failed`);
            lateness.push(...timerLateness(run.history));
            const parts = timerParts(run.history);
            beforeTimer.push(...parts.before);
            afterTimer.push(...parts.after);
          } else if (approach === 'floor') {
            const run = await runFloor(ctx, floor.taskQueue, 'floorPromptWorkflow', {
              model: model.name,
              prompt: 'measure my retries',
              attempts: retries + 1,
              waitMs,
            });
            if (!run.ok) throw new Error(`retry-overhead: ${run.workflowId} failed`);
            const parts = timerParts(run.history);
            floorParts.before.push(...parts.before);
            floorParts.after.push(...parts.after);
            floorParts.late.push(...timerLateness(run.history));
          } else if (approach === 'server-side retry') {
            const run = await runServerRetry(ctx, baseline.taskQueue, {
              model: model.name,
              prompt: 'measure my retries',
              maximumAttempts: retries + 1,
              waitMs,
              timeoutMs: 30_000,
            });
            if (!run.ok) throw new Error(`retry-overhead: ${run.workflowId} failed`);
          } else {
            await inProcess(ctx, model.name, retries, waitMs);
          }
          callMs[approach].push(Date.now() - started);
          const own = gaps(ctx, model.id, waitMs);
          overhead[approach].push(...own);
          if (approach === 'model-retry') {
            const late = lateness.slice(-own.length);
            lessLate.push(...own.map((g, i) => g - (late[i] ?? 0)));
          }
          if (approach === 'floor') {
            const late = floorParts.late.slice(-own.length);
            floorLessLate.push(...own.map((g, i) => g - (late[i] ?? 0)));
          }
        }
      }
      for (const ms of quick ? [200, 1000] : TIMER_DURATIONS_MS) {
        timers.push({ plannedMs: ms, lateMs: await timerLate(ctx, ours.taskQueue, ms, quick ? 1 : 2) });
      }
    } finally {
      await ours.stop();
      await baseline.stop();
      await floor.stop();
    }
    return retryOverheadResult({
      retries,
      waitMs,
      reps,
      overhead,
      callMs,
      lateness,
      lessLate,
      floorLessLate,
      ours: { before: beforeTimer, after: afterTimer },
      floorParts,
      timers,
    });
  },
};

/** The gaps between one model's consecutive requests, less the planned wait (ms). */
function gaps(ctx: BenchContext, modelId: string, waitMs: number): number[] {
  const requests = ctx.lp.requests(modelId);
  return requests.slice(1).map((next, i) => {
    const prev = requests[i];
    return next.receivedAt - (prev?.endedAt ?? prev?.receivedAt ?? next.receivedAt) - waitMs;
  });
}

/** For each timer: failure recorded -> timer started, and timer fired -> next attempt started (ms). */
function timerParts(history: History): { before: number[]; after: number[] } {
  const events = history.events ?? [];
  const before: number[] = [];
  const after: number[] = [];
  let lastFailure: number | undefined;
  let lastFired: number | undefined;
  for (const e of events) {
    const type = eventTypeName(e);
    if (type === 'ActivityTaskFailed') lastFailure = eventTimeMs(e);
    if (type === 'TimerStarted' && lastFailure !== undefined) before.push(eventTimeMs(e) - lastFailure);
    if (type === 'TimerFired') lastFired = eventTimeMs(e);
    if (type === 'ActivityTaskStarted' && lastFired !== undefined) {
      after.push(eventTimeMs(e) - lastFired);
      lastFired = undefined;
    }
  }
  return { before, after };
}

/** The same request in a plain loop in this process: p-retry, the same waits, no durability. */
async function inProcess(ctx: BenchContext, model: string, retries: number, waitMs: number): Promise<void> {
  const resolved = ctx.providers.resolve(model);
  let attempt = 0;
  await pRetry(
    async () => {
      attempt += 1;
      return resolved.model.doGenerate({
        prompt: toPrompt([{ role: 'user', content: [{ type: 'text', text: 'measure my retries' }] }]),
        headers: { [REQUEST_ID_HEADER]: `in-process/${attempt}` },
      });
    },
    { retries, minTimeout: waitMs, maxTimeout: waitMs, factor: 1, randomize: false },
  );
}

/** How late a durable timer of `ms` fires on the run's dev server: `timerWorkflow` (a timer alone). */
async function timerLate(ctx: BenchContext, taskQueue: string, ms: number, reps: number): Promise<number[]> {
  const out: number[] = [];
  for (let rep = 0; rep < reps; rep += 1) {
    const handle = await ctx.client.workflow.start('timerWorkflow', {
      taskQueue,
      workflowId: `bench-timer-${ms}-${randomUUID()}`,
      args: [{ waitMs: ms }],
    });
    await handle.result();
    out.push(...timerLateness(await handle.fetchHistory()));
  }
  return out;
}
