import { cpus } from 'node:os';
import { ACTIVITY_SLOTS } from '../../worker/worker.js';
import type { BenchResult, Table } from '../lib/report.js';
import { fmtMs, fmtNum, fmtPct, fmtRatio, median, ratio, spread, sum } from '../lib/stats.js';
import type { Spread } from '../lib/stats.js';
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

/** The medians a table shows of one mode's loads (and the spread of its throughputs). */
interface Medians {
  runs: number;
  callsPerSecond: Spread;
  callsPerSecondTo90: Spread;
  workerCpuMs: number;
  serverCpuMs: number;
  p50: number;
  p99: number;
  events: number;
  providerRequests: number;
  serverRequests: number;
  eager: number;
  problems: string;
}

function med(runs: readonly LoadFigures[], pick: (f: LoadFigures) => number | undefined): number {
  return median(runs.map(pick).filter((v): v is number => v !== undefined && Number.isFinite(v)));
}

function perCallMs(seconds: number | undefined, calls: number): number | undefined {
  return seconds === undefined ? undefined : (seconds * 1000) / calls;
}

/** The server's requests per call of one load, every operation summed (NaN when they could not be read). */
function serverRequests(f: LoadFigures): number {
  return f.serverRequestsPerCall ? sum(Object.values(f.serverRequestsPerCall)) : Number.NaN;
}

function medians(runs: readonly LoadFigures[]): Medians {
  return {
    runs: runs.length,
    callsPerSecond: spread(runs.map((f) => f.callsPerSecond)),
    callsPerSecondTo90: spread(runs.map((f) => f.callsPerSecondTo90)),
    workerCpuMs: med(runs, (f) => perCallMs(f.cpuSeconds.worker, f.calls)),
    serverCpuMs: med(runs, (f) => perCallMs(f.cpuSeconds.devServer, f.calls)),
    p50: med(runs, (f) => f.latencyMs.p50),
    p99: med(runs, (f) => f.latencyMs.p99),
    events: med(runs, (f) => f.eventsPerCall),
    providerRequests: med(runs, (f) => f.providerRequestsPerCall),
    serverRequests: med(runs, serverRequests),
    eager: med(runs, (f) => f.eagerlyStarted / f.calls),
    problems: runs
      .map((f) => `${f.calls - f.succeeded}/${f.timeouts.workflowTasks}/${f.timeouts.attempts}`)
      .join(' '),
  };
}

/** `27.8 (19.4–43.0)`: the median and the range of several runs; the median alone for one run. */
function fmtSpread(s: Spread, fmt: (n: number) => string = (n) => fmtNum(n)): string {
  if (s.n <= 1) return fmt(s.median);
  return `${fmt(s.median)} (${fmt(s.min)}–${fmt(s.max)})`;
}

/**
 * Ours over the floor (or one setting over another) round by round: the loads of one round ran in the same
 * minutes, so each round gives one ratio, and the cell is their median and range. Rounds where either side has
 * no figure are left out.
 */
export function pairedRatios(
  ours: readonly LoadFigures[],
  base: readonly LoadFigures[],
  pick: (f: LoadFigures) => number | undefined,
): Spread {
  const n = Math.min(ours.length, base.length);
  return spread(
    Array.from({ length: n }, (_, i) => {
      const a = pick(ours[i] as LoadFigures);
      const b = pick(base[i] as LoadFigures);
      return a === undefined || b === undefined ? Number.NaN : ratio(a, b);
    }),
  );
}

/** A ratio's median beside its goal, with the rounds' range: `1.04× ✓ (0.98–1.10×)`. */
function against(r: Spread, goal: number, atLeast = false): string {
  if (!Number.isFinite(r.median)) return 'n/a';
  const met = (atLeast ? r.median >= goal : r.median <= goal) ? '✓' : '✗';
  return r.n <= 1 ? `${fmtRatio(r.median)} ${met}` : `${fmtRatio(r.median)} ${met} (${rangeOf(r)})`;
}

function rangeOf(r: Spread): string {
  return `${fmtRatio(r.min).replace('×', '')}–${fmtRatio(r.max)}`;
}

function fmtRatioSpread(r: Spread): string {
  if (!Number.isFinite(r.median)) return 'n/a';
  return r.n <= 1 ? fmtRatio(r.median) : `${fmtRatio(r.median)} (${rangeOf(r)})`;
}

function pct(rate: number): string {
  return `${Math.round(rate * 100)} %`;
}

const PICK = {
  to90: (f: LoadFigures) => f.callsPerSecondTo90,
  toLast: (f: LoadFigures) => f.callsPerSecond,
  workerCpu: (f: LoadFigures) => perCallMs(f.cpuSeconds.worker, f.calls),
  serverCpu: (f: LoadFigures) => perCallMs(f.cpuSeconds.devServer, f.calls),
  p50: (f: LoadFigures) => f.latencyMs.p50,
  p99: (f: LoadFigures) => f.latencyMs.p99,
  serverRequests,
};

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

function ratioTable(runs: Runs, eager: string, rates: readonly number[]): Table {
  return {
    title:
      `Ours over the floor, eager ${eager === 'off' ? 'off' : `on (${eager})`}, against the goals ` +
      "(median of the rounds' ratios, their range in brackets)",
    columns: [
      'failing attempts',
      'mode',
      `throughput to 90 % of results (≥ ${GOALS.throughput}×)`,
      'throughput to the last result',
      `worker CPU per call (≤ ${GOALS.workerCpu}×)`,
      'dev server CPU per call',
      `p50 (≤ ${GOALS.p50}×)`,
      `p99 (≤ ${GOALS.p99}×)`,
      'server requests per call',
    ],
    rows: rates.flatMap((rate) => {
      const floor = runs.get(loadKey('floor', rate, eager)) ?? [];
      return MODES.filter((m) => m !== 'floor').map((mode) => {
        const ours = runs.get(loadKey(mode, rate, eager)) ?? [];
        const r = (pick: (f: LoadFigures) => number | undefined) => pairedRatios(ours, floor, pick);
        return [
          pct(rate),
          LABEL[mode],
          against(r(PICK.to90), GOALS.throughput, true),
          fmtRatioSpread(r(PICK.toLast)),
          against(r(PICK.workerCpu), GOALS.workerCpu),
          fmtRatioSpread(r(PICK.serverCpu)),
          against(r(PICK.p50), GOALS.p50),
          against(r(PICK.p99), GOALS.p99),
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
      "Throughput to 90 % of results is the goal's figure: calls started at once end with a tail of a few calls " +
        'whose workflow tasks waited longest to be picked up from the task queue, and that tail, not the code, moved ' +
        'the throughput to the last result by up to ±40 % from run to run at the same CPU per call. Ratios are taken ' +
        'round by round (ours and the floor ran in the same minutes); the cell is their median and range.',
      `Worker, dev server and bench process together kept ${fmtPct(busy)} of the machine's ${cpus().length} ` +
        'cores busy at the median load (other users had the rest).',
    ],
  };
}
