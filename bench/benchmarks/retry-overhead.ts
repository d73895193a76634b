import { randomUUID } from 'node:crypto';
import pRetry from 'p-retry';
import { toPrompt } from '../../activities/attempt/prompt.js';
import { REQUEST_ID_HEADER } from '../../activities/attempt/model-request.js';
import { fail, ok } from '../../loopback/index.js';
import type { Benchmark } from '../lib/benchmark.js';
import { runCall, runServerRetry } from '../lib/calls.js';
import type { BenchContext } from '../lib/context.js';
import { eventTimeMs, eventTypeName, timerLateness } from '../lib/history.js';
import type { History } from '../lib/history.js';
import { fmtMs, fmtRatio, median, percentile, ratio, summarize } from '../lib/stats.js';
import type { Summary } from '../lib/stats.js';

const APPROACHES = ['model-retry', 'server-side retry', 'in-process loop'] as const;
/** Timer durations whose lateness is shown on their own (ms). */
const TIMER_DURATIONS_MS = [100, 250, 500, 900, 1000, 2000];
type Approach = (typeof APPROACHES)[number];

/**
 * Item 2: what a retry costs beyond its planned wait. Each repetition runs one call per approach (interleaved,
 * so drift on a shared machine hits all three alike), each meeting `retries` 502s before the answer, with the
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
    const overhead: Record<Approach, number[]> = {
      'model-retry': [],
      'server-side retry': [],
      'in-process loop': [],
    };
    const callMs: Record<Approach, number[]> = {
      'model-retry': [],
      'server-side retry': [],
      'in-process loop': [],
    };
    const lateness: number[] = [];
    // model-retry's gaps less each one's own timer lateness (paired in order), read from its history.
    const lessLate: number[] = [];
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
        }
      }
      for (const ms of quick ? [200, 1000] : TIMER_DURATIONS_MS) {
        timers.push({ plannedMs: ms, lateMs: await timerLate(ctx, ours.taskQueue, ms, quick ? 1 : 2) });
      }
    } finally {
      await ours.stop();
      await baseline.stop();
    }
    const s = Object.fromEntries(APPROACHES.map((a) => [a, summarize(overhead[a])])) as Record<
      Approach,
      Summary
    >;
    const inproc = s['in-process loop'];
    const late = summarize(lateness);
    const plannedCall = retries * waitMs;
    // Server-side retries wait on the same timer queue; their own lateness is not in any history, so the
    // median lateness of model-retry's timers stands in for it.
    const serverLessLate = overhead['server-side retry'].map((g) => g - late.p50);
    return {
      name: 'retry-overhead',
      title: this.title,
      params: { retriesPerCall: retries, waitMs, repetitions: reps, samplesPerApproach: retries * reps },
      figures: {
        overheadMs: s,
        callMs: Object.fromEntries(APPROACHES.map((a) => [a, summarize(callMs[a])])),
        modelRetryParts: {
          timerLatenessMs: late,
          failureToTimerStartedMs: summarize(beforeTimer),
          timerFiredToAttemptStartedMs: summarize(afterTimer),
        },
        timerLatenessByDuration: timers.map((t) => ({ plannedMs: t.plannedMs, lateMs: summarize(t.lateMs) })),
        lessTimerLatenessMs: {
          'model-retry': summarize(lessLate),
          'server-side retry': summarize(serverLessLate),
        },
      },
      tables: [
        {
          title: `Overhead per retry beyond a planned wait of ${fmtMs(waitMs)} (${retries * reps} retries per approach)`,
          columns: ['approach', 'p50', 'p99', 'p50 / planned wait', 'p50 vs in-process', 'p99 vs in-process'],
          rows: APPROACHES.map((a) => [
            a === 'in-process loop' ? 'in-process loop (p-retry)' : a,
            fmtMs(s[a].p50),
            fmtMs(s[a].p99),
            fmtRatio(ratio(s[a].p50, waitMs)),
            fmtRatio(ratio(s[a].p50, inproc.p50)),
            fmtRatio(ratio(s[a].p99, inproc.p99)),
          ]),
          notes: [
            `model-retry vs server-side retry: p50 ${fmtRatio(ratio(s['model-retry'].p50, s['server-side retry'].p50))}, ` +
              `p99 ${fmtRatio(ratio(s['model-retry'].p99, s['server-side retry'].p99))}.`,
          ],
        },
        {
          title: "Where model-retry's overhead goes (from its histories)",
          columns: ['part', 'p50', 'p99'],
          rows: [
            [
              'failure recorded -> timer started (a workflow task)',
              fmtMs(median(beforeTimer)),
              fmtMs(percentile(beforeTimer, 99)),
            ],
            ['timer fired late by (the dev server)', fmtMs(late.p50), fmtMs(late.p99)],
            [
              'timer fired -> next attempt started (a workflow task, dispatch)',
              fmtMs(median(afterTimer)),
              fmtMs(percentile(afterTimer, 99)),
            ],
          ],
        },
        {
          title: "Overhead per retry less the dev server's timer lateness",
          columns: ['approach', 'p50', 'p99', 'p50 vs in-process'],
          rows: [
            [
              "model-retry (each timer's own lateness)",
              fmtMs(median(lessLate)),
              fmtMs(percentile(lessLate, 99)),
              fmtRatio(ratio(median(lessLate), inproc.p50)),
            ],
            [
              'server-side retry (less the median lateness)',
              fmtMs(median(serverLessLate)),
              fmtMs(percentile(serverLessLate, 99)),
              fmtRatio(ratio(median(serverLessLate), inproc.p50)),
            ],
          ],
          notes: [
            `model-retry vs server-side retry, lateness removed: p50 ` +
              `${fmtRatio(ratio(median(lessLate), median(serverLessLate)))}.`,
          ],
        },
        {
          title: 'Dev-server timer lateness by planned duration (a durable timer alone, `timerWorkflow`)',
          columns: ['planned', 'fired after (p50)', 'late by p50', 'late by max'],
          rows: timers.map((t) => [
            fmtMs(t.plannedMs),
            fmtMs(t.plannedMs + median(t.lateMs)),
            fmtMs(median(t.lateMs)),
            fmtMs(Math.max(...t.lateMs)),
          ]),
        },
        {
          title: `A whole call (${retries} failures, then the answer; planned waits ${fmtMs(plannedCall)})`,
          columns: ['approach', 'p50', 'vs in-process'],
          rows: APPROACHES.map((a) => [
            a,
            fmtMs(median(callMs[a])),
            fmtRatio(ratio(median(callMs[a]), median(callMs['in-process loop']))),
          ]),
        },
      ],
      notes: [
        `With waits of ${fmtMs(waitMs)} the dev server fired model-retry's timers ${fmtMs(late.p50)} late (median; ` +
          `p99 ${fmtMs(late.p99)}). A shorter timer fires late: see the lateness by duration; the dev server's ` +
          'timer queue looks ahead by `history.timerProcessorMaxTimeShift` (10 ms on the dev server, 1 s on a cluster by default), and server-side activity ' +
          'retries wait on the same queue.',
      ],
    };
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
        prompt: toPrompt([{ role: 'user', content: 'measure my retries' }]),
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
