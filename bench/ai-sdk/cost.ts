import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type { WorkerPlugin } from '@temporalio/worker';
import { always, ok } from '../../loopback/index.js';
import { ModelRetryPlugin } from '../../plugin/index.js';
import { createFloorActivities } from '../../test/harness/floor/activities.js';
import { finish } from '../lib/calls.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { runWorker } from '../../test/harness/run-worker.js';
import type { BenchWorker } from '../../test/harness/run-worker.js';
import type { History } from '../lib/history.js';
import { measureModuleCost } from './module-cost.js';
import type { ModuleCost } from './module-cost.js';
import type { Table } from '../lib/report.js';
import { fmtBytes, fmtMs, fmtRatio, median, ratio } from '../lib/stats.js';
import { replayEach } from '../replay/bundles.js';

const noop = () => undefined;
const quiet = { trace: noop, debug: noop, info: noop, log: noop, warn: console.warn, error: console.error };
const workflowFile = (name: string) => fileURLToPath(new URL(`../../test/harness/${name}`, import.meta.url));

/** One side of the comparison: a workflows file bundled on its own, and how a run of it is started. */
interface CostSide {
  label: string;
  key: 'aiSdk' | 'callModel' | 'floor';
  workflowsPath: string;
  /** Bundled and served with `ModelRetryPlugin` (as model-retry's users do), else with Temporal's defaults. */
  plugin: boolean;
  workflow: string;
  args(model: string): unknown;
}

const PROMPT = 'Say ok.';
const SIDES: readonly CostSide[] = [
  {
    label: 'generateText on durableModel',
    key: 'aiSdk',
    workflowsPath: workflowFile('bundle/ai-sdk-text.ts'),
    plugin: true,
    workflow: 'durableTextWorkflow',
    args: (model) => ({ model, prompt: PROMPT }),
  },
  {
    label: 'callModel in a user workflow',
    key: 'callModel',
    workflowsPath: workflowFile('bundle/user-call.ts'),
    plugin: true,
    workflow: 'userCallWorkflow',
    args: (model) => ({ model, messages: [{ role: 'user', content: PROMPT }] }),
  },
  {
    label: 'floor (plain workflow + activity)',
    key: 'floor',
    workflowsPath: workflowFile('floor/workflows.ts'),
    plugin: false,
    workflow: 'floorPromptWorkflow',
    args: (model) => ({ model, prompt: PROMPT, attempts: 1, waitMs: 0 }),
  },
];

/** What one side measured. */
interface SideCost {
  bundleBytes: number;
  /** The bundle without its inline source map (what V8 parses). */
  codeBytes: number;
  buildMs: number;
  modules: ModuleCost;
  /** Process CPU per run (worker, client and loopback provider share this process), ms. */
  cpuPerRunMs: number;
  events: number;
  replayCpuPerEventMs: number;
  replayMsPerEvent: number;
}

/**
 * What the AI SDK surface costs a run: the same single model request written as `generateText` on a
 * `durableModel`, as `callModel` in a user's workflow and as the floor, each workflows file bundled on its own as
 * its user builds it. Per side: the bundle's size and build time, what instantiating its modules costs every run
 * (CPU, and heap an open run keeps: `measureModuleCost`), process CPU per run on a worker of its own (interleaved
 * rounds after a warm-up), and replay CPU and wall time per event of those runs' histories on the same bundle.
 */
export async function aiSdkCost(ctx: BenchContext): Promise<{
  tables: Table[];
  figures: Record<string, unknown>;
  notes: string[];
}> {
  const quick = ctx.size === 'quick';
  const plan = quick
    ? { warmup: 3, rounds: 2, perRound: 4, concurrency: 2, replays: 3, replayRounds: 3, moduleRuns: 20 }
    : { warmup: 10, rounds: 4, perRound: 25, concurrency: 5, replays: 6, replayRounds: 6, moduleRuns: 100 };
  const built = new Map<CostSide['key'], { code: string; ms: number }>();
  // One at a time, so that each build time is its own.
  for (const side of SIDES) {
    const t0 = performance.now();
    const bundle = await bundleWorkflowCode({
      workflowsPath: side.workflowsPath,
      ...(side.plugin ? { plugins: [new ModelRetryPlugin()] } : {}),
      logger: quiet,
    });
    built.set(side.key, { code: bundle.code, ms: performance.now() - t0 });
    ctx.log(`ai-sdk cost: ${side.label} bundled in ${fmtMs(performance.now() - t0)}`);
  }
  const codeOf = (side: CostSide) => built.get(side.key)?.code ?? '';
  const modules = new Map<CostSide['key'], ModuleCost>();
  for (const side of SIDES) modules.set(side.key, await measureModuleCost(codeOf(side), plan.moduleRuns));

  const workers = await Promise.all(SIDES.map((side) => startCostWorker(ctx, side, codeOf(side))));
  const cpu = new Map<CostSide['key'], number[]>(SIDES.map((s) => [s.key, []]));
  const histories = new Map<CostSide['key'], History[]>(SIDES.map((s) => [s.key, []]));
  try {
    for (const [i, side] of SIDES.entries())
      await runBatch(ctx, side, workers[i]!, plan.warmup, plan.concurrency);
    for (let round = 0; round < plan.rounds; round++) {
      for (const [i, side] of SIDES.entries()) {
        const c0 = process.cpuUsage();
        const runs = await runBatch(ctx, side, workers[i]!, plan.perRound, plan.concurrency);
        const c = process.cpuUsage(c0);
        cpu.get(side.key)?.push((c.user + c.system) / 1000 / plan.perRound);
        histories.get(side.key)?.push(...runs);
      }
    }
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }

  const replays = await replayEach(
    SIDES.map((side) => ({
      key: side.key,
      code: codeOf(side),
      histories: (histories.get(side.key) ?? []).slice(0, plan.replays),
    })),
    plan.replayRounds,
  );
  const by = {} as Record<CostSide['key'], SideCost>;
  for (const side of SIDES) {
    const code = codeOf(side);
    const map = code.lastIndexOf('\n//# sourceMappingURL=data:');
    const replay = replays.get(side.key) ?? { events: Number.NaN, cpuPerEvent: [], msPerEvent: [] };
    by[side.key] = {
      bundleBytes: Buffer.byteLength(code),
      codeBytes: Buffer.byteLength(map > 0 ? code.slice(0, map) : code),
      buildMs: built.get(side.key)?.ms ?? Number.NaN,
      modules: modules.get(side.key) as ModuleCost,
      cpuPerRunMs: median(cpu.get(side.key) ?? []),
      events: replay.events,
      replayCpuPerEventMs: median(replay.cpuPerEvent),
      replayMsPerEvent: median(replay.msPerEvent),
    };
  }
  const { aiSdk, callModel, floor } = by;
  const vs = (f: (s: SideCost) => number, s: SideCost) =>
    s === floor ? '' : ` (${fmtRatio(ratio(f(s), f(floor)))})`;
  const table: Table = {
    title:
      'What the AI SDK surface costs a run: one model request as generateText on durableModel, as callModel ' +
      'and as the floor, each in a bundle of its own (ratios to the floor in brackets)',
    columns: [
      'workflow',
      'bundle (code / with source map)',
      'build',
      'modules per run',
      'module CPU per run',
      'module heap per open run',
      'process CPU per run',
      'events',
      'replay CPU per event',
      'replay wall per event',
    ],
    rows: SIDES.map((side) => {
      const s = by[side.key];
      return [
        side.label,
        `${fmtBytes(s.codeBytes)} / ${fmtBytes(s.bundleBytes)}`,
        fmtMs(s.buildMs),
        `${s.modules.perRunModules} (+${s.modules.sharedModules} shared)`,
        `${fmtMs(s.modules.cpuMs)}${vs((x) => x.modules.cpuMs, s)}`,
        `${fmtBytes(s.modules.heapBytes)}${vs((x) => x.modules.heapBytes, s)}`,
        `${fmtMs(s.cpuPerRunMs)}${vs((x) => x.cpuPerRunMs, s)}`,
        String(s.events),
        `${fmtMs(s.replayCpuPerEventMs)}${vs((x) => x.replayCpuPerEventMs, s)}`,
        `${fmtMs(s.replayMsPerEvent)}${vs((x) => x.replayMsPerEvent, s)}`,
      ];
    }),
    notes: [
      `${plan.rounds} interleaved rounds of ${plan.perRound} runs per side (${plan.concurrency} at a time) after ` +
        `${plan.warmup} warm-up runs; each side's worker in this process with the client and the loopback provider, ` +
        `so process CPU per run includes theirs. Replay: ${plan.replays} histories per side, ` +
        `${plan.replayRounds - 1} rounds after a warm-up round, interleaved side by side. Module figures: ` +
        `the bundle's per-run module instantiation (what a worker does at each run's and each replay's start), ` +
        `${plan.moduleRuns} times in a child process (bench/ai-sdk/module-cost.ts).`,
      `generateText on durableModel against callModel: module CPU per run ` +
        `${fmtRatio(ratio(aiSdk.modules.cpuMs, callModel.modules.cpuMs))}, module heap ` +
        `${fmtRatio(ratio(aiSdk.modules.heapBytes, callModel.modules.heapBytes))}, process CPU per run ` +
        `${fmtRatio(ratio(aiSdk.cpuPerRunMs, callModel.cpuPerRunMs))}, replay CPU per event ` +
        `${fmtRatio(ratio(aiSdk.replayCpuPerEventMs, callModel.replayCpuPerEventMs))}, bundle ` +
        `${fmtRatio(ratio(aiSdk.codeBytes, callModel.codeBytes))}, build ` +
        `${fmtRatio(ratio(aiSdk.buildMs, callModel.buildMs))}.`,
    ],
  };
  return {
    tables: [table],
    figures: { cost: { params: plan, ...by, ratios: costRatios(by) } },
    notes: [
      `A run of generateText on durableModel instantiates ${aiSdk.modules.perRunModules} modules ` +
        `(the AI SDK, zod, ours) in ${fmtMs(aiSdk.modules.cpuMs)} of CPU and keeps ` +
        `${fmtBytes(aiSdk.modules.heapBytes)} of them while it is open; callModel's ` +
        `${callModel.modules.perRunModules} take ${fmtMs(callModel.modules.cpuMs)} and ` +
        `${fmtBytes(callModel.modules.heapBytes)}.`,
    ],
  };
}

function costRatios(by: Record<CostSide['key'], SideCost>): Record<string, number> {
  const { aiSdk, callModel, floor } = by;
  const pick = (f: (s: SideCost) => number) => ({
    aiSdkVsFloor: ratio(f(aiSdk), f(floor)),
    aiSdkVsCallModel: ratio(f(aiSdk), f(callModel)),
    callModelVsFloor: ratio(f(callModel), f(floor)),
  });
  const out: Record<string, number> = {};
  const measures: Record<string, (s: SideCost) => number> = {
    moduleCpu: (s) => s.modules.cpuMs,
    moduleHeap: (s) => s.modules.heapBytes,
    cpuPerRun: (s) => s.cpuPerRunMs,
    replayCpuPerEvent: (s) => s.replayCpuPerEventMs,
    codeBytes: (s) => s.codeBytes,
    buildMs: (s) => s.buildMs,
  };
  for (const [name, f] of Object.entries(measures)) {
    for (const [k, v] of Object.entries(pick(f))) out[`${name}.${k}`] = v;
  }
  return out;
}

async function startCostWorker(ctx: BenchContext, side: CostSide, code: string): Promise<BenchWorker> {
  const taskQueue = `bench-ai-sdk-cost-${side.key}-${randomUUID()}`;
  const plugins: WorkerPlugin[] = side.plugin
    ? [new ModelRetryPlugin({ activities: { providers: ctx.providers }, checkSearchAttributes: false })]
    : [];
  const worker = await Worker.create({
    connection: ctx.native,
    namespace: ctx.namespace,
    taskQueue,
    workflowBundle: { code },
    ...(side.plugin ? { plugins } : { activities: createFloorActivities(() => ctx.providers) }),
    shutdownGraceTime: '1 second',
  });
  return runWorker(worker, taskQueue);
}

/** `count` runs of `side`, `concurrency` at a time, each answered at once; their histories. */
async function runBatch(
  ctx: BenchContext,
  side: CostSide,
  worker: BenchWorker,
  count: number,
  concurrency: number,
): Promise<History[]> {
  const out: History[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next += 1;
      const model = ctx.model(`ai-sdk-cost-${side.key}`);
      ctx.lp.script(model.id, [always(ok('ok'))]);
      const handle = await ctx.client.workflow.start(side.workflow, {
        taskQueue: worker.taskQueue,
        workflowId: `bench-ai-sdk-cost-${randomUUID()}`,
        args: [side.args(model.name)],
      });
      const run = await finish(handle);
      if (!run.ok) throw new Error(`ai-sdk cost: ${side.label} failed (${run.workflowId})`);
      out.push(run.history);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return out;
}
