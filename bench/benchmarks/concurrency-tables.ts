import { cpus } from 'node:os';
import { ACTIVITY_SLOTS } from '../../worker/worker.js';
import type { BenchResult, Table } from '../lib/report.js';
import { fmtMs, fmtNum, fmtPct, fmtRatio, median, ratio } from '../lib/stats.js';
import { loadKey, MODES } from './concurrency-plan.js';
import type { ConcurrencyPlan } from './concurrency-plan.js';
import type { LoadFigures, LoadMode } from './load-run.js';

/** The goals of issue 22, ours over the floor: throughput at least, the others at most. */
export const GOALS = { throughput: 0.95, workerCpu: 1.1, p50: 1.1, p99: 1.1 } as const;

const LABEL: Record<LoadMode, string> = {
  modelCallWorkflow: 'model-retry: modelCallWorkflow',
  callModel: 'model-retry: callModel in a workflow',
  floor: 'floor: plain workflow + activity',
};

type Runs = Map<string, LoadFigures[]>;

/** The medians a table shows of one mode's loads. */
interface Medians {
  runs: number;
  callsPerSecond: number;
  workerCpuMs: number;
  serverCpuMs: number;
  p50: number;
  p99: number;
  events: number;
  eager: number;
  problems: string;
}

function med(runs: readonly LoadFigures[], pick: (f: LoadFigures) => number | undefined): number {
  return median(runs.map(pick).filter((v): v is number => v !== undefined && Number.isFinite(v)));
}

function perCallMs(seconds: number | undefined, calls: number): number | undefined {
  return seconds === undefined ? undefined : (seconds * 1000) / calls;
}

function medians(runs: readonly LoadFigures[]): Medians {
  return {
    runs: runs.length,
    callsPerSecond: med(runs, (f) => f.callsPerSecond),
    workerCpuMs: med(runs, (f) => perCallMs(f.cpuSeconds.worker, f.calls)),
    serverCpuMs: med(runs, (f) => perCallMs(f.cpuSeconds.devServer, f.calls)),
    p50: med(runs, (f) => f.latencyMs.p50),
    p99: med(runs, (f) => f.latencyMs.p99),
    events: med(runs, (f) => f.eventsPerCall),
    eager: med(runs, (f) => f.eagerlyStarted / f.calls),
    problems: runs
      .map((f) => `${f.calls - f.succeeded}/${f.timeouts.workflowTasks}/${f.timeouts.attempts}`)
      .join(' '),
  };
}

/** A ratio beside its goal: `1.04× ✓`, `1.31× ✗` (`at most` for costs, `at least` for throughput). */
function against(r: number, goal: number, atLeast = false): string {
  if (!Number.isFinite(r)) return 'n/a';
  return `${fmtRatio(r)} ${(atLeast ? r >= goal : r <= goal) ? '✓' : '✗'}`;
}

function pct(rate: number): string {
  return `${Math.round(rate * 100)} %`;
}

function figuresTable(plan: ConcurrencyPlan, runs: Runs, eager: string, rates: readonly number[]): Table {
  return {
    title: `Eager ${eager === 'off' ? 'off' : `on (${eager})`}: ${plan.calls} calls started at once (medians over the runs)`,
    columns: [
      'failing attempts',
      'mode',
      'runs',
      'calls/s',
      'CPU per call: worker / dev server',
      'start-to-result p50 / p99',
      'events per call',
      'eagerly started',
      'failed/timed-out tasks/lost attempts',
    ],
    rows: rates.flatMap((rate) =>
      MODES.map((mode) => {
        const m = medians(runs.get(loadKey(mode, rate, eager)) ?? []);
        return [
          pct(rate),
          LABEL[mode],
          String(m.runs),
          fmtNum(m.callsPerSecond),
          `${fmtMs(m.workerCpuMs)} / ${fmtMs(m.serverCpuMs)}`,
          `${fmtMs(m.p50)} / ${fmtMs(m.p99)}`,
          fmtNum(m.events, 0),
          fmtPct(m.eager),
          m.problems,
        ];
      }),
    ),
  };
}

function ratioTable(runs: Runs, eager: string, rates: readonly number[]): Table {
  return {
    title: `Ours over the floor, eager ${eager === 'off' ? 'off' : `on (${eager})`}, against the goals`,
    columns: [
      'failing attempts',
      'mode',
      `throughput (≥ ${GOALS.throughput}×)`,
      `worker CPU per call (≤ ${GOALS.workerCpu}×)`,
      'dev server CPU per call',
      `p50 (≤ ${GOALS.p50}×)`,
      `p99 (≤ ${GOALS.p99}×)`,
    ],
    rows: rates.flatMap((rate) => {
      const floor = medians(runs.get(loadKey('floor', rate, eager)) ?? []);
      return MODES.filter((m) => m !== 'floor').map((mode) => {
        const ours = medians(runs.get(loadKey(mode, rate, eager)) ?? []);
        return [
          pct(rate),
          LABEL[mode],
          against(ratio(ours.callsPerSecond, floor.callsPerSecond), GOALS.throughput, true),
          against(ratio(ours.workerCpuMs, floor.workerCpuMs), GOALS.workerCpu),
          fmtRatio(ratio(ours.serverCpuMs, floor.serverCpuMs)),
          against(ratio(ours.p50, floor.p50), GOALS.p50),
          against(ratio(ours.p99, floor.p99), GOALS.p99),
        ];
      });
    }),
  };
}

/** Each eager setting over "off", mode by mode (the same failure rate). */
function eagerTable(plan: ConcurrencyPlan, runs: Runs): Table {
  return {
    title: `Eager settings over eager off, ${pct(plan.eagerRate)} failing attempts (below 1× is better, above for calls/s)`,
    columns: ['setting', 'mode', 'calls/s', 'worker CPU per call', 'dev server CPU per call', 'p50', 'p99'],
    rows: plan.eager.flatMap((setting) =>
      MODES.map((mode) => {
        const on = medians(runs.get(loadKey(mode, plan.eagerRate, setting.name)) ?? []);
        const off = medians(runs.get(loadKey(mode, plan.eagerRate, 'off')) ?? []);
        return [
          setting.name,
          LABEL[mode],
          fmtRatio(ratio(on.callsPerSecond, off.callsPerSecond)),
          fmtRatio(ratio(on.workerCpuMs, off.workerCpuMs)),
          fmtRatio(ratio(on.serverCpuMs, off.serverCpuMs)),
          fmtRatio(ratio(on.p50, off.p50)),
          fmtRatio(ratio(on.p99, off.p99)),
        ];
      }),
    ),
  };
}

/** The benchmark's result: the figures by mode, the ratios to the floor, the eager settings. */
export function concurrencyResult(plan: ConcurrencyPlan, runs: Runs): BenchResult {
  const eagerRates = [plan.eagerRate];
  const all = [...runs.values()].flat();
  const busy = median(
    all.map((f) => {
      const { worker = 0, devServer = 0, bench } = f.cpuSeconds;
      return ratio(worker + devServer + bench, (f.completionMs / 1000) * cpus().length);
    }),
  );
  return {
    name: 'concurrency',
    title: '3. Concurrent calls on this machine, beside the floor',
    params: {
      ...plan,
      modes: MODES,
      goals: GOALS,
      workerTuning: ACTIVITY_SLOTS,
    },
    figures: { runs: Object.fromEntries(runs) },
    tables: [
      figuresTable(plan, runs, 'off', plan.failureRates),
      ratioTable(runs, 'off', plan.failureRates),
      ...plan.eager.flatMap((s) => [
        figuresTable(plan, runs, s.name, eagerRates),
        ratioTable(runs, s.name, eagerRates),
      ]),
      eagerTable(plan, runs),
    ],
    notes: [
      `Provider latency ${fmtMs(plan.latencyMs)} (every request answered at once), waits of ${fmtMs(plan.waitMs)} ` +
        'before each retry, failures drawn per attempt from a seeded source (the same for every mode of a round). ' +
        "CPU per call is CPU time (from /proc) over the load divided by the calls; the worker's includes its " +
        'client, which runs in the same process.',
      `Worker, dev server and bench process together kept ${fmtPct(busy)} of the machine's ${cpus().length} ` +
        'cores busy at the median load (other users had the rest).',
    ],
  };
}
