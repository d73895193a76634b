import type { Benchmark } from '../lib/benchmark.js';
import { startFloorWorker } from '../../test/harness/floor/worker.js';
import type { BenchResult } from '../lib/report.js';
import { fmtMs, fmtNum, fmtRatio, median, percentile, ratio } from '../lib/stats.js';
import { runTurnLoad } from './load.js';
import type { Side, TurnLoadFigures } from './load.js';

interface Plan {
  turns: number;
  modelCalls: number;
  maxRounds: number;
  /** Turns per side run first and not counted (workflow code loaded, connections warm). */
  warmup: number;
  /** Rounds are added while the benchmark has run less than this long. */
  budgetMs: number;
}

const FULL: Plan = { turns: 60, modelCalls: 4, maxRounds: 5, warmup: 10, budgetMs: 90_000 };
// Quick warms both sides up too: without it the side that runs first pays the workers' JIT warm-up, and its CPU
// ratio says nothing.
const QUICK: Plan = { turns: 4, modelCalls: 3, maxRounds: 1, warmup: 2, budgetMs: 0 };
const SIDES: readonly Side[] = ['model-retry', 'floor', 'contract-floor'];
const GOALS = { throughput: 0.95, cpu: 1.1, latency: 1.1 };

/**
 * Item 10: agent turns under load beside the platform's floor. Each round starts `turns` turns at once of
 * model-retry's `agentTurnWorkflow` (the calculator asked for `modelCalls - 1` times, then the answer) and,
 * interleaved (the order rotated each round), as many of the floor's `floorTurnWorkflow`: a plain workflow with
 * the same activities (tools described, one model request per step, one tool per call), the same requests to the
 * same loopback provider; and as many of the contract's floor (`contractFloorTurnWorkflow`: the floor plus the
 * contract's marker at the start and the stop's search attributes). The workers run in this process on
 * model-retry's worker settings.
 */
export const turn: Benchmark = {
  name: 'turn',
  title: '10. Agent turns beside the floor',
  async run(ctx) {
    const plan = ctx.size === 'quick' ? QUICK : FULL;
    const ours = await ctx.startWorker();
    const floor = await startFloorWorker(ctx);
    const runs: Record<Side, TurnLoadFigures[]> = { 'model-retry': [], floor: [], 'contract-floor': [] };
    const queueOf = (side: Side) => (side === 'model-retry' ? ours.taskQueue : floor.taskQueue);
    const started = Date.now();
    try {
      for (const side of plan.warmup > 0 ? SIDES : []) {
        const taskQueue = queueOf(side);
        await runTurnLoad(ctx, { ...plan, turns: plan.warmup, taskQueue, side, timeoutMs: 120_000 });
      }
      for (let round = 0; round < plan.maxRounds; round += 1) {
        if (round > 0 && Date.now() - started > plan.budgetMs) break;
        // Rotated each round: every side runs first, second and last in turn.
        const order = SIDES.map((_, i) => SIDES[(i + round) % SIDES.length] as Side);
        for (const side of order) {
          const taskQueue = queueOf(side);
          const timeoutMs = Math.max(60_000, plan.turns * plan.modelCalls * 500);
          const figures = await runTurnLoad(ctx, { ...plan, taskQueue, side, timeoutMs });
          runs[side].push(figures);
          ctx.log(`bench: turn ${side} round ${round + 1}: ${fmtMs(figures.completionMs)}`);
        }
        ctx.lp.reset();
      }
    } finally {
      await ours.stop();
      await floor.stop();
    }
    return turnResult(plan, runs);
  },
};

/** A side's medians over its rounds (latency percentiles over every turn of every round). */
function sideFigures(runs: readonly TurnLoadFigures[]) {
  const all = runs.flatMap((r) => r.latencyMs);
  const server = runs.flatMap((r) =>
    r.cpuPerTurnMs.devServer === undefined ? [] : [r.cpuPerTurnMs.devServer],
  );
  return {
    rounds: runs.length,
    turnsPerSecond: median(runs.map((r) => r.turnsPerSecond)),
    completionMs: median(runs.map((r) => r.completionMs)),
    p50: median(all),
    p99: percentile(all, 99),
    cpuProcessMs: median(runs.map((r) => r.cpuPerTurnMs.process)),
    cpuServerMs: median(server),
    activities: runs[0]?.activities ?? 0,
    events: runs[0]?.events ?? 0,
  };
}

function turnResult(plan: Plan, runs: Record<Side, TurnLoadFigures[]>): BenchResult {
  const ours = sideFigures(runs['model-retry']);
  const floor = sideFigures(runs.floor);
  const contract = sideFigures(runs['contract-floor']);
  const over = (a: ReturnType<typeof sideFigures>, b: ReturnType<typeof sideFigures>) => ({
    throughput: ratio(a.turnsPerSecond, b.turnsPerSecond),
    cpu: ratio(a.cpuProcessMs, b.cpuProcessMs),
    server: ratio(a.cpuServerMs, b.cpuServerMs),
    p50: ratio(a.p50, b.p50),
    p99: ratio(a.p99, b.p99),
    events: ratio(a.events, b.events),
  });
  const medians = over(ours, floor);
  const rc = over(ours, contract);
  const cf = over(contract, floor);
  // Round by round: each round's ratio is of two loads a few seconds apart, so a machine that slows down or speeds
  // up between rounds moves both; the verdict reads the median of these (the medians' ratio beside it).
  const paired = roundRatios(runs['model-retry'], runs.floor);
  const r = { ...medians, ...paired.median };
  const verdict = (met: boolean) => (met ? 'met' : 'not met');
  const goals = (x: typeof r) =>
    `throughput >= ${GOALS.throughput}x (${verdict(x.throughput >= GOALS.throughput)}), ` +
    `CPU per turn <= ${GOALS.cpu}x (${verdict(x.cpu <= GOALS.cpu)}), p50 and p99 <= ${GOALS.latency}x ` +
    `(${verdict(x.p50 <= GOALS.latency && x.p99 <= GOALS.latency)})`;
  const row = (label: string, f: ReturnType<typeof sideFigures>) => [
    label,
    String(f.rounds),
    `${f.activities} / ${f.events}`,
    fmtNum(f.turnsPerSecond, 2),
    fmtMs(f.completionMs),
    fmtMs(f.p50),
    fmtMs(f.p99),
    fmtMs(f.cpuProcessMs),
    fmtMs(f.cpuServerMs),
  ];
  const ratioRow = (label: string, x: typeof r) => [
    label,
    '',
    fmtRatio(x.events),
    fmtRatio(x.throughput),
    '',
    fmtRatio(x.p50),
    fmtRatio(x.p99),
    fmtRatio(x.cpu),
    fmtRatio(x.server),
  ];
  return {
    name: 'turn',
    title: '10. Agent turns beside the floor',
    params: { ...plan, goals: GOALS },
    figures: {
      'model-retry': ours,
      floor,
      'contract-floor': contract,
      oursOverFloor: r,
      oursOverFloorMedians: medians,
      oursOverFloorRounds: paired.rounds,
      oursOverContractFloor: rc,
      contractFloorOverFloor: cf,
      runs,
    },
    tables: [
      {
        title: `${plan.turns} agent turns at once, ${plan.modelCalls} model calls and ${plan.modelCalls - 1} tool calls each (medians over the rounds)`,
        columns: [
          'workflow',
          'rounds',
          'activities / events per turn',
          'turns/s',
          'completion',
          'start-to-result p50',
          'p99',
          'CPU per turn: client+worker+provider',
          'dev server',
        ],
        rows: [
          row('model-retry (agentTurnWorkflow)', ours),
          row('floor (plain workflow, same activities)', floor),
          row("the contract's floor: the floor + marker + search attributes", contract),
          ratioRow("ours / floor (the sides' medians)", medians),
          ratioRow('ours / floor, round by round (median of the rounds)', r),
          rangeRow('  the rounds, least and most', paired),
          ratioRow("ours / the contract's floor", rc),
          ratioRow("the contract's floor / floor", cf),
        ],
        notes: [
          `Goals against the floor (round by round): ${goals(r)}. Against the contract's floor: ${goals(rc)}.`,
          "Activities count the scheduled ones; local activities are markers, counted in the events: model-retry's " +
            "worker's settings (and its search-attributes check, only when no attempt has answered it), the contract's " +
            "floor's one. In the ratio rows the third column is the ratio of the events.",
        ],
      },
    ],
    notes: [
      `model-retry's turn: ${fmtRatio(r.throughput)} the floor's throughput, ${fmtRatio(r.cpu)} its CPU in the ` +
        `client and worker process, ${fmtRatio(r.server)} its dev-server CPU, for ${fmtRatio(r.events)} its events; ` +
        `${fmtRatio(rc.throughput)} the contract's floor's throughput and ${fmtRatio(rc.cpu)} its CPU, for ` +
        `${fmtRatio(rc.events)} its events (the contract's floor costs ${fmtRatio(cf.cpu)} the floor's CPU).`,
    ],
  };
}

type RoundRatio = { throughput: number; cpu: number; p50: number; p99: number };

/** Ours over the floor within each round (the same round's loads), and the median of each ratio over the rounds. */
function roundRatios(ours: readonly TurnLoadFigures[], floor: readonly TurnLoadFigures[]) {
  const rounds: RoundRatio[] = ours.slice(0, floor.length).map((o, i) => {
    const f = floor[i] as TurnLoadFigures;
    return {
      throughput: ratio(o.turnsPerSecond, f.turnsPerSecond),
      cpu: ratio(o.cpuPerTurnMs.process, f.cpuPerTurnMs.process),
      p50: ratio(median(o.latencyMs), median(f.latencyMs)),
      p99: ratio(percentile(o.latencyMs, 99), percentile(f.latencyMs, 99)),
    };
  });
  const of = (k: keyof RoundRatio) => rounds.map((x) => x[k]);
  const keys = ['throughput', 'cpu', 'p50', 'p99'] as const;
  const pick = (f: (xs: number[]) => number) =>
    Object.fromEntries(keys.map((k) => [k, f(of(k))])) as RoundRatio;
  return {
    rounds,
    median: pick(median),
    least: pick((xs) => Math.min(...xs)),
    most: pick((xs) => Math.max(...xs)),
  };
}

/** A row of the least and most of each round-by-round ratio. */
function rangeRow(label: string, p: ReturnType<typeof roundRatios>): string[] {
  const range = (k: keyof RoundRatio) => `${fmtRatio(p.least[k])}-${fmtRatio(p.most[k])}`;
  return [label, '', '', range('throughput'), '', range('p50'), range('p99'), range('cpu'), ''];
}
