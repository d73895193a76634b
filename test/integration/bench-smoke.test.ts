import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestBenchContext } from '../harness/bench.js';
import type { BenchContext } from '../harness/lab.js';
import type { ResultFile } from '../../bench/lib/report.js';
import { runBenchmark } from '../../bench/lib/runner.js';
import { BENCHMARKS } from '../../bench/registry.js';

/**
 * A smoke run of the benchmark code: every benchmark at `--quick` size on the suite's dev server, checked for
 * the shape of what it writes. No figure is compared with a time (speed belongs to `npm run bench`).
 */
describe('every benchmark at --quick size', () => {
  const out = mkdtempSync(join(tmpdir(), 'model-retry-bench-smoke-'));
  let ctx: BenchContext;

  beforeAll(async () => {
    ctx = await openTestBenchContext();
  });

  afterAll(async () => {
    await ctx?.close();
    rmSync(out, { recursive: true, force: true });
  });

  const read = (name: string): ResultFile =>
    JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8')) as ResultFile;

  // `cluster` brings up a cluster of the cluster tier: test/cluster/bench-cluster.test.ts runs it there.
  it.each(BENCHMARKS.filter((b) => b.name !== 'cluster').map((b) => [b.name, b] as const))(
    '%s writes its result as JSON and Markdown, with full tables',
    async (name, benchmark) => {
      const file = await runBenchmark(benchmark, ctx, { out });
      ctx.lp.reset();
      const json = read(name);
      expect(json).toEqual(JSON.parse(JSON.stringify(file)));
      expect(json.result.name).toBe(name);
      expect(json.meta.size).toBe('quick');
      expect(json.meta.machine.cpus).toBeGreaterThan(0);
      expect(json.meta.machine.node).toBe(process.version);
      expect(json.result.tables.length).toBeGreaterThan(0);
      for (const table of json.result.tables) {
        expect(table.rows.length, table.title).toBeGreaterThan(0);
        for (const row of table.rows) expect(row, table.title).toHaveLength(table.columns.length);
      }
      const markdown = readFileSync(join(out, `${name}.md`), 'utf8');
      expect(markdown).toContain(`## ${benchmark.title}`);
      expect(markdown).toContain(`| ${json.result.tables[0]?.columns[0]} |`);
    },
    // Generous: each load of the concurrency benchmark starts a worker process, slow on a loaded machine.
    600_000,
  );

  it("actions counts every call's billable actions from the server, ours and the floor's, by type", () => {
    type Counted = { total: number; byType: Record<string, number> };
    const { figures } = read('actions').result as unknown as {
      figures: {
        rows: { name: string; ours: Counted; floor: Counted }[];
        cadences: { heartbeatMs: number; total: number; byType: Record<string, number> }[];
      };
    };
    expect(figures.rows.map((r) => r.name)).toContain('answered at once');
    for (const { name, ours, floor } of figures.rows) {
      // Each side started its workflow and scheduled at least its one activity.
      for (const side of [ours, floor]) {
        expect(side.byType.start, name).toBe(1);
        expect(side.byType.activity, name).toBeGreaterThanOrEqual(1);
        expect(side.total, name).toBe(Object.values(side.byType).reduce((a, b) => a + b, 0));
      }
      // The floor has no heartbeats, markers or search attributes; ours has at least the floor's activities.
      expect(ours.byType.activity, name).toBe(floor.byType.activity);
      expect(ours.total, name).toBeGreaterThan(floor.total);
    }
    // A streamed answer's batches are signals; the subscriber's polls are updates.
    const streamed = figures.rows.filter((r) => r.name.startsWith('streamed'));
    expect(streamed.map((r) => (r.ours.byType.signal ?? 0) > 0)).toEqual([true, true]);
    expect(streamed.map((r) => (r.ours.byType.update ?? 0) > 0)).toEqual([false, true]);
    // The quick answer outlasts a beat of the short cadence only: it heartbeats there, never at the default.
    const [short, byDefault] = figures.cadences;
    expect(short?.byType.heartbeat).toBeGreaterThan(0);
    expect(byDefault?.heartbeatMs).toBe(5000);
    expect(byDefault?.byType.heartbeat ?? 0).toBe(0);
  });

  it('actions counts an agent turn with a tool, and the signals and memo upserts of fleet health, beside the floor', () => {
    type Counted = { total: number; byType: Record<string, number> };
    const { figures } = read('actions').result as unknown as {
      figures: { rows: { name: string; ours: Counted; floor: Counted }[] };
    };
    const row = (name: string) => figures.rows.find((r) => r.name.startsWith(name));
    // The tools described, two model requests, one tool: on both sides.
    const turn = row('agent turn, one tool call');
    expect(turn?.floor.byType.activity).toBe(4);
    expect(turn?.ours.byType.activity).toBe(4);
    // Fleet health: the worker's batch of outcomes (a signal-with-start) and the health workflow's memo upsert.
    for (const name of ['fleet health on', 'limits and fleet health on']) {
      expect(row(name)?.ours.byType['signal-with-start'], name).toBeGreaterThan(0);
      expect(row(name)?.ours.byType.memo, name).toBeGreaterThan(0);
    }
    // A limit alone moves the attempt to another queue: no signal, no memo.
    const limited = row('limits on');
    expect(limited?.ours.byType['signal-with-start'] ?? 0).toBe(0);
    expect(limited?.ours.byType.memo ?? 0).toBe(0);
  });

  it('history-events counts every attempt of the calls it ran', () => {
    const { figures } = read('history-events').result as unknown as {
      figures: { perAttempt: Record<string, number>; totals: Record<string, number> };
    };
    for (const n of Object.values(figures.perAttempt)) expect(Number.isInteger(n) && n > 0).toBe(true);
    const { mixed, succeedsAtOnce, plainActivityCall } = figures.totals;
    expect(mixed).toBeGreaterThan(succeedsAtOnce as number);
    expect(succeedsAtOnce).toBeGreaterThanOrEqual(plainActivityCall as number);
  });

  it('retry-overhead has a sample for every retry of every approach', () => {
    const { figures, params } = read('retry-overhead').result;
    const overhead = figures.overheadMs as Record<string, { n: number }>;
    expect(Object.keys(overhead)).toEqual(['model-retry', 'server-side retry', 'in-process loop']);
    for (const s of Object.values(overhead)) expect(s.n).toBe(params.samplesPerApproach);
  });

  it('retry-overhead runs the floor, a plain workflow with a timer between activities, beside the others', () => {
    const { figures, params } = read('retry-overhead').result as unknown as {
      figures: {
        floor: { overheadMs: { n: number } };
        floorParts: Record<string, { n: number }>;
        oursOverFloor: Record<string, number>;
      };
      params: { samplesPerApproach: number; retriesPerCall: number; repetitions: number };
    };
    expect(figures.floor.overheadMs.n).toBe(params.samplesPerApproach);
    // The floor's timers are read from its own histories: one per retry.
    expect(figures.floorParts.timerLatenessMs?.n).toBe(params.retriesPerCall * params.repetitions);
    for (const r of Object.values(figures.oursOverFloor)) expect(r).toBeGreaterThan(0);
  });

  it('concurrency reads every call of each load from its history', () => {
    const { figures } = read('concurrency').result as unknown as {
      figures: { runs: Record<string, { calls: number; attempts: number; succeeded: number }[]> };
    };
    const runs = Object.values(figures.runs).flat();
    expect(runs.length).toBeGreaterThan(0);
    for (const run of runs) expect(run.attempts).toBeGreaterThanOrEqual(run.succeeded);
  });

  it("concurrency counts each load's requests: to the provider, and the server's by operation", () => {
    const { figures } = read('concurrency').result as unknown as {
      figures: {
        runs: Record<
          string,
          {
            mode: string;
            attempts: number;
            calls: number;
            providerRequestsPerCall: number;
            callsPerSecondTo90: number;
            serverRequestsPerCall?: Record<string, number>;
          }[]
        >;
      };
    };
    for (const run of Object.values(figures.runs).flat()) {
      expect(run.providerRequestsPerCall, run.mode).toBeCloseTo(run.attempts / run.calls);
      expect(run.callsPerSecondTo90, run.mode).toBeGreaterThan(0);
      // Every call was started once and asked for its result; the bench's own history reads are left out.
      expect(run.serverRequestsPerCall?.StartWorkflowExecution, run.mode).toBeGreaterThanOrEqual(1);
      expect(run.serverRequestsPerCall?.RespondWorkflowTaskCompleted, run.mode).toBeGreaterThanOrEqual(1);
      expect(run.serverRequestsPerCall?.GetWorkflowExecutionHistory, run.mode).toBeUndefined();
    }
  });

  it('concurrency runs every mode beside the floor, with the eager requests taken', () => {
    const { figures } = read('concurrency').result as unknown as {
      figures: {
        runs: Record<string, { mode: string; eagerStart: boolean; calls: number; eagerlyStarted: number }[]>;
      };
    };
    const runs = Object.values(figures.runs).flat();
    expect(new Set(runs.map((r) => r.mode))).toEqual(
      new Set(['modelCallWorkflow', 'callModel', 'contractFloor', 'floor']),
    );
    for (const run of runs.filter((r) => r.eagerStart))
      expect(run.eagerlyStarted, run.mode).toBeGreaterThan(0);
  });

  it('replay replays the calls and the turn it ran', () => {
    const { figures } = read('replay').result as unknown as {
      figures: { longestTurn: { steps: number; events: number; replayMs: { n: number } } };
    };
    expect(figures.longestTurn.steps).toBeGreaterThan(0);
    expect(figures.longestTurn.events).toBeGreaterThan(figures.longestTurn.steps);
    expect(figures.longestTurn.replayMs.n).toBeGreaterThan(0);
  });

  it("replay replays the floor's histories beside model-retry's, per event", () => {
    const { figures } = read('replay').result as unknown as {
      figures: {
        vsFloor: Record<string, { events: { ours: number; floor: number }; floor: { perEvent: number } }>;
      };
    };
    const rows = Object.values(figures.vsFloor);
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      expect(r.events.floor).toBeGreaterThan(0);
      expect(r.floor.perEvent).toBeGreaterThan(0);
    }
  });

  it("turn runs model-retry, the floor and the contract's floor with the same activities, and reads their ratios", () => {
    const { figures } = read('turn').result as unknown as {
      figures: Record<
        'model-retry' | 'floor' | 'contract-floor',
        { rounds: number; activities: number; events: number; turnsPerSecond: number }
      > &
        Record<'oursOverFloor' | 'oursOverContractFloor' | 'contractFloorOverFloor', Record<string, number>>;
    };
    expect(figures['model-retry'].rounds).toBeGreaterThan(0);
    expect(figures.floor.rounds).toBe(figures['model-retry'].rounds);
    expect(figures['contract-floor'].rounds).toBe(figures['model-retry'].rounds);
    expect(figures.floor.activities).toBeGreaterThan(0);
    expect(figures['model-retry'].activities).toBe(figures.floor.activities);
    expect(figures['contract-floor'].activities).toBe(figures.floor.activities);
    // The contract's marker and its stop's upsert: events the plain floor does not have.
    expect(figures['contract-floor'].events).toBeGreaterThan(figures.floor.events);
    // The dev server's CPU needs its pid (a server the bench did not start may have none): not checked here.
    for (const over of ['oursOverFloor', 'oursOverContractFloor', 'contractFloorOverFloor'] as const)
      for (const k of ['throughput', 'cpu', 'p50', 'p99']) expect(figures[over][k], over).toBeGreaterThan(0);
  });

  it('history-bytes finds the prompt in every attempt, and only a reference with the payload store', () => {
    const { figures } = read('history-bytes').result as unknown as {
      figures: Record<'plain' | 'payload store', { promptBytes: number; perAttemptBytes: number }[]>;
    };
    const [, large] = figures.plain;
    const [, stored] = figures['payload store'];
    expect(large?.perAttemptBytes).toBeGreaterThan(large?.promptBytes as number);
    expect(stored?.perAttemptBytes).toBeLessThan(stored?.promptBytes as number);
  });

  it('streaming times every delta at the subscriber, and only the subscribed call has polls', () => {
    const { figures, params } = read('streaming').result as unknown as {
      figures: {
        baseline: { events: number };
        byInterval: {
          batchMs: number;
          latencyMs: { n: number };
          none: { events: number; signals: number; polls: number };
          one: { polls: number };
        }[];
      };
      params: { intervalsMs: number[]; deltas: number; repetitions: number };
    };
    expect(figures.byInterval.map((r) => r.batchMs)).toEqual(params.intervalsMs);
    for (const r of figures.byInterval) {
      expect(r.latencyMs.n).toBe(params.deltas * params.repetitions);
      expect(r.none.signals).toBeGreaterThan(0);
      expect(r.none.polls).toBe(0);
      expect(r.one.polls).toBeGreaterThan(0);
      expect(r.none.events).toBeGreaterThan(figures.baseline.events);
    }
  });

  it('streaming runs the floor once per repetition, with fewer events than a streamed call', () => {
    const { figures, params } = read('streaming').result as unknown as {
      figures: { floor: { events: number }[]; byInterval: { none: { events: number } }[] };
      params: { repetitions: number };
    };
    expect(figures.floor).toHaveLength(params.repetitions);
    for (const f of figures.floor) {
      for (const r of figures.byInterval) expect(f.events).toBeLessThan(r.none.events);
    }
  });

  it("ai-sdk: durableModel's history shows every attempt, and a 401 costs it one request", () => {
    const { figures } = read('ai-sdk').result as unknown as {
      figures: { rows: ({ name: string } & Record<string, { requests: number; visible: number }>)[] };
    };
    for (const row of figures.rows) {
      const ours = row['model-retry durableModel'];
      expect(ours?.visible, row.name).toBe(ours?.requests);
    }
    const auth = figures.rows.find((r) => r.name === '401 (always)');
    expect(auth?.['model-retry durableModel']?.requests).toBe(1);
    expect(auth?.['@temporalio/ai-sdk']?.requests).toBeGreaterThan(1);
  });

  it('outage: with health off every call tries A 1 + retriesPerBackend times; with it on, calls cool down instead', () => {
    const { figures, params } = read('outage').result as unknown as {
      figures: {
        rows: {
          scenario: string;
          health: string;
          calls: number;
          sentAttemptsOnA: number;
          coolingDown: number;
          unfinished: number;
        }[];
      };
      params: { retriesPerBackend: number };
    };
    const refused = figures.rows.filter((r) => r.scenario === 'connection refused');
    const off = refused.find((r) => r.health === 'off');
    const on = refused.find((r) => r.health === 'on');
    expect(off?.sentAttemptsOnA).toBe((off?.calls ?? 0) * (params.retriesPerBackend + 1));
    expect(off?.coolingDown).toBe(0);
    expect(on?.coolingDown).toBeGreaterThan(0);
    expect(on?.sentAttemptsOnA).toBeLessThan(off?.sentAttemptsOnA ?? 0);
    for (const r of figures.rows) expect(r.unfinished, `${r.scenario} ${r.health}`).toBe(0);
  });

  it('ai-sdk measures what the AI SDK surface costs a run, beside callModel and the floor, each in its own bundle', () => {
    type Side = { codeBytes: number; modules: { perRunModules: number; heapBytes: number }; events: number };
    const { figures } = read('ai-sdk').result as unknown as {
      figures: { cost: { aiSdk: Side; callModel: Side; floor: Side; ratios: Record<string, number> } };
    };
    const { aiSdk, callModel, floor } = figures.cost;
    // The AI SDK's modules (ai, zod, ...) are instantiated in every run on top of what callModel's are.
    expect(aiSdk.modules.perRunModules).toBeGreaterThan(callModel.modules.perRunModules);
    expect(aiSdk.modules.heapBytes).toBeGreaterThan(callModel.modules.heapBytes);
    expect(aiSdk.codeBytes).toBeGreaterThan(callModel.codeBytes);
    expect(callModel.codeBytes).toBeGreaterThan(floor.codeBytes);
    for (const side of [aiSdk, callModel, floor]) expect(side.events).toBeGreaterThan(0);
    expect(Object.keys(figures.cost.ratios)).toContain('moduleCpu.aiSdkVsCallModel');
  });

  it('stream-cut: nothing delivered twice; stop stops every cut call, continue completes the exact ones, by instruction and by prefill', () => {
    type Cell = {
      mode: string;
      variant: 'stop' | 'instruction' | 'prefill';
      calls: number;
      succeeded: number;
      complete: number;
      deliveredTwice: number;
      readMismatch: number;
      prefills: number;
      instructions: number;
      tokensRatio: number;
    };
    const { figures } = read('stream-cut').result as unknown as {
      figures: { cells: Cell[]; baselines: { complete: number }[] };
    };
    expect(figures.baselines.map((b) => b.complete)).toEqual([1, 1]);
    expect(figures.cells).toHaveLength(18);
    for (const c of figures.cells) {
      const name = `${c.mode} ${c.variant}`;
      expect(c.calls, name).toBeGreaterThan(0);
      expect(c.deliveredTwice, name).toBe(0);
      expect(c.readMismatch, name).toBe(0);
      if (c.variant === 'stop') {
        // Every call was cut after some of its text was delivered: `stop` ends it there, as before.
        expect([c.succeeded, c.complete, c.prefills, c.instructions], name).toEqual([0, 0, 0, 0]);
      } else {
        expect(c.succeeded, name).toBe(c.calls);
        // One continuation per call, in the form the model takes.
        const forms = c.variant === 'prefill' ? [c.calls, 0] : [0, c.calls];
        expect([c.prefills, c.instructions], name).toEqual(forms);
        expect(c.tokensRatio, name).toBeGreaterThan(0);
      }
    }
    const complete = (mode: string, variant: string) =>
      figures.cells.find((c) => c.mode === mode && c.variant === variant)?.complete;
    expect([complete('exact', 'instruction'), complete('exact', 'prefill')]).toEqual([1, 1]);
    expect([complete('nothing', 'instruction'), complete('nothing', 'prefill')]).toEqual([0, 0]);
  });
});
