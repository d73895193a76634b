import { ok } from '../../loopback/index.js';
import { runFloor } from '../lib/calls.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { historyBytes } from '../lib/history.js';
import type { Table } from '../lib/report.js';
import { fmtBytes, fmtMs, fmtNum, fmtRatio, median, ratio } from '../lib/stats.js';
import { answerChunks } from './run.js';
import type { AnswerShape, StreamRun } from './run.js';

/** One floor run: a plain workflow whose plain activity reads the same streamed answer to its end. */
export interface FloorStreamRun {
  events: number;
  bytes: number;
  callMs: number;
}

/** Runs the floor once: `floorPromptWorkflow` with `stream`, the same chunks at the same pace, no subscriber. */
export async function runFloorStream(
  ctx: BenchContext,
  taskQueue: string,
  shape: AnswerShape,
): Promise<FloorStreamRun> {
  const model = ctx.model('stream-floor');
  ctx.lp.script(model.id, [
    ok(undefined, { chunks: answerChunks(shape.deltas), chunkDelayMs: shape.chunkDelayMs }),
  ]);
  const t0 = Date.now();
  const run = await runFloor(ctx, taskQueue, 'floorPromptWorkflow', {
    model: model.name,
    prompt: 'stream me an answer',
    attempts: 1,
    waitMs: 0,
    stream: true,
  });
  if (!run.ok) throw new Error(`streaming: floor ${run.workflowId} did not succeed`);
  return {
    events: run.history.events?.length ?? 0,
    bytes: historyBytes(run.history),
    callMs: Date.now() - t0,
  };
}

/** model-retry's streamed calls beside the floor: history and start-to-result time, ratios ours / floor. */
export function streamingFloorTable(
  floorRuns: readonly FloorStreamRun[],
  base: readonly StreamRun[],
  byInterval: readonly { batchMs: number; none: readonly StreamRun[]; one: readonly StreamRun[] }[],
): Table {
  const floor = {
    events: median(floorRuns.map((r) => r.events)),
    bytes: median(floorRuns.map((r) => r.bytes)),
    callMs: median(floorRuns.map((r) => r.callMs)),
  };
  const row = (label: string, rs: readonly StreamRun[]) => {
    const events = median(rs.map((r) => r.events));
    const bytes = median(rs.map((r) => r.bytes));
    const callMs = median(rs.map((r) => r.callMs));
    return [
      label,
      fmtNum(events, 0),
      fmtBytes(bytes),
      fmtMs(callMs),
      fmtRatio(ratio(events, floor.events)),
      fmtRatio(ratio(bytes, floor.bytes)),
      fmtRatio(ratio(callMs, floor.callMs)),
    ];
  };
  return {
    title:
      'Beside the floor: the same streamed answer read by a plain activity of a plain workflow (no subscriber)',
    columns: [
      'workflow',
      'events',
      'bytes',
      'start-to-result',
      'events vs floor',
      'bytes vs floor',
      'time vs floor',
    ],
    rows: [
      [
        'floor',
        fmtNum(floor.events, 0),
        fmtBytes(floor.bytes),
        fmtMs(floor.callMs),
        '1.00×',
        '1.00×',
        '1.00×',
      ],
      row('model-retry, not streamed', base),
      ...byInterval.flatMap((b) => [
        row(`model-retry, streamed at ${fmtMs(b.batchMs)}, no subscriber`, b.none),
        row(`model-retry, streamed at ${fmtMs(b.batchMs)}, one subscriber`, b.one),
      ]),
    ],
    notes: [
      'The floor has no path to a subscriber (Temporal has no stream of its own): its row is the least a streamed ' +
        "answer costs in history and time; model-retry's rows add the batches (signals) and the subscriber's polls.",
    ],
  };
}
