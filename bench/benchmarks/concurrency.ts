import { cpus } from 'node:os';
import { WORKER_TUNING } from '../../worker/worker.js';
import type { WorkerTuning } from '../../worker/worker.js';
import type { Benchmark } from '../lib/benchmark.js';
import type { BenchContext } from '../lib/context.js';
import { fmtBytes, fmtMs, fmtNum, fmtPct, fmtRatio, median, ratio } from '../lib/stats.js';
import { runLoad } from './load-run.js';
import type { LoadFigures, LoadSpec } from './load-run.js';

/** The SDK's own activity slots (100), for the comparison with model-retry's setting. */
const SDK_ACTIVITY_SLOTS: WorkerTuning = { maxConcurrentActivityTaskExecutions: 100 };

interface Plan {
  sizes: number[];
  latencyMs: number;
  waitMs: number;
  /** Long requests, no failures: where activity slots matter. */
  slots: { calls: number; latencyMs: number; sdk: WorkerTuning; label: string };
  /** Time for the whole benchmark; repetitions are added while it lasts. */
  budgetMs: number;
  maxReps: number;
}

const FULL: Plan = {
  sizes: [100, 500, 1000],
  latencyMs: 1000,
  waitMs: 1000,
  slots: { calls: 150, latencyMs: 4000, sdk: SDK_ACTIVITY_SLOTS, label: '100 activity slots (SDK default)' },
  budgetMs: 5 * 60_000,
  maxReps: 3,
};

const QUICK: Plan = {
  sizes: [8],
  latencyMs: 100,
  waitMs: 100,
  // Two slots against model-retry's: the mechanism at a size that runs in seconds.
  slots: {
    calls: 6,
    latencyMs: 400,
    sdk: { maxConcurrentActivityTaskExecutions: 2 },
    label: '2 activity slots',
  },
  budgetMs: 30_000,
  maxReps: 1,
};

/**
 * Item 3: many concurrent calls on this machine. Each size runs on a fresh worker process (model-retry's own
 * settings, `WORKER_TUNING`), every call's script drawn from a seeded random source (20 % of attempts fail with
 * a 502 after the provider's latency), all started at once. Figures come from the histories (schedule-to-start,
 * attempts, timeouts) and from /proc (worker peak memory, CPU by process). A second part runs long requests with
 * the SDK's activity slots and with model-retry's.
 */
export const concurrency: Benchmark = {
  name: 'concurrency',
  title: '3. Concurrent calls on this machine',
  async run(ctx) {
    const plan = ctx.size === 'quick' ? QUICK : FULL;
    const started = Date.now();
    const bySize = new Map<number, LoadFigures[]>(plan.sizes.map((n) => [n, []]));
    const durations = new Map<number, number>();
    const load = async (calls: number, rep: number) => {
      const t = Date.now();
      const figures = await runLoad(ctx, spec(plan, calls, rep));
      durations.set(calls, Date.now() - t);
      bySize.get(calls)?.push(figures);
      ctx.lp.reset();
      ctx.log(`bench: concurrency ${calls} calls: ${fmtMs(figures.completionMs)}`);
    };
    for (const calls of plan.sizes) await load(calls, 0);
    const slots = await slotComparison(ctx, plan);
    for (let rep = 1; rep < plan.maxReps; rep += 1) {
      for (const calls of plan.sizes) {
        const left = plan.budgetMs - (Date.now() - started);
        if ((durations.get(calls) ?? Infinity) < left) await load(calls, rep);
      }
    }
    return result(plan, bySize, slots);
  },
};

function spec(plan: Plan, calls: number, rep: number): LoadSpec {
  return {
    calls,
    latencyMs: plan.latencyMs,
    failureRate: 0.2,
    waitMs: plan.waitMs,
    tuning: {},
    seed: calls * 31 + rep * 7919,
    timeoutMs: Math.max(60_000, calls * 300),
  };
}

async function slotComparison(
  ctx: BenchContext,
  plan: Plan,
): Promise<{ sdk: LoadFigures; ours: LoadFigures }> {
  const base = {
    calls: plan.slots.calls,
    latencyMs: plan.slots.latencyMs,
    failureRate: 0,
    waitMs: plan.waitMs,
    seed: 1,
    timeoutMs: Math.max(60_000, plan.slots.calls * 600),
  };
  const sdk = await runLoad(ctx, { ...base, tuning: plan.slots.sdk });
  ctx.lp.reset();
  const ours = await runLoad(ctx, { ...base, tuning: {} });
  ctx.lp.reset();
  return { sdk, ours };
}

function perCallMs(cpuSeconds: number | undefined, calls: number): number {
  return cpuSeconds === undefined ? Number.NaN : (cpuSeconds * 1000) / calls;
}

function med(runs: readonly LoadFigures[], pick: (f: LoadFigures) => number | undefined): number {
  return median(runs.map(pick).filter((v): v is number => v !== undefined && Number.isFinite(v)));
}

function result(
  plan: Plan,
  bySize: Map<number, LoadFigures[]>,
  slots: { sdk: LoadFigures; ours: LoadFigures },
) {
  const rows = [...bySize.entries()].filter(([, runs]) => runs.length > 0);
  const share = (f: LoadFigures) => {
    const { worker = 0, devServer = 0, bench } = f.cpuSeconds;
    return {
      server: ratio(devServer, worker + devServer + bench),
      busy: ratio(worker + devServer + bench, (f.completionMs / 1000) * cpus().length),
    };
  };
  const largest = rows.at(-1)?.[1] ?? [];
  const smallest = rows[0]?.[1] ?? [];
  const slotRow = (label: string, f: LoadFigures) => [
    label,
    fmtMs(f.completionMs),
    `${fmtMs(f.activityScheduleToStartMs.p50)} / ${fmtMs(f.activityScheduleToStartMs.p99)}`,
    String(f.peakAttemptsInFlight),
    `${fmtMs(f.workflowTaskScheduleToStartMs.p50)} / ${fmtMs(f.workflowTaskScheduleToStartMs.p99)}`,
    `${fmtMs(perCallMs(f.cpuSeconds.worker, f.calls))} / ${fmtMs(perCallMs(f.cpuSeconds.devServer, f.calls))}`,
  ];
  const ourSlots = WORKER_TUNING.maxConcurrentActivityTaskExecutions ?? 100;
  return {
    name: 'concurrency',
    title: '3. Concurrent calls on this machine',
    params: {
      sizes: plan.sizes,
      latencyMs: plan.latencyMs,
      failureRate: 0.2,
      waitMs: plan.waitMs,
      budgetMs: plan.budgetMs,
      workerTuning: WORKER_TUNING,
      slotComparison: plan.slots,
    },
    figures: { runs: Object.fromEntries(rows), slots },
    tables: [
      {
        title: `Concurrent calls (provider latency ${fmtMs(plan.latencyMs)}, 20 % of attempts fail, waits ${fmtMs(plan.waitMs)}; medians over the runs)`,
        columns: [
          'calls',
          'runs',
          'completion',
          'vs best possible',
          'attempts/s',
          'workflow task sched-to-start p50 / p99',
          'activity sched-to-start p99',
          'attempts in flight (peak)',
          'worker peak RSS (at start)',
          'CPU per call: worker / dev server',
          'timeouts: workflow task / attempt',
          'unfinished',
        ],
        rows: rows.map(([calls, runs]) => [
          String(calls),
          String(runs.length),
          fmtMs(med(runs, (f) => f.completionMs)),
          fmtRatio(med(runs, (f) => ratio(f.completionMs, f.idealMs))),
          fmtNum(med(runs, (f) => f.attemptsPerSecond)),
          `${fmtMs(med(runs, (f) => f.workflowTaskScheduleToStartMs.p50))} / ${fmtMs(med(runs, (f) => f.workflowTaskScheduleToStartMs.p99))}`,
          fmtMs(med(runs, (f) => f.activityScheduleToStartMs.p99)),
          fmtNum(
            med(runs, (f) => f.peakAttemptsInFlight),
            0,
          ),
          `${fmtBytes(med(runs, (f) => f.workerPeakRssBytes))} (${fmtBytes(med(runs, (f) => f.workerStartRssBytes))})`,
          `${fmtMs(med(runs, (f) => perCallMs(f.cpuSeconds.worker, f.calls)))} / ${fmtMs(med(runs, (f) => perCallMs(f.cpuSeconds.devServer, f.calls)))}`,
          `${runs.map((f) => f.timeouts.workflowTasks).join('+')} / ${runs.map((f) => f.timeouts.attempts).join('+')}`,
          runs.map((f) => f.unfinished).join('+'),
        ]),
        notes: [
          '"vs best possible": completion over the longest call\'s own planned time (its attempts and waits), all calls ' +
            'starting together. CPU per call is CPU time (from /proc) over the run, divided by the calls.',
        ],
      },
      {
        title: `Activity slots with long requests (${slots.ours.calls} calls of ${fmtMs(plan.slots.latencyMs)}, no failures)`,
        columns: [
          'worker setting',
          'completion',
          'activity sched-to-start p50 / p99',
          'attempts in flight (peak)',
          'workflow task sched-to-start p50 / p99',
          'CPU per call: worker / dev server',
        ],
        rows: [
          slotRow(plan.slots.label, slots.sdk),
          slotRow(`${ourSlots} activity slots (model-retry)`, slots.ours),
        ],
      },
    ],
    notes: [
      `Growth from ${rows[0]?.[0] ?? '?'} to ${rows.at(-1)?.[0] ?? '?'} calls: completion ` +
        `${fmtRatio(
          ratio(
            med(largest, (f) => f.completionMs),
            med(smallest, (f) => f.completionMs),
          ),
        )}, ` +
        `workflow-task schedule-to-start p99 ` +
        `${fmtRatio(
          ratio(
            med(largest, (f) => f.workflowTaskScheduleToStartMs.p99),
            med(smallest, (f) => f.workflowTaskScheduleToStartMs.p99),
          ),
        )}.`,
      `The dev server used ${fmtPct(med(largest, (f) => share(f).server))} of the CPU the largest load took ` +
        `(worker, dev server and bench process together kept ${fmtPct(med(largest, (f) => share(f).busy))} of the ` +
        `machine's ${cpus().length} cores busy; other users had the rest).`,
    ],
  };
}
