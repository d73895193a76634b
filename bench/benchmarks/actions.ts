import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Worker } from '@temporalio/worker';
import { subscribeCallStream } from '../../client/call-stream.js';
import { startModelCall } from '../../client/model-call-client.js';
import type { ModelCallInput } from '../../common/call.js';
import { DEFAULT_HEARTBEAT_MS } from '../../common/heartbeat.js';
import { fail, ok, slow } from '../../loopback/index.js';
import type { Step } from '../../loopback/index.js';
import { startDevServer } from '../../worker/dev-server.js';
import type { DevServer } from '../../worker/dev-server.js';
import { freePort } from '../../worker/free-port.js';
import { createModelRetryWorker } from '../../worker/worker.js';
import type { Benchmark } from '../lib/benchmark.js';
import type { BenchContext } from '../lib/context.js';
import { createFloorWorker } from '../lib/floor-worker.js';
import type { Table } from '../lib/report.js';
import { actionName, actionsBetween, settledActions } from '../lib/server-actions.js';
import { metricsArgs } from '../lib/server-requests.js';
import { fmtRatio, median, ratio } from '../lib/stats.js';
import type { FloorPromptInput, FloorRetryInput } from '../workflows/floor.js';

/** One kind of call, run by model-retry and by the floor with the same provider answers. */
interface ActionCase {
  name: string;
  /** What the provider answers, in order (the same for both sides). */
  script: () => Step[];
  /** model-retry's call, less its model. */
  ours: Omit<ModelCallInput, 'model'>;
  /** The floor's run: `floorRetryWorkflow` (waits) or, streamed, `floorPromptWorkflow`. */
  floor: { waits: number[]; stream?: boolean };
  /** One subscriber reads model-retry's stream (its polls are updates); the floor has none to read. */
  subscribed?: boolean;
}

interface ActionsPlan {
  repetitions: number;
  /** How long the provider takes for "answered after" (ms), each a case. */
  answerAfterMs: number[];
  /** The failures' waits (ms). */
  waitMs: number;
  /** A streamed answer: deltas, and the provider's pause before each. */
  stream: { deltas: number; chunkDelayMs: number; batchMs: number };
  /** Other heartbeat cadences (ms) a call answered after `answerAfterMs[0]` runs at, beside the default. */
  cadencesMs: number[];
}

const FULL: ActionsPlan = {
  repetitions: 3,
  answerAfterMs: [10_000, 60_000],
  waitMs: 1000,
  stream: { deltas: 20, chunkDelayMs: 500, batchMs: 500 },
  cadencesMs: [250, 1000, 10_000],
};

/** The smoke size: the same cases, short (no answer waits long enough for a heartbeat at the default). */
const QUICK: ActionsPlan = {
  repetitions: 1,
  answerAfterMs: [1500],
  waitMs: 50,
  stream: { deltas: 4, chunkDelayMs: 100, batchMs: 100 },
  cadencesMs: [500],
};

/** Temporal Cloud's list price per million actions, in US dollars (the first tier), for the cost column. */
export const PRICE_PER_MILLION_ACTIONS_USD = 50;

const PROMPT = 'count my actions';
/** The floor's request timeout: longer than the longest answer. */
const FLOOR_TIMEOUT_MS = 120_000;

function cases(plan: ActionsPlan): ActionCase[] {
  const w = plan.waitMs;
  const { deltas, chunkDelayMs, batchMs } = plan.stream;
  const chunks = Array.from({ length: deltas }, (_, i) => `w${i} `);
  const streamed = (subscribed: boolean): ActionCase => ({
    name: `streamed over ${fmtS(deltas * chunkDelayMs)}, ${subscribed ? 'one subscriber' : 'no subscriber'}`,
    script: () => [ok(undefined, { chunks, chunkDelayMs })],
    ours: { prompt: PROMPT, stream: { batchMs } },
    floor: { waits: [], stream: true },
    subscribed,
  });
  return [
    { name: 'answered at once', script: () => [ok()], ours: { prompt: PROMPT }, floor: { waits: [] } },
    ...plan.answerAfterMs.map((ms): ActionCase => ({
      name: `answered after ${fmtS(ms)}`,
      script: () => [slow(ms, ok())],
      ours: { prompt: PROMPT },
      floor: { waits: [] },
    })),
    {
      name: `three 502s, ${w} ms waits, then an answer`,
      script: () => [fail(502), fail(502), fail(502), ok()],
      ours: { prompt: PROMPT, retry: { waits: [w, w, w] } },
      floor: { waits: [w, w, w] },
    },
    streamed(false),
    streamed(true),
  ];
}

/** One run's actions by type, and their sum. */
interface Counted {
  total: number;
  byType: Record<string, number>;
}

/**
 * Billable actions per call, from the dev server's own `action` metric, for model-retry's call beside the
 * platform's floor (a plain workflow scheduling the same activities and timers, bench/workflows/floor.ts) in the
 * same run, on a dev server of its own (its metrics port; nothing else runs in its namespace). Each call runs
 * alone, and its count is what the counter moved from before its start until it settled after its end.
 */
export const actions: Benchmark = {
  name: 'actions',
  title: '0. Billable actions per call, beside the floor',
  async run(ctx) {
    const plan = ctx.size === 'quick' ? QUICK : FULL;
    const dir = mkdtempSync(join(tmpdir(), 'model-retry-bench-actions-'));
    const { server, metricsPort } = await startServer(join(dir, 'actions.sqlite'));
    const connection = await Connection.connect({ address: server.address });
    const native = await NativeConnection.connect({ address: server.address });
    const client = new Client({ connection, namespace: server.namespace });
    const workers: { worker: Worker; done: Promise<void> }[] = [];
    const start = async (make: (taskQueue: string) => Promise<Worker>): Promise<string> => {
      const taskQueue = `bench-actions-${randomUUID()}`;
      const worker = await make(taskQueue);
      workers.push({ worker, done: worker.run() });
      return taskQueue;
    };
    const oursAt = (heartbeatThrottleMs?: number) =>
      start((taskQueue) =>
        createModelRetryWorker({
          connection: native,
          namespace: server.namespace,
          taskQueue,
          workflowBundle: { codePath: ctx.bundlePath },
          shutdownGraceMs: 2000,
          deps: { providers: ctx.providers },
          warn: () => undefined,
          ...(heartbeatThrottleMs !== undefined ? { heartbeatThrottleMs } : {}),
        }),
      );
    const count = async (run: () => Promise<void>): Promise<Counted> => {
      const before = await settledActions(metricsPort, server.namespace);
      await run();
      const byType = named(actionsBetween(before, await settledActions(metricsPort, server.namespace)));
      return { total: Object.values(byType).reduce((a, b) => a + b, 0), byType };
    };
    const byCase: Record<string, { ours: Counted[]; floor: Counted[] }> = {};
    const byCadence: Record<string, Counted[]> = {};
    try {
      const ours = await oursAt();
      const floor = await start((taskQueue) =>
        createFloorWorker({
          connection: native,
          namespace: server.namespace,
          taskQueue,
          bundlePath: ctx.bundlePath,
          providers: () => ctx.providers,
        }),
      );
      const list = cases(plan);
      for (let rep = 0; rep < plan.repetitions; rep += 1) {
        for (const c of list) {
          const entry = (byCase[c.name] ??= { ours: [], floor: [] });
          entry.ours.push(await count(() => runOurs(ctx, client, ours, c)));
          entry.floor.push(await count(() => runFloor(ctx, client, floor, c)));
          ctx.lp.reset();
        }
      }
      const after = cases(plan)[1] as ActionCase;
      for (const cadence of plan.cadencesMs) {
        const taskQueue = await oursAt(cadence);
        for (let rep = 0; rep < plan.repetitions; rep += 1) {
          (byCadence[String(cadence)] ??= []).push(await count(() => runOurs(ctx, client, taskQueue, after)));
          ctx.lp.reset();
        }
      }
      byCadence[String(DEFAULT_HEARTBEAT_MS)] = byCase[after.name]?.ours ?? [];
      ctx.log(
        `bench: actions: ${list.length} cases × ${plan.repetitions}, ${plan.cadencesMs.length} cadences`,
      );
    } finally {
      for (const w of workers) w.worker.shutdown();
      await Promise.all(workers.map((w) => w.done));
      await native.close();
      await connection.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    return actionsResult(plan, byCase, byCadence);
  },
};

async function runOurs(ctx: BenchContext, client: Client, taskQueue: string, c: ActionCase) {
  const model = ctx.model('actions');
  ctx.lp.script(model.id, c.script());
  const handle = await startModelCall(
    client,
    { model: model.name, ...c.ours },
    { taskQueue, workflowId: `bench-actions-${randomUUID()}` },
  );
  const reading = c.subscribed ? readStream(client, handle.workflowId) : Promise.resolve();
  await Promise.all([settle(handle), reading]);
}

async function runFloor(ctx: BenchContext, client: Client, taskQueue: string, c: ActionCase) {
  const model = ctx.model('actions-floor');
  ctx.lp.script(model.id, c.script());
  const workflowId = `bench-actions-floor-${randomUUID()}`;
  const handle = c.floor.stream
    ? await client.workflow.start('floorPromptWorkflow', {
        taskQueue,
        workflowId,
        args: [
          {
            model: model.name,
            prompt: PROMPT,
            attempts: 1,
            waitMs: 0,
            stream: true,
          } satisfies FloorPromptInput,
        ],
      })
    : await client.workflow.start('floorRetryWorkflow', {
        taskQueue,
        workflowId,
        args: [
          {
            model: model.name,
            messages: [{ role: 'user', content: PROMPT }],
            timeoutMs: FLOOR_TIMEOUT_MS,
            waits: c.floor.waits,
          } satisfies FloorRetryInput,
        ],
      });
  await settle(handle);
}

/** Waits for the run's end; a call that did not succeed makes its figures meaningless, so it fails the bench. */
async function settle(handle: WorkflowHandle): Promise<void> {
  try {
    await handle.result();
  } catch (error) {
    throw new Error(`actions: ${handle.workflowId} did not succeed`, { cause: error });
  }
}

async function readStream(client: Client, workflowId: string): Promise<void> {
  for await (const item of subscribeCallStream(client, workflowId)) void item;
}

/** Action types by their short names (two server names of one kind summed). */
function named(byType: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [type, n] of Object.entries(byType)) out[actionName(type)] = (out[actionName(type)] ?? 0) + n;
  return out;
}

/** The median of each type over the runs (types any run had), and the median total. */
function medianCount(runs: readonly Counted[]): Counted {
  const types = [...new Set(runs.flatMap((r) => Object.keys(r.byType)))].sort();
  const byType = Object.fromEntries(types.map((t) => [t, median(runs.map((r) => r.byType[t] ?? 0))]));
  return { total: median(runs.map((r) => r.total)), byType };
}

/** The order types are listed in: as a call meets them. */
const ORDER = ['start', 'marker', 'activity', 'timer', 'upsert', 'heartbeat', 'signal', 'update'];

function parts(c: Counted): string {
  const rank = (t: string) => (ORDER.includes(t) ? ORDER.indexOf(t) : ORDER.length);
  return (
    Object.entries(c.byType)
      .filter(([, n]) => n > 0)
      .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
      .map(([t, n]) => `${t} ${fmtN(n)}`)
      .join(' · ') || 'none'
  );
}

function fmtN(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

function fmtS(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** US dollars for 1,000 calls of `actionsPerCall` at the list price. */
function per1000(actionsPerCall: number): string {
  return `$${((actionsPerCall * 1000 * PRICE_PER_MILLION_ACTIONS_USD) / 1e6).toFixed(3)}`;
}

function actionsResult(
  plan: ActionsPlan,
  byCase: Record<string, { ours: Counted[]; floor: Counted[] }>,
  byCadence: Record<string, Counted[]>,
) {
  const rows = Object.entries(byCase).map(([name, runs]) => ({
    name,
    ours: medianCount(runs.ours),
    floor: medianCount(runs.floor),
    oursRuns: runs.ours.map((r) => r.total),
    floorRuns: runs.floor.map((r) => r.total),
  }));
  const cadences = Object.entries(byCadence)
    .map(([ms, runs]) => ({ heartbeatMs: Number(ms), ...medianCount(runs) }))
    .sort((a, b) => a.heartbeatMs - b.heartbeatMs);
  const after = cases(plan)[1]?.name ?? '';
  const tables: Table[] = [
    {
      title: `Actions per call (median of ${plan.repetitions}), heartbeats every ${fmtS(DEFAULT_HEARTBEAT_MS)}`,
      columns: ['call', 'model-retry', 'floor', 'ratio', 'model-retry by type', 'floor by type'],
      rows: rows.map((r) => [
        r.name,
        fmtN(r.ours.total),
        fmtN(r.floor.total),
        fmtRatio(ratio(r.ours.total, r.floor.total)),
        parts(r.ours),
        parts(r.floor),
      ]),
      notes: [
        "From the dev server's own `action` counter. The floor is a plain workflow scheduling the same activities " +
          'and timers, with no heartbeats, no marker and no search attributes.',
      ],
    },
    {
      title: `1,000 calls at $${PRICE_PER_MILLION_ACTIONS_USD} per million actions (Temporal Cloud's list price, first tier)`,
      columns: ['call', 'model-retry', 'floor'],
      rows: rows.map((r) => [r.name, per1000(r.ours.total), per1000(r.floor.total)]),
    },
    {
      title: `${after}, by heartbeat cadence (median of ${plan.repetitions})`,
      columns: ['heartbeat every', 'actions', 'heartbeats', 'heartbeat timeout'],
      rows: cadences.map((c) => [
        `${fmtN(c.heartbeatMs)} ms`,
        fmtN(c.total),
        fmtN(c.byType.heartbeat ?? 0),
        `${fmtN(3 * c.heartbeatMs)} ms`,
      ]),
    },
  ];
  return {
    name: 'actions',
    title: actions.title,
    params: {
      ...plan,
      pricePerMillionActionsUsd: PRICE_PER_MILLION_ACTIONS_USD,
      defaultHeartbeatMs: DEFAULT_HEARTBEAT_MS,
    },
    figures: { rows, cadences },
    tables,
    notes: rows.map(
      (r) =>
        `${r.name}: ${fmtN(r.ours.total)} actions (${parts(r.ours)}) beside the floor's ${fmtN(r.floor.total)}.`,
    ),
  };
}

/**
 * The benchmark's dev server, its metrics on a port of their own. As concurrency's: the port is chosen free
 * before the server starts, and a start that lost it to one of the server's own ports is tried again.
 */
async function startServer(dbFilename: string): Promise<{ server: DevServer; metricsPort: number }> {
  for (let tryNo = 1; ; tryNo += 1) {
    const metricsPort = await freePort();
    try {
      const server = await startDevServer({ dbFilename, extraArgs: metricsArgs(metricsPort) });
      return { server, metricsPort };
    } catch (error) {
      if (tryNo >= 3) throw error;
    }
  }
}
