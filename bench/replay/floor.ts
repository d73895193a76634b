import { always, fail, ok, toolCall } from '../../loopback/index.js';
import { runFloor } from '../lib/calls.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { startFloorWorker } from '../../test/harness/floor/worker.js';
import type { History } from '../lib/history.js';
import type { Table } from '../lib/report.js';
import { fmtMs, fmtRatio, median, ratio } from '../lib/stats.js';

/** The goals for replay: ours per event at most 1.2x the floor's, and under 0.5 ms for a call. */
export const REPLAY_GOALS = { perEventVsFloor: 1.2, callPerEventMs: 0.5 };

/** One replayed history's figures: its events, and the wall time and process CPU of each measured round (ms). */
export interface Replayed {
  events: number;
  ms: number[];
  cpuMs: number[];
}

/**
 * The floor's histories, made as model-retry's are: `floorPromptWorkflow` answering at once, after one and after
 * two failures (timers of 10 ms), `each` of every shape; and `floorTurnWorkflow` with the same number of model
 * steps as model-retry's turn, a calculator call at every step.
 */
export async function floorHistories(
  ctx: BenchContext,
  each: number,
  turnSteps: number,
): Promise<{ calls: History[]; turn: History }> {
  const worker = await startFloorWorker(ctx);
  try {
    const shapes = [[ok()], [fail(502), ok()], [fail(502), fail(503), ok()]];
    const calls = await Promise.all(
      shapes.flatMap((steps) =>
        Array.from({ length: each }, async () => {
          const model = ctx.model('replay-floor-call');
          ctx.lp.script(model.id, steps);
          const run = await runFloor(ctx, worker.taskQueue, 'floorPromptWorkflow', {
            model: model.name,
            prompt: 'replay me',
            attempts: 3,
            waitMs: 10,
          });
          return run.history;
        }),
      ),
    );
    const model = ctx.model('replay-floor-turn');
    ctx.lp.script(model.id, [always(toolCall('calculator', { expression: '6 * 7' }))]);
    const turn = await runFloor(ctx, worker.taskQueue, 'floorTurnWorkflow', {
      model: model.name,
      prompt: 'Keep calculating.',
      tools: ['calculator'],
      maxSteps: Math.max(1, turnSteps),
    });
    return { calls, turn: turn.history };
  } finally {
    await worker.stop();
  }
}

const perEvent = (rs: readonly Replayed[]) => rs.flatMap((r) => r.ms.map((ms) => ms / r.events));
const cpuPerEvent = (rs: readonly Replayed[]) => rs.flatMap((r) => r.cpuMs.map((ms) => ms / r.events));

/** Model-retry's histories beside the floor's: time per history and per event, and the ratios ours / floor. */
export function floorReplayComparison(pairs: { label: string; ours: Replayed[]; floor: Replayed[] }[]): {
  table: Table;
  figures: Record<string, unknown>;
  notes: string[];
} {
  const rows = pairs.map((p) => {
    const side = (rs: readonly Replayed[]) => ({
      ms: median(rs.flatMap((r) => r.ms)),
      perEvent: median(perEvent(rs)),
      cpuPerEvent: median(cpuPerEvent(rs)),
    });
    const ours = side(p.ours);
    const floor = side(p.floor);
    const events = { ours: median(p.ours.map((r) => r.events)), floor: median(p.floor.map((r) => r.events)) };
    return { label: p.label, ours, floor, events };
  });
  const call = rows[0];
  const callVsFloor = call ? ratio(call.ours.perEvent, call.floor.perEvent) : Number.NaN;
  const cpuVsFloor = call ? ratio(call.ours.cpuPerEvent, call.floor.cpuPerEvent) : Number.NaN;
  const met = (vsFloor: number, perEventMs: number | undefined) =>
    vsFloor <= REPLAY_GOALS.perEventVsFloor &&
    perEventMs !== undefined &&
    perEventMs < REPLAY_GOALS.callPerEventMs
      ? 'met'
      : 'not met';
  return {
    table: {
      title: "Replay beside the floor (plain workflows' histories, replayed in the same rounds)",
      columns: [
        'history',
        'events: ours / floor',
        'replay: ours / floor',
        'replay vs floor',
        'per event: ours / floor',
        'per event vs floor',
        'CPU per event: ours / floor',
        'CPU vs floor',
      ],
      rows: rows.map((r) => [
        r.label,
        `${r.events.ours} / ${r.events.floor}`,
        `${fmtMs(r.ours.ms)} / ${fmtMs(r.floor.ms)}`,
        fmtRatio(ratio(r.ours.ms, r.floor.ms)),
        `${fmtMs(r.ours.perEvent)} / ${fmtMs(r.floor.perEvent)}`,
        fmtRatio(ratio(r.ours.perEvent, r.floor.perEvent)),
        `${fmtMs(r.ours.cpuPerEvent)} / ${fmtMs(r.floor.cpuPerEvent)}`,
        fmtRatio(ratio(r.ours.cpuPerEvent, r.floor.cpuPerEvent)),
      ]),
      notes: [
        `Goal for a model-call history: per event <= ${REPLAY_GOALS.perEventVsFloor}x the floor's and under ` +
          `${REPLAY_GOALS.callPerEventMs} ms. Measured: wall time ${fmtRatio(callVsFloor)}, ` +
          `${fmtMs(call?.ours.perEvent ?? Number.NaN)} per event (${met(callVsFloor, call?.ours.perEvent)}); ` +
          `CPU ${fmtRatio(cpuVsFloor)}, ${fmtMs(call?.ours.cpuPerEvent ?? Number.NaN)} per event ` +
          `(${met(cpuVsFloor, call?.ours.cpuPerEvent)}).`,
        "Ours replay on the bundle as ModelRetryPlugin and createModelRetryWorker build it, the floor's on a " +
          'bundle of its own; each replay is timed alone, wall time and the CPU of the whole process (the SDK ' +
          "core's threads too). Wall time includes Temporal's per-call sandbox watchdog, a thread started for " +
          'every call into the sandbox, which a loaded machine makes slow.',
      ],
    },
    figures: Object.fromEntries(rows.map((r) => [r.label, r])),
    notes: [],
  };
}
