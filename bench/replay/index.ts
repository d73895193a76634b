import { randomUUID } from 'node:crypto';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { always, fail, ok, toolCall } from '../../loopback/index.js';
import type { Benchmark } from '../lib/benchmark.js';
import { runCall } from '../lib/calls.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { historyBytes } from '../lib/history.js';
import type { History } from '../lib/history.js';
import { fmtBytes, fmtMs, fmtNum, median, ratio, summarize } from '../lib/stats.js';
import { floorHistories, floorReplayComparison } from './floor.js';
import type { Replayed } from './floor.js';
import { replayBundles, replayWorker } from './bundles.js';

/** Temporal's defaults for suggesting continue-as-new (`limit.historyCount/historySize.suggestContinueAsNew`). */
export const SUGGEST_CONTINUE_AS_NEW = { events: 4096, bytes: 4 * 1024 * 1024 };

/**
 * Item 4: how long a worker takes to replay a history, the cost it pays after a restart or a cache eviction.
 * Model-call histories (answers at once, after one and after two failures) and the longest agent turn that fits
 * before Temporal suggests continue-as-new (a tool call at every step, run until the turn continues as new) are
 * replayed with `Worker.runReplayHistories` on the bundle as the product builds it, several rounds; beside them,
 * the floor's histories (plain workflows doing the same activities) on the floor's own bundle, history by
 * history in the same rounds (`replayBundles`). Each replay is timed alone, wall time and this process's CPU;
 * the first round (warm-up) is left out.
 */
export const replay: Benchmark = {
  name: 'replay',
  title: '4. Replay time',
  async run(ctx) {
    const quick = ctx.size === 'quick';
    const rounds = quick ? 2 : 6;
    const worker = await ctx.startWorker();
    let calls: History[];
    let turn: TurnRun;
    try {
      calls = await callHistories(ctx, worker.taskQueue, quick ? 1 : 4);
      turn = await longestTurn(ctx, worker.taskQueue, quick ? 4 : 10_000);
    } finally {
      await worker.stop();
    }
    const floor = await floorHistories(ctx, quick ? 1 : 4, turn.steps);
    const named = [
      ...calls.flatMap((history, i) => [
        { workflowId: `call-${i}`, history },
        { workflowId: `floor-call-${i}`, history: floor.calls[i] as History },
      ]),
      { workflowId: 'floor-turn', history: floor.turn },
      { workflowId: 'turn', history: turn.history },
    ];
    // Every round replays ours and the floor's histories one after the other (interleaved).
    const times = await replayRounds(named, rounds);
    const pick = (prefix: string) =>
      named.filter((n) => n.workflowId.startsWith(prefix)).map((n) => times.get(n.workflowId) as Replayed);
    const callTimes = pick('call-');
    const turnTimes = times.get('turn') as Replayed;
    const vsFloor = floorReplayComparison([
      { label: 'model calls (at once, after 1 and 2 failures)', ours: callTimes, floor: pick('floor-call-') },
      { label: `agent turn, ${turn.steps} steps`, ours: [turnTimes], floor: pick('floor-turn') },
    ]);
    const perKiloCall = callTimes.flatMap((r) => r.ms.map((ms) => (ms / r.events) * 1000));
    const perKiloTurn = turnTimes.ms.map((ms) => (ms / turnTimes.events) * 1000);
    const callEvents = median(callTimes.map((r) => r.events));
    const callMs = median(callTimes.flatMap((r) => r.ms));
    const turnMs = median(turnTimes.ms);
    return {
      name: 'replay',
      title: this.title,
      params: {
        rounds,
        measuredRounds: rounds - 1,
        callHistories: calls.length,
        turnMaxSteps: quick ? 4 : 10_000,
      },
      figures: {
        callHistory: {
          events: callEvents,
          replayMs: summarize(callTimes.flatMap((r) => r.ms)),
          perThousandEventsMs: summarize(perKiloCall),
        },
        longestTurn: {
          steps: turn.steps,
          events: turnTimes.events,
          bytes: historyBytes(turn.history),
          continuedAsNew: turn.continuedAsNew,
          ...(turn.suggestedAt ? { suggestedAt: turn.suggestedAt } : {}),
          replayMs: summarize(turnTimes.ms),
          perThousandEventsMs: summarize(perKiloTurn),
        },
        suggestContinueAsNew: SUGGEST_CONTINUE_AS_NEW,
        vsFloor: vsFloor.figures,
      },
      tables: [
        {
          title: `Replay time (median of ${rounds - 1} rounds after a warm-up round)`,
          columns: ['history', 'events', 'bytes', 'replay', 'per 1,000 events'],
          rows: [
            [
              `model calls (${calls.length}: at once, after 1 and 2 failures)`,
              `${fmtNum(callEvents, 0)} (median)`,
              fmtBytes(median(calls.map(historyBytes))),
              fmtMs(callMs),
              fmtMs(median(perKiloCall)),
            ],
            [
              `agent turn, ${turn.steps} steps (${turn.continuedAsNew ? 'until it continued as new' : 'maxSteps'})`,
              String(turnTimes.events),
              fmtBytes(historyBytes(turn.history)),
              fmtMs(turnMs),
              fmtMs(median(perKiloTurn)),
            ],
          ],
          notes: [
            `Temporal suggests continue-as-new at ${SUGGEST_CONTINUE_AS_NEW.events} events or ` +
              `${fmtBytes(SUGGEST_CONTINUE_AS_NEW.bytes)} of history (server defaults); the turn continues as new ` +
              'at the next step boundary after the suggestion.',
          ],
        },
        vsFloor.table,
      ],
      notes: [
        `A short call replays in ${fmtMs(callMs)}, mostly fixed cost (workflow context, activation); the longest turn ` +
          `replays in ${fmtMs(turnMs)}, ${fmtNum(ratio(turnMs, callMs))}× a call's time for ` +
          `${fmtNum(ratio(turnTimes.events, callEvents))}× its events.`,
        turn.suggestedAt
          ? `The server suggested continue-as-new at event ${turn.suggestedAt.events}, ` +
            `${fmtBytes(turn.suggestedAt.bytes)} of history (its own count), and the turn continued as new after ` +
            `${turn.steps} steps: ` +
            (turn.suggestedAt.bytes >= SUGGEST_CONTINUE_AS_NEW.bytes
              ? 'the size limit came first, since every model attempt carries the whole conversation and the ' +
                'history grows with the square of the steps.'
              : turn.suggestedAt.events >= SUGGEST_CONTINUE_AS_NEW.events
                ? 'the event count limit came first.'
                : "the server's limits were lowered for this run.")
          : `The turn stopped at maxSteps (${turn.steps} steps), before any continue-as-new was suggested.`,
      ],
    };
  },
};

/** Model calls with different shapes: at once, after one failure, after two (waits of 10 ms). */
async function callHistories(ctx: BenchContext, taskQueue: string, each: number): Promise<History[]> {
  const shapes = [[ok()], [fail(502), ok()], [fail(502), fail(503), ok()]];
  const runs = await Promise.all(
    shapes.flatMap((steps) =>
      Array.from({ length: each }, async () => {
        const model = ctx.model('replay-call');
        ctx.lp.script(model.id, steps);
        return runCall(ctx, taskQueue, {
          model: model.name,
          prompt: 'replay me',
          retry: { waits: [10, 10] },
        });
      }),
    ),
  );
  return runs.map((r) => r.history);
}

interface TurnRun {
  history: History;
  steps: number;
  continuedAsNew: boolean;
  /** Where the server first suggested continue-as-new, by its own count (event id, history size in bytes). */
  suggestedAt?: { events: number; bytes: number };
}

/**
 * An agent turn whose model asks for the calculator at every step, until the turn continues as new (or stops at
 * `maxSteps`); the first run's history, and the chain stopped there.
 */
async function longestTurn(ctx: BenchContext, taskQueue: string, maxSteps: number): Promise<TurnRun> {
  const model = ctx.model('replay-turn');
  ctx.lp.script(model.id, [always(toolCall('calculator', { expression: '6 * 7' }))]);
  const handle = await startAgentTurn(
    ctx.client,
    { model: model.name, prompt: 'Keep calculating.', tools: ['calculator'], maxSteps },
    { taskQueue, workflowId: `bench-turn-${randomUUID()}` },
  );
  // `startAgentTurn` returns what `client.workflow.start` does, which knows the first run's id.
  const runId = (handle as Partial<WorkflowHandleWithFirstExecutionRunId>).firstExecutionRunId;
  const first = ctx.client.workflow.getHandle(handle.workflowId, runId ?? (await handle.describe()).runId);
  for (;;) {
    const { status } = await first.describe();
    if (status.name === 'CONTINUED_AS_NEW') {
      await ctx.client.workflow
        .getHandle(handle.workflowId)
        .terminate('bench: the first run is what is measured');
      break;
    }
    if (status.name !== 'RUNNING') break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const history = await first.fetchHistory();
  const steps = (history.events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelRequest',
  ).length;
  const last = history.events?.at(-1);
  // The server's own figures where it first suggested continue-as-new (in that workflow task's started event).
  const hint = history.events?.find((e) => e.workflowTaskStartedEventAttributes?.suggestContinueAsNew);
  return {
    history,
    steps,
    continuedAsNew: Boolean(last?.workflowExecutionContinuedAsNewEventAttributes),
    ...(hint
      ? {
          suggestedAt: {
            events: Number(hint.eventId),
            bytes: Number(hint.workflowTaskStartedEventAttributes?.historySizeBytes ?? 0),
          },
        }
      : {}),
  };
}

/**
 * Replays every history `rounds` times, model-retry's on the product's bundle and the floor's (`floor-` ids) on
 * their own, one replay worker each, in the given order (ours and the floor's alternate); each history's times,
 * the first round left out.
 */
async function replayRounds(
  histories: { workflowId: string; history: History }[],
  rounds: number,
): Promise<Map<string, Replayed>> {
  const out = new Map<string, Replayed>(
    histories.map((h) => [h.workflowId, { events: h.history.events?.length ?? 0, ms: [], cpuMs: [] }]),
  );
  const bundles = await replayBundles();
  const workers = { ours: replayWorker(bundles.ours), floor: replayWorker(bundles.floor) };
  try {
    for (let round = 0; round < rounds; round++) {
      for (const h of histories) {
        const worker = h.workflowId.startsWith('floor-') ? workers.floor : workers.ours;
        const time = await worker.replay(`${h.workflowId}#${round}`, h.history);
        if (round === 0) continue;
        out.get(h.workflowId)?.ms.push(time.ms);
        out.get(h.workflowId)?.cpuMs.push(time.cpuMs);
      }
    }
  } finally {
    await Promise.all([workers.ours.close(), workers.floor.close()]);
  }
  return out;
}
