import { subscribeCallStream } from '../../client/call-stream.js';
import { ok } from '../../loopback/index.js';
import { finish, startCall } from '../lib/calls.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { countTypes, historyBytes } from '../lib/history.js';

/** The streamed answer: `deltas` text deltas, the provider pausing `chunkDelayMs` before each. */
export interface AnswerShape {
  deltas: number;
  chunkDelayMs: number;
}

/** How one call runs: streamed at `batchMs` (or not streamed), with one subscriber or none. */
export interface StreamRunSpec {
  /** The batch interval; `undefined`: the same answer, not streamed (the baseline). */
  batchMs: number | undefined;
  subscribed: boolean;
}

/** What one call cost in history, and what its subscriber saw. */
export interface StreamRun {
  workflowId: string;
  events: number;
  bytes: number;
  /** The attempt's publish signals (`WorkflowExecutionSignaled`): one per batch. */
  signals: number;
  /** The subscriber's polls recorded in the history (`WorkflowExecutionUpdateAccepted`). */
  polls: number;
  /** From the provider receiving the request to it sending the last delta, ms (NaN when not streamed). */
  streamedMs: number;
  /** Per delta the subscriber received: ms from the provider writing it to the subscriber getting it. */
  latencyMs: number[];
  /** Deltas the subscriber read from the closed run's history (it was between two polls when the run closed). */
  readAfterClose: number;
  /** The history's events by type. */
  types: Record<string, number>;
  /** From the start request to the result (and the history read), ms. */
  callMs: number;
}

/**
 * The answer's deltas: `w<i> `, so the subscriber can tell which delta each text is (and so when the provider
 * sent it) even if deltas were ever merged on the way.
 */
export function answerChunks(deltas: number): string[] {
  return Array.from({ length: deltas }, (_, i) => `w${i} `);
}

/**
 * Runs one model call whose provider streams `shape` (or answers it whole when not streamed), with one subscriber
 * reading the call's stream from offset 0 when `spec.subscribed` (the default poll cooldown, as a host gets it).
 * @throws when the call fails, or when the subscriber did not receive every delta exactly once.
 */
export async function runStreamCall(
  ctx: BenchContext,
  taskQueue: string,
  shape: AnswerShape,
  spec: StreamRunSpec,
): Promise<StreamRun> {
  const model = ctx.model(spec.batchMs === undefined ? 'stream-none' : `stream-${spec.batchMs}`);
  const chunks = answerChunks(shape.deltas);
  ctx.lp.script(model.id, [
    spec.batchMs === undefined
      ? ok(chunks.join(''))
      : ok(undefined, { chunks, chunkDelayMs: shape.chunkDelayMs }),
  ]);
  const t0 = Date.now();
  const handle = await startCall(ctx, taskQueue, {
    model: model.name,
    prompt: 'stream me an answer',
    ...(spec.batchMs === undefined ? {} : { stream: { batchMs: spec.batchMs } }),
  });
  const received: { at: number; text: string; live: boolean }[] = [];
  const reading = spec.subscribed
    ? (async () => {
        for await (const item of subscribeCallStream(ctx.client, handle.workflowId)) {
          if (item.kind === 'delta') {
            received.push({ at: Date.now(), text: item.delta.text, live: item.offset !== undefined });
          }
        }
      })()
    : Promise.resolve();
  let callMs = 0;
  const [run] = await Promise.all([finish(handle).finally(() => (callMs = Date.now() - t0)), reading]);
  if (!run.ok) throw new Error(`streaming: call ${run.workflowId} did not succeed`);

  await ctx.lp.idle();
  const request = ctx.lp.requests(model.id)[0];
  const sentAt = request?.deltasSentAt ?? [];
  const latencyMs: number[] = [];
  const seen = new Set<number>();
  for (const r of received) {
    for (const m of r.text.matchAll(/w(\d+) /g)) {
      const index = Number(m[1]);
      const sent = sentAt[index];
      seen.add(index);
      if (sent !== undefined) latencyMs.push(r.at - sent);
    }
  }
  const timed = sentAt.length === shape.deltas && seen.size === shape.deltas;
  if (spec.subscribed && !(timed && latencyMs.length === shape.deltas)) {
    throw new Error(
      `streaming: the subscriber of ${run.workflowId} got ${latencyMs.length} timed deltas ` +
        `(${seen.size} distinct, the provider recorded ${sentAt.length}) of the ${shape.deltas} sent`,
    );
  }
  const types = countTypes(run.history);
  const last = sentAt.at(-1);
  return {
    workflowId: run.workflowId,
    events: run.history.events?.length ?? 0,
    bytes: historyBytes(run.history),
    signals: types.get('WorkflowExecutionSignaled') ?? 0,
    polls: types.get('WorkflowExecutionUpdateAccepted') ?? 0,
    streamedMs: last === undefined || request === undefined ? Number.NaN : last - request.receivedAt,
    latencyMs,
    readAfterClose: received.filter((r) => !r.live).length,
    types: Object.fromEntries(types),
    callMs,
  };
}
