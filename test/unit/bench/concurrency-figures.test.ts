import { describe, expect, it } from 'vitest';
import { concurrencyResult, pairedRatios } from '../../../bench/concurrency/tables.js';
import { loadKey, QUICK } from '../../../bench/concurrency/plan.js';
import type { LoadFigures, LoadMode } from '../../../bench/concurrency/load-run.js';
import { requestsPerCall } from '../../../bench/lib/server-requests.js';
import { callsPerSecondTo, spread } from '../../../bench/lib/stats.js';

/** One load's figures: only what the tables read, the rest zero. */
function load(mode: LoadMode, over: Partial<LoadFigures> = {}): LoadFigures {
  const summary = { n: 10, p50: 1000, p99: 2000, min: 0, max: 2000 };
  return {
    mode,
    eagerActivities: false,
    eagerStart: false,
    failureRate: 0.2,
    calls: 10,
    attempts: 12,
    succeeded: 10,
    unfinished: 0,
    completionMs: 1000,
    startPhaseMs: 100,
    callsPerSecond: 10,
    callsPerSecondTo90: 10,
    latencyMs: summary,
    eagerlyStarted: 0,
    idealMs: 0,
    attemptsPerSecond: 12,
    eventsPerCall: 11,
    providerRequestsPerCall: 1.2,
    workflowTaskScheduleToStartMs: summary,
    activityScheduleToStartMs: summary,
    timerLatenessMs: summary,
    peakAttemptsInFlight: 1,
    timeouts: { workflowTasks: 0, attempts: 0 },
    cpuSeconds: { worker: 0.1, devServer: 0.1, bench: 0 },
    ...over,
  };
}

describe('concurrency figures', () => {
  it('counts throughput to 90 % of the results, leaving out the tail of the last ones', () => {
    // Nine calls end by 1 s, the tenth waited 4 s more in a queue.
    const ends = [200, 300, 400, 500, 600, 700, 800, 900, 1000, 5000];
    expect(callsPerSecondTo(ends, 10, 0.9)).toBeCloseTo(9);
    expect(callsPerSecondTo(ends, 10, 1)).toBeCloseTo(2);
    expect(callsPerSecondTo([], 10, 0.9)).toBeNaN();
  });

  it('gives a median with its range, ignoring figures that are not numbers', () => {
    expect(spread([3, Number.NaN, 1, 2])).toEqual({ n: 3, median: 2, min: 1, max: 3 });
  });

  it('takes ratios round by round, not between the medians of each side', () => {
    // Round 1 fast for both sides, round 2 slow for both: each round ours is 0.9x the floor's.
    const ours = [
      load('callModel', { callsPerSecondTo90: 27 }),
      load('callModel', { callsPerSecondTo90: 18 }),
    ];
    const floor = [load('floor', { callsPerSecondTo90: 30 }), load('floor', { callsPerSecondTo90: 20 })];
    const r = pairedRatios(ours, floor, (f) => f.callsPerSecondTo90);
    expect(r.median).toBeCloseTo(0.9);
    expect(r.min).toBeCloseTo(0.9);
    expect(r.max).toBeCloseTo(0.9);
  });

  it("leaves the bench's own reads out of a load's server requests", () => {
    const before = new Map([
      ['PollWorkflowTaskQueue', 100],
      ['GetWorkflowExecutionHistory', 5],
    ]);
    const after = new Map([
      ['PollWorkflowTaskQueue', 120],
      ['GetWorkflowExecutionHistory', 15],
      ['TerminateWorkflowExecution', 1],
      ['StartWorkflowExecution', 10],
    ]);
    expect(requestsPerCall(before, after, 10)).toEqual({
      PollWorkflowTaskQueue: 2,
      StartWorkflowExecution: 1,
    });
  });

  it('shows each cell with the range of its rounds, and the goal checked on the median ratio', () => {
    const runs = new Map<string, LoadFigures[]>();
    const add = (mode: LoadMode, eager: string, cps: number[]) =>
      runs.set(
        loadKey(mode, 0.2, eager),
        cps.map((c) =>
          load(mode, {
            callsPerSecondTo90: c,
            callsPerSecond: c / 2,
            serverRequestsPerCall: {
              PollWorkflowTaskQueue: 2,
              RecordActivityTaskHeartbeat: 0.5,
              DescribeNamespace: 0.1,
            },
          }),
        ),
      );
    for (const eager of ['off', QUICK.eager[0]?.name as string]) {
      add('modelCallWorkflow', eager, [19, 30, 28]);
      add('callModel', eager, [19, 30, 28]);
      add('floor', eager, [20, 31, 40]);
      add('contractFloor', eager, [20, 30, 32]);
    }
    const result = concurrencyResult(QUICK, runs);
    const figures = result.tables[0];
    const mcw = figures?.rows.find((row) => row[1]?.includes('modelCallWorkflow'));
    expect(mcw?.[3]).toBe('28 (19–30)');
    const ratios = result.tables[1];
    const ratioRow = ratios?.rows.find((row) => row[1]?.includes('modelCallWorkflow'));
    // Rounds: 19/20, 30/31, 28/40: median 0.95 (met), range 0.70-0.97.
    expect(ratioRow?.[2]).toBe('0.95× ✓ (0.70–0.97×)');
    // Ours over the contract's floor: 19/20, 30/30, 28/32: median 0.95 (met), range 0.88-1.00.
    const overContract = result.tables.find(
      (t) => t.title.startsWith("Ours over the contract's floor") && t.title.includes('eager off'),
    );
    const contractRow = overContract?.rows.find((row) => row[1]?.includes('modelCallWorkflow'));
    expect(contractRow?.[2]).toBe('0.95× ✓ (0.88–1.00×)');
    // The contract's floor over the floor is the contract's own cost: shown without a goal mark.
    const floorRow = ratios?.rows.find((row) => row[1]?.toLowerCase().includes("contract's floor"));
    expect(floorRow?.[2]).toBe('0.97× (0.80–1.00×)');
    // The tables are found by their titles: a new table between them moves their indexes.
    const requests = result.tables.find((t) => t.title.startsWith('Requests per call, eager off'));
    expect(requests?.columns).toContain('RecordActivityTaskHeartbeat');
    const reqRow = requests?.rows.find((row) => row[1]?.includes('floor'));
    expect(reqRow?.at(-1)).toBe('0.1');
    for (const table of result.tables)
      for (const row of table.rows) expect(row, table.title).toHaveLength(table.columns.length);
  });
});
