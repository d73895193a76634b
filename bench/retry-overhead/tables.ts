import type { BenchResult } from '../lib/report.js';
import { fmtMs, fmtRatio, median, percentile, ratio, summarize } from '../lib/stats.js';
import type { Summary } from '../lib/stats.js';

/** The approaches, in the order they run in each repetition (interleaved) and appear in the tables. */
export const APPROACHES = ['model-retry', 'floor', 'server-side retry', 'in-process loop'] as const;
export type Approach = (typeof APPROACHES)[number];

const LABELS: Record<Approach, string> = {
  'model-retry': 'model-retry',
  floor: 'floor (plain workflow: activity, timer, activity)',
  'server-side retry': 'server-side retry',
  'in-process loop': 'in-process loop (p-retry)',
};

/** An empty sample list per approach. */
export function byApproach(): Record<Approach, number[]> {
  return { 'model-retry': [], floor: [], 'server-side retry': [], 'in-process loop': [] };
}

/** A workflow's retry parts from its histories: failure -> timer started, timer fired -> next attempt started. */
export interface Parts {
  before: number[];
  after: number[];
}

/** What the retry-overhead benchmark collected. */
export interface Collected {
  retries: number;
  waitMs: number;
  reps: number;
  overhead: Record<Approach, number[]>;
  callMs: Record<Approach, number[]>;
  /** model-retry's timers' lateness, and each gap less its own timer's lateness. */
  lateness: number[];
  lessLate: number[];
  floorLessLate: number[];
  ours: Parts;
  floorParts: Parts & { late: number[] };
  timers: { plannedMs: number; lateMs: number[] }[];
}

function withoutFloor<T>(byApproach: Record<Approach, T>): Omit<Record<Approach, T>, 'floor'> {
  const { floor: _floor, ...rest } = byApproach;
  return rest;
}

const p50p99 = (xs: number[]) => [fmtMs(median(xs)), fmtMs(percentile(xs, 99))];

/** The benchmark's result: tables with the floor beside model-retry, and ratios ours / floor. */
export function retryOverheadResult(c: Collected): BenchResult {
  const s = Object.fromEntries(APPROACHES.map((a) => [a, summarize(c.overhead[a])])) as Record<
    Approach,
    Summary
  >;
  const call = Object.fromEntries(APPROACHES.map((a) => [a, summarize(c.callMs[a])])) as Record<
    Approach,
    Summary
  >;
  const inproc = s['in-process loop'];
  const floor = s.floor;
  const late = summarize(c.lateness);
  // Server-side retries wait on the same timer queue; their own lateness is not in any history, so the
  // median lateness of model-retry's timers stands in for it.
  const serverLessLate = c.overhead['server-side retry'].map((g) => g - late.p50);
  const callRatio = {
    p50: ratio(call['model-retry'].p50, call.floor.p50),
    p99: ratio(call['model-retry'].p99, call.floor.p99),
  };
  return {
    name: 'retry-overhead',
    title: '2. Overhead per retry beyond the planned wait',
    params: {
      retriesPerCall: c.retries,
      waitMs: c.waitMs,
      repetitions: c.reps,
      samplesPerApproach: c.retries * c.reps,
    },
    figures: {
      // The three approaches the figures always had; the floor's own figures are under `floor`.
      overheadMs: withoutFloor(s),
      callMs: withoutFloor(call),
      floor: { overheadMs: s.floor, callMs: call.floor },
      modelRetryParts: {
        timerLatenessMs: late,
        failureToTimerStartedMs: summarize(c.ours.before),
        timerFiredToAttemptStartedMs: summarize(c.ours.after),
      },
      floorParts: {
        timerLatenessMs: summarize(c.floorParts.late),
        failureToTimerStartedMs: summarize(c.floorParts.before),
        timerFiredToAttemptStartedMs: summarize(c.floorParts.after),
      },
      timerLatenessByDuration: c.timers.map((t) => ({ plannedMs: t.plannedMs, lateMs: summarize(t.lateMs) })),
      lessTimerLatenessMs: {
        'model-retry': summarize(c.lessLate),
        floor: summarize(c.floorLessLate),
        'server-side retry': summarize(serverLessLate),
      },
      oursOverFloor: {
        overheadP50: ratio(s['model-retry'].p50, floor.p50),
        overheadP99: ratio(s['model-retry'].p99, floor.p99),
        callP50: callRatio.p50,
        callP99: callRatio.p99,
      },
    },
    tables: [
      {
        title: `Overhead per retry beyond a planned wait of ${fmtMs(c.waitMs)} (${c.retries * c.reps} retries per approach)`,
        columns: [
          'approach',
          'p50',
          'p99',
          'p50 vs floor',
          'p99 vs floor',
          'p50 vs in-process',
          'p99 vs in-process',
        ],
        rows: APPROACHES.map((a) => [
          LABELS[a],
          fmtMs(s[a].p50),
          fmtMs(s[a].p99),
          fmtRatio(ratio(s[a].p50, floor.p50)),
          fmtRatio(ratio(s[a].p99, floor.p99)),
          fmtRatio(ratio(s[a].p50, inproc.p50)),
          fmtRatio(ratio(s[a].p99, inproc.p99)),
        ]),
        notes: [
          `model-retry vs server-side retry: p50 ${fmtRatio(ratio(s['model-retry'].p50, s['server-side retry'].p50))}, ` +
            `p99 ${fmtRatio(ratio(s['model-retry'].p99, s['server-side retry'].p99))}.`,
        ],
      },
      {
        title: 'Where the overhead goes (from the histories): model-retry beside the floor',
        columns: ['part', 'model-retry p50', 'model-retry p99', 'floor p50', 'floor p99', 'p50 ours / floor'],
        rows: [
          ['failure recorded -> timer started (a workflow task)', c.ours.before, c.floorParts.before],
          ['timer fired late by (the dev server)', c.lateness, c.floorParts.late],
          [
            'timer fired -> next attempt started (a workflow task, dispatch)',
            c.ours.after,
            c.floorParts.after,
          ],
        ].map(([label, ours, fl]) => [
          label as string,
          ...p50p99(ours as number[]),
          ...p50p99(fl as number[]),
          fmtRatio(ratio(median(ours as number[]), median(fl as number[]))),
        ]),
      },
      {
        title: "Overhead per retry less the dev server's timer lateness",
        columns: ['approach', 'p50', 'p99', 'p50 vs floor', 'p50 vs in-process'],
        rows: [
          ["model-retry (each timer's own lateness)", c.lessLate],
          ["floor (each timer's own lateness)", c.floorLessLate],
          ['server-side retry (less the median lateness)', serverLessLate],
        ].map(([label, xs]) => [
          label as string,
          ...p50p99(xs as number[]),
          fmtRatio(ratio(median(xs as number[]), median(c.floorLessLate))),
          fmtRatio(ratio(median(xs as number[]), inproc.p50)),
        ]),
      },
      {
        title: 'Dev-server timer lateness by planned duration (a durable timer alone, `timerWorkflow`)',
        columns: ['planned', 'fired after (p50)', 'late by p50', 'late by max'],
        rows: c.timers.map((t) => [
          fmtMs(t.plannedMs),
          fmtMs(t.plannedMs + median(t.lateMs)),
          fmtMs(median(t.lateMs)),
          fmtMs(Math.max(...t.lateMs)),
        ]),
      },
      {
        title: `A whole call, start to result (${c.retries} failures, then the answer; planned waits ${fmtMs(c.retries * c.waitMs)})`,
        columns: ['approach', 'p50', 'p99', 'p50 vs floor', 'p99 vs floor', 'p50 vs in-process'],
        rows: APPROACHES.map((a) => [
          LABELS[a],
          fmtMs(call[a].p50),
          fmtMs(call[a].p99),
          fmtRatio(ratio(call[a].p50, call.floor.p50)),
          fmtRatio(ratio(call[a].p99, call.floor.p99)),
          fmtRatio(ratio(call[a].p50, call['in-process loop'].p50)),
        ]),
        notes: [
          `Goal: start-to-result p50 and p99 <= 1.1x the floor's. Measured: p50 ${fmtRatio(callRatio.p50)}, p99 ` +
            `${fmtRatio(callRatio.p99)} (${callRatio.p50 <= 1.1 && callRatio.p99 <= 1.1 ? 'met' : 'not met'}).`,
        ],
      },
    ],
    notes: [
      `With waits of ${fmtMs(c.waitMs)} the dev server fired model-retry's timers ${fmtMs(late.p50)} late (median; ` +
        `p99 ${fmtMs(late.p99)}), the floor's ${fmtMs(median(c.floorParts.late))}. A shorter timer fires late: see ` +
        "the lateness by duration; the dev server's timer queue looks ahead by `history.timerProcessorMaxTimeShift` " +
        '(10 ms on the dev server, 1 s on a cluster by default), and server-side activity retries wait on the same queue.',
    ],
  };
}
