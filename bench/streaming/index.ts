import { DEFAULT_STREAM_BATCH_MS } from '../../common/stream.js';
import type { Benchmark } from '../lib/benchmark.js';
import { median, summarize } from '../lib/stats.js';
import { startFloorWorker } from '../../test/harness/floor/worker.js';
import { runFloorStream, streamingFloorTable } from './floor.js';
import type { FloorStreamRun } from './floor.js';
import { runStreamCall } from './run.js';
import type { AnswerShape, StreamRun } from './run.js';
import { streamingFindings, streamingTables } from './tables.js';
import type { CallCost, IntervalFigures } from './tables.js';

const INTERVALS = { quick: [50, 500], full: [50, 100, 250, 500, 1000, 2000] };
const SHAPES: Record<'quick' | 'full', AnswerShape> = {
  quick: { deltas: 20, chunkDelayMs: 25 },
  full: { deltas: 200, chunkDelayMs: 50 },
};

/**
 * Item 6: what streaming costs in history and what it buys in latency, at each batch interval. Per interval and
 * repetition, two calls of the same streamed answer run side by side on one worker: one with a subscriber
 * (`subscribeCallStream` from offset 0, whose polls are updates in the history) and one with none. Beside them,
 * the same answer not streamed. The provider records when it wrote each delta; each delta's text names it, so
 * the subscriber times every delta from the provider to itself. The floor, once per repetition: the same streamed
 * answer read to its end by a plain activity of a plain workflow (`floorPromptWorkflow` with `stream`).
 */
export const streaming: Benchmark = {
  name: 'streaming',
  title: '6. Streaming: history per second of answer, and delta-to-subscriber latency',
  async run(ctx) {
    const intervals = INTERVALS[ctx.size];
    const shape = SHAPES[ctx.size];
    const reps = ctx.size === 'quick' ? 1 : 2;
    const worker = await ctx.startWorker();
    const floor = await startFloorWorker(ctx);
    const floorRuns: FloorStreamRun[] = [];
    const base: StreamRun[] = [];
    const runs = new Map<number, { none: StreamRun[]; one: StreamRun[] }>(
      intervals.map((b) => [b, { none: [], one: [] }]),
    );
    try {
      for (let rep = 0; rep < reps; rep += 1) {
        base.push(
          await runStreamCall(ctx, worker.taskQueue, shape, { batchMs: undefined, subscribed: false }),
        );
        floorRuns.push(await runFloorStream(ctx, floor.taskQueue, shape));
        for (const batchMs of rep % 2 === 0 ? intervals : [...intervals].reverse()) {
          const [one, none] = await Promise.all([
            runStreamCall(ctx, worker.taskQueue, shape, { batchMs, subscribed: true }),
            runStreamCall(ctx, worker.taskQueue, shape, { batchMs, subscribed: false }),
          ]);
          runs.get(batchMs)?.one.push(one);
          runs.get(batchMs)?.none.push(none);
        }
        ctx.lp.reset();
      }
    } finally {
      await worker.stop();
      await floor.stop();
    }

    const baseline = { events: median(base.map((r) => r.events)), bytes: median(base.map((r) => r.bytes)) };
    const cost = (rs: StreamRun[]): CallCost => {
      const per = (r: StreamRun, v: number) => v / (r.streamedMs / 1000);
      return {
        events: median(rs.map((r) => r.events)),
        bytes: median(rs.map((r) => r.bytes)),
        signals: median(rs.map((r) => r.signals)),
        polls: median(rs.map((r) => r.polls)),
        addedEventsPerSecond: median(rs.map((r) => per(r, r.events - baseline.events))),
        addedBytesPerSecond: median(rs.map((r) => per(r, r.bytes - baseline.bytes))),
        pollsPerSecond: median(rs.map((r) => per(r, r.polls))),
      };
    };
    const byInterval: IntervalFigures[] = intervals.map((batchMs) => {
      const { none, one } = runs.get(batchMs) ?? { none: [], one: [] };
      return {
        batchMs,
        streamedSeconds: median([...none, ...one].map((r) => r.streamedMs / 1000)),
        none: cost(none),
        one: cost(one),
        latencyMs: summarize(one.flatMap((r) => r.latencyMs)),
        readAfterClose: one.reduce((n, r) => n + r.readAfterClose, 0),
        types: { one: one[0]?.types ?? {}, none: none[0]?.types ?? {} },
      };
    });
    const answerSeconds = (shape.deltas * shape.chunkDelayMs) / 1000;
    return {
      name: 'streaming',
      title: this.title,
      params: {
        intervalsMs: intervals,
        deltas: shape.deltas,
        chunkDelayMs: shape.chunkDelayMs,
        answerSeconds,
        repetitions: reps,
        pollCooldownMs: 100,
        defaultBatchMs: DEFAULT_STREAM_BATCH_MS,
      },
      figures: { baseline: { ...baseline, types: base[0]?.types ?? {} }, byInterval, floor: floorRuns },
      tables: [
        ...streamingTables(byInterval, baseline, shape, reps),
        streamingFloorTable(
          floorRuns,
          base,
          intervals.map((batchMs) => ({ batchMs, ...(runs.get(batchMs) ?? { none: [], one: [] }) })),
        ),
      ],
      notes: streamingFindings(byInterval),
    };
  },
};
