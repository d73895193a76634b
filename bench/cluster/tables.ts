import type { Table } from '../lib/report.js';
import { fmtMs, fmtNum, fmtRatio, ratio } from '../lib/stats.js';
import type { ClusterPlan } from './plan.js';
import type { LoadFigures } from '../concurrency/load-run.js';
import type { ScaleFigures } from './scale-run.js';

/** One size of the concurrency load on both servers. */
export interface LoadPair {
  calls: number;
  dev: LoadFigures;
  cluster: LoadFigures;
}

/** The scale loads: `<server>-<workflow>`. */
export type ScaleRuns = Record<'dev-ours' | 'cluster-ours' | 'dev-floor' | 'cluster-floor', ScaleFigures>;

const perCall = (seconds: number | undefined, calls: number) =>
  seconds === undefined ? Number.NaN : (seconds * 1000) / calls;

/** Rows of figures per server and a row of ratios cluster ÷ dev under them, for each size. */
export function loadTable(plan: ClusterPlan, loads: LoadPair[]): Table {
  const picks: ((f: LoadFigures) => number)[] = [
    (f) => f.completionMs,
    (f) => f.attemptsPerSecond,
    (f) => f.workflowTaskScheduleToStartMs.p50,
    (f) => f.workflowTaskScheduleToStartMs.p99,
    (f) => f.activityScheduleToStartMs.p99,
    (f) => perCall(f.cpuSeconds.worker, f.calls),
    (f) => perCall(f.cpuSeconds.devServer, f.calls),
  ];
  const formats = [fmtMs, fmtNum, fmtMs, fmtMs, fmtMs, fmtMs, fmtMs];
  const row = (calls: number, server: string, f: LoadFigures) => [
    String(calls),
    server,
    ...picks.map((pick, i) => (formats[i] as (n: number) => string)(pick(f))),
    `${f.timeouts.workflowTasks} / ${f.timeouts.attempts}`,
    String(f.unfinished),
  ];
  return {
    title:
      `The concurrency load on both servers (provider latency ${fmtMs(plan.latencyMs)}, 20 % of attempts fail, ` +
      `waits ${fmtMs(plan.waitMs)}; one run each, the same scripts)`,
    columns: [
      'calls',
      'server',
      'completion',
      'attempts/s',
      'workflow task sched-to-start p50',
      'p99',
      'activity sched-to-start p99',
      'CPU per call: worker',
      'server',
      'timeouts: workflow task / attempt',
      'unfinished',
    ],
    rows: loads.flatMap((l) => [
      row(l.calls, 'dev server', l.dev),
      row(l.calls, 'cluster', l.cluster),
      [
        String(l.calls),
        'cluster ÷ dev',
        ...picks.map((pick) => fmtRatio(ratio(pick(l.cluster), pick(l.dev)))),
        '',
        '',
      ],
    ]),
    notes: [
      'Server CPU: the dev server process; for the cluster, its four service processes and PostgreSQL.',
    ],
  };
}

/** The scale loads: figures per server and workflow, then the ratios ours ÷ floor and cluster ÷ dev. */
export function scaleTables(plan: ClusterPlan, runs: ScaleRuns): Table[] {
  const picks: [string, (f: ScaleFigures) => number, (n: number) => string][] = [
    ['completion', (f) => f.completionMs, fmtMs],
    ['calls/s', (f) => f.callsPerSecond, fmtNum],
    ['latency p50', (f) => f.latencyMs.p50, fmtMs],
    ['latency p99', (f) => f.latencyMs.p99, fmtMs],
    ['CPU per call: worker', (f) => perCall(f.cpuSeconds.worker, f.calls), fmtMs],
    ['server', (f) => perCall(f.cpuSeconds.server, f.calls), fmtMs],
  ];
  const label = {
    'dev-ours': 'dev server',
    'cluster-ours': 'cluster',
    'dev-floor': 'dev server',
    'cluster-floor': 'cluster',
  };
  const figures: Table = {
    title: `${plan.scaleCalls} calls queued at once, answered at once (limit ${fmtMs(plan.scaleTimeoutMs)} each)`,
    columns: [
      'server',
      'workflow',
      'start phase',
      ...picks.map(([name]) => name),
      'succeeded',
      'failed',
      'unfinished',
    ],
    rows: (Object.keys(label) as (keyof ScaleRuns)[]).map((key) => {
      const f = runs[key];
      return [
        label[key],
        key.endsWith('ours') ? 'modelCallWorkflow' : 'floor',
        fmtMs(f.startPhaseMs),
        ...picks.map(([, pick, fmt]) => fmt(pick(f))),
        String(f.succeeded),
        String(f.failed),
        String(f.unfinished),
      ];
    }),
    notes: [
      'Latency: each call from its start request to its result, as the host sees it (finished calls only). ' +
        'The floor: floorCallWorkflow, a plain workflow calling one plain activity (the same request, no heartbeat), on a floor worker with the same slots.',
    ],
  };
  const ratioRow = (name: string, a: ScaleFigures, b: ScaleFigures) => [
    name,
    ...picks.map(([, pick]) => fmtRatio(ratio(pick(a), pick(b)))),
  ];
  const ratios: Table = {
    title: `${plan.scaleCalls} calls: ratios`,
    columns: ['ratio', ...picks.map(([name]) => name)],
    rows: [
      ratioRow('ours ÷ floor, dev server', runs['dev-ours'], runs['dev-floor']),
      ratioRow('ours ÷ floor, cluster', runs['cluster-ours'], runs['cluster-floor']),
      ratioRow('cluster ÷ dev, ours', runs['cluster-ours'], runs['dev-ours']),
      ratioRow('cluster ÷ dev, floor', runs['cluster-floor'], runs['dev-floor']),
    ],
  };
  return [figures, ratios];
}
