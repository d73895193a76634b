import { cpus } from 'node:os';
import { ACTIVITY_SLOTS } from '../../worker/worker.js';
import type { BenchResult, Table } from '../lib/report.js';
import { fmtMs, fmtNum, fmtPct, median, ratio, sum } from '../lib/stats.js';
import { against, fmtRatioSpread, fmtSpread, med, medians, pairedRatios, pct, PICK } from './cells.js';
import type { Runs } from './cells.js';
import type { Spread } from '../lib/stats.js';

export { pairedRatios } from './cells.js';
import { loadKey, MODES } from './plan.js';
import type { ConcurrencyPlan } from './plan.js';
import type { LoadFigures, LoadMode } from './load-run.js';

/** The goals, ours over the floor: throughput at least, the others at most. */
export const GOALS = { throughput: 0.95, workerCpu: 1.1, p50: 1.1, p99: 1.1 } as const;

const LABEL: Record<LoadMode, string> = {
  modelCallWorkflow: 'model-retry: modelCallWorkflow',
  callModel: 'model-retry: callModel in a workflow',
  contractFloor: "the contract's floor: the floor + marker + search attributes",
  floor: 'floor: plain workflow + activity',
};

/** model-retry's own modes. */
const OURS: readonly LoadMode[] = ['modelCallWorkflow', 'callModel'];

/** What a ratio table holds each mode against: the floor, or the floor plus the contract's own events. */
type Base = 'floor' | 'contractFloor';

function figuresTable(plan: ConcurrencyPlan, runs: Runs, eager: string, rates: readonly number[]): Table {
  return {
    title:
      `Eager ${eager === 'off' ? 'off' : `on (${eager})`}: ${plan.calls} calls started at once ` +
      '(medians over the rounds, their range in brackets)',
    columns: [
      'failing attempts',
      'mode',
      'runs',
      'calls/s to 90 % of results',
      'calls/s to the last result',
      'CPU per call: worker / dev server',
      'start-to-result p50 / p99',
      'events per call',
      'requests per call: provider / server',
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
          fmtSpread(m.callsPerSecondTo90),
          fmtSpread(m.callsPerSecond),
          `${fmtMs(m.workerCpuMs)} / ${fmtMs(m.serverCpuMs)}`,
          `${fmtMs(m.p50)} / ${fmtMs(m.p99)}`,
          fmtNum(m.events, 0),
          `${fmtNum(m.providerRequests, 2)} / ${fmtNum(m.serverRequests, 2)}`,
          fmtPct(m.eager),
          m.problems,
        ];
      }),
    ),
  };
}

function ratioTable(runs: Runs, eager: string, rates: readonly number[], base: Base = 'floor'): Table {
  const over =
    base === 'floor'
      ? 'Ours over the floor'
      : "Ours over the contract's floor (the floor plus the `modelRetryConfig` marker and the search attributes " +
        'the contract asks of every call: what is left is our own code)';
  return {
    title:
      `${over}, eager ${eager === 'off' ? 'off' : `on (${eager})`}, against the goals ` +
      "(median of the rounds' ratios, their range in brackets)",
    columns: [
      'failing attempts',
      'mode',
      `throughput to 90 % of results (≥ ${GOALS.throughput}×)`,
      `throughput to the last result (≥ ${GOALS.throughput}×)`,
      `worker CPU per call (≤ ${GOALS.workerCpu}×)`,
      'dev server CPU per call',
      `p50 (≤ ${GOALS.p50}×)`,
      `p99 (≤ ${GOALS.p99}×)`,
      'server requests per call',
    ],
    rows: rates.flatMap((rate) => {
      const floor = runs.get(loadKey(base, rate, eager)) ?? [];
      const modes = base === 'floor' ? MODES.filter((m) => m !== 'floor') : OURS;
      return modes.map((mode) => {
        const ours = runs.get(loadKey(mode, rate, eager)) ?? [];
        const r = (pick: (f: LoadFigures) => number | undefined) => pairedRatios(ours, floor, pick);
        // The goals are ours: the contract's floor over the floor is the contract's own cost, shown without them.
        const goal = (ratios: Spread, target: number, atLeast = false) =>
          OURS.includes(mode) ? against(ratios, target, atLeast) : fmtRatioSpread(ratios);
        return [
          pct(rate),
          LABEL[mode],
          goal(r(PICK.to90), GOALS.throughput, true),
          goal(r(PICK.toLast), GOALS.throughput, true),
          goal(r(PICK.workerCpu), GOALS.workerCpu),
          fmtRatioSpread(r(PICK.serverCpu)),
          goal(r(PICK.p50), GOALS.p50),
          goal(r(PICK.p99), GOALS.p99),
          fmtRatioSpread(r(PICK.serverRequests)),
        ];
      });
    }),
  };
}

/** The server's requests per call that a table names; the rest are summed as "other". */
const OPERATIONS = [
  'StartWorkflowExecution',
  'PollWorkflowTaskQueue',
  'RespondWorkflowTaskCompleted',
  'PollActivityTaskQueue',
  'RespondActivityTaskCompleted',
  'RespondActivityTaskFailed',
  'RecordActivityTaskHeartbeat',
  'PollWorkflowExecutionHistory',
] as const;

/** What each call asks of the server, by operation: the same retry path makes the same requests. */
function requestsTable(runs: Runs, eager: string, rates: readonly number[]): Table {
  const op = (f: LoadFigures, name: string) => f.serverRequestsPerCall?.[name] ?? 0;
  const other = (f: LoadFigures) =>
    f.serverRequestsPerCall
      ? sum(
          Object.entries(f.serverRequestsPerCall)
            .filter(([name]) => !(OPERATIONS as readonly string[]).includes(name))
            .map(([, n]) => n),
        )
      : Number.NaN;
  return {
    title:
      `Requests per call, eager ${eager === 'off' ? 'off' : `on (${eager})`}: to the provider, and to the ` +
      "server by operation (medians over the rounds; the server's own count, its frontend's `service_requests`)",
    columns: ['failing attempts', 'mode', 'provider', ...OPERATIONS, 'other'],
    rows: rates.flatMap((rate) =>
      MODES.map((mode) => {
        const loads = (runs.get(loadKey(mode, rate, eager)) ?? []).filter((f) => f.serverRequestsPerCall);
        const all = runs.get(loadKey(mode, rate, eager)) ?? [];
        return [
          pct(rate),
          LABEL[mode],
          fmtNum(
            med(all, (f) => f.providerRequestsPerCall),
            2,
          ),
          ...OPERATIONS.map((name) =>
            fmtNum(
              med(loads, (f) => op(f, name)),
              2,
            ),
          ),
          fmtNum(med(loads, other), 2),
        ];
      }),
    ),
  };
}

/** Each eager setting over "off", mode by mode (the same failure rate), round by round. */
function eagerTable(plan: ConcurrencyPlan, runs: Runs): Table {
  return {
    title:
      `Eager settings over eager off, ${pct(plan.eagerRate)} failing attempts (below 1× is better, above for ` +
      "calls/s; median of the rounds' ratios, their range in brackets)",
    columns: [
      'setting',
      'mode',
      'calls/s to 90 % of results',
      'calls/s to the last result',
      'worker CPU per call',
      'dev server CPU per call',
      'p50',
      'p99',
    ],
    rows: plan.eager.flatMap((setting) =>
      MODES.map((mode) => {
        const on = runs.get(loadKey(mode, plan.eagerRate, setting.name)) ?? [];
        const off = runs.get(loadKey(mode, plan.eagerRate, 'off')) ?? [];
        const r = (pick: (f: LoadFigures) => number | undefined) =>
          fmtRatioSpread(pairedRatios(on, off, pick));
        return [
          setting.name,
          LABEL[mode],
          r(PICK.to90),
          r(PICK.toLast),
          r(PICK.workerCpu),
          r(PICK.serverCpu),
          r(PICK.p50),
          r(PICK.p99),
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
      ratioTable(runs, 'off', plan.failureRates, 'contractFloor'),
      requestsTable(runs, 'off', plan.failureRates),
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
      'Both throughputs are held to the goal: to the last result (what a user waiting for all calls sees) and to ' +
        '90 % of results. Calls started at once end with a tail of a few calls whose workflow tasks waited longest ' +
        'to be picked up from the task queue; that tail moved the throughput to the last result by up to ±40 % from ' +
        "run to run at the same CPU per call, and ours' tail is longer where its CPU per workflow task is higher, so " +
        'the tail is part of what is measured, not noise to cut. Ratios are taken round by round (ours and the ' +
        'floor ran in the same minutes); the cell is their median and range.',
      `Worker, dev server and bench process together kept ${fmtPct(busy)} of the machine's ${cpus().length} ` +
        'cores busy at the median load (other users had the rest).',
    ],
  };
}
