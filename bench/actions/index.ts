import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Worker } from '@temporalio/worker';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { subscribeCallStream } from '../../client/call-stream.js';
import { startModelCall } from '../../client/model-call-client.js';
import type { ModelCallInput } from '../../common/call.js';
import { DEFAULT_HEARTBEAT_MS } from '../../common/heartbeat.js';
import { fail, ok, slow, toolCall } from '../../loopback/index.js';
import type { Step } from '../../loopback/index.js';
import { startDevServer } from '../../worker/dev-server.js';
import type { DevServer } from '../../worker/dev-server.js';
import { freePort } from '../../worker/free-port.js';
import { createModelRetryWorker, createModelRetryWorkers } from '../../worker/worker.js';
import type { Benchmark } from '../lib/benchmark.js';
import { BENCH_KEY_ENV } from '../../test/harness/lab.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { createFloorWorker } from '../../test/harness/floor/worker.js';
import { countTypes } from '../lib/history.js';
import type { Table } from '../lib/report.js';
import { actionName, actionsBetween, settledActions } from './server-actions.js';
import { metricsArgs } from '../lib/server-requests.js';
import { fmtRatio, median, ratio } from '../lib/stats.js';
import type {
  FloorPromptInput,
  FloorRetryInput,
  FloorTurnInput,
} from '../../test/harness/floor/workflows.js';

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
  /**
   * An agent turn instead of a call: model-retry's `agentTurnWorkflow`, the floor's `floorTurnWorkflow` (the same
   * activities: the tools described, a model request per step, a tool per tool call).
   */
  turn?: { prompt: string; tools: string[]; maxSteps: number };
  /**
   * The provider of model-retry's call, one of the guarded worker's (`GUARDED`): fleet health, limits or both on
   * it. Absent: `local` on the default worker. The floor's call is on `local`, as a plain workflow has neither.
   */
  provider?: GuardedProvider;
  /** Calls started at once, counted together and divided by their number. @default 1 */
  calls?: number;
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
  /** Calls at once of the "fleet health on" case that shows its signals batched. */
  healthCallsAtOnce: number;
}

const FULL: ActionsPlan = {
  repetitions: 3,
  answerAfterMs: [10_000, 60_000],
  waitMs: 1000,
  stream: { deltas: 20, chunkDelayMs: 500, batchMs: 500 },
  cadencesMs: [250, 1000, 10_000],
  healthCallsAtOnce: 10,
};

/** The smoke size: the same cases, short (no answer waits long enough for a heartbeat at the default). */
const QUICK: ActionsPlan = {
  repetitions: 1,
  answerAfterMs: [1500],
  waitMs: 50,
  stream: { deltas: 4, chunkDelayMs: 100, batchMs: 100 },
  cadencesMs: [500],
  healthCallsAtOnce: 3,
};

/** Temporal Cloud's list price per million actions, in US dollars (the first tier), for the cost column. */
export const PRICE_PER_MILLION_ACTIONS_USD = 50;

const PROMPT = 'count my actions';

/**
 * The guarded worker's providers (the loopback provider under other names): fleet health on (one state for the
 * provider, so that every call of the run, each on a model of its own, feeds one health workflow), a
 * `requestsPerSecond` limit (attempts on the provider's limit queue), and both (a cooling check before each
 * attempt on the limit queue).
 */
const GUARDED = { health: 'healthy', limits: 'limited', both: 'guarded' } as const;
type GuardedProvider = (typeof GUARDED)[keyof typeof GUARDED];
/** The limit: far above one call at a time, so that no attempt waits for a token. */
const LIMIT_RPS = 20;
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
    {
      name: 'agent turn, one tool call',
      script: () => [toolCall('calculator', { expression: '6 * 7' }), ok('42')],
      ours: { prompt: 'Calculate, then answer.' },
      floor: { waits: [] },
      turn: { prompt: 'Calculate, then answer.', tools: ['calculator'], maxSteps: 3 },
    },
    {
      name: 'fleet health on',
      script: () => [ok()],
      ours: { prompt: PROMPT },
      floor: { waits: [] },
      provider: GUARDED.health,
    },
    {
      name: `fleet health on, ${plan.healthCallsAtOnce} calls at once (per call)`,
      script: () => [ok()],
      ours: { prompt: PROMPT },
      floor: { waits: [] },
      provider: GUARDED.health,
      calls: plan.healthCallsAtOnce,
    },
    {
      name: 'limits on (requestsPerSecond)',
      script: () => [ok()],
      ours: { prompt: PROMPT },
      floor: { waits: [] },
      provider: GUARDED.limits,
    },
    {
      name: 'limits and fleet health on',
      script: () => [ok()],
      ours: { prompt: PROMPT },
      floor: { waits: [] },
      provider: GUARDED.both,
    },
  ];
}

/** One run's actions by type, and their sum. */
interface Counted {
  total: number;
  byType: Record<string, number>;
}

/**
 * Billable actions per call, from the dev server's own `action` metric, for model-retry's call beside the
 * platform's floor (a plain workflow scheduling the same activities and timers, test/harness/floor/workflows.ts) in the
 * same run, on a dev server of its own (its metrics port; nothing else runs in its namespace). Each call runs
 * alone (a row of calls at once runs them together), and its count is what the counter moved from before its start
 * until it settled after its end: for fleet health, also the worker's batched signal and the health workflow's
 * memo upsert that follow the call's end.
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
    const workers: { worker: Pick<Worker, 'run' | 'shutdown'>; done: Promise<void> }[] = [];
    const start = async (
      make: (taskQueue: string) => Promise<Pick<Worker, 'run' | 'shutdown'>>,
    ): Promise<string> => {
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
    const count = async (run: () => Promise<unknown>): Promise<Counted> => {
      const before = await settledActions(metricsPort, server.namespace);
      await run();
      const byType = named(actionsBetween(before, await settledActions(metricsPort, server.namespace)));
      return { total: Object.values(byType).reduce((a, b) => a + b, 0), byType };
    };
    const byCase: Record<string, { ours: Counted[]; floor: Counted[] }> = {};
    const byCadence: Record<string, Counted[]> = {};
    const firstCalls: Record<string, Counted & { historyMarkers: number; workflowTasks: number }> = {};
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
      // Limit queues need createModelRetryWorkers (a worker per limit queue beside the main one).
      const guarded = await start((taskQueue) =>
        createModelRetryWorkers({
          connection: native,
          namespace: server.namespace,
          taskQueue,
          workflowBundle: { codePath: ctx.bundlePath },
          shutdownGraceMs: 2000,
          deps: { providers: guardedProviders(ctx) },
          warn: () => undefined,
        }),
      );
      const list = cases(plan);
      // The first call on a backend with health on also starts its health workflow (once per backend and task
      // queue): counted apart, so that the rows show what every further call costs.
      for (const c of list.filter((x) => x.provider !== undefined && x.calls === undefined)) {
        if (c.provider === GUARDED.limits) continue;
        let ids: string[] = [];
        const counted = await count(async () => {
          ids = await runOurs(ctx, client, guarded, c);
        });
        // Its history's markers (the worker's config, and a cooling check where there is one) beside the billed.
        const types = countTypes(await client.workflow.getHandle(ids[0] as string).fetchHistory());
        firstCalls[c.name] = {
          ...counted,
          historyMarkers: types.get('MarkerRecorded') ?? 0,
          workflowTasks: types.get('WorkflowTaskCompleted') ?? 0,
        };
        ctx.lp.reset();
      }
      for (let rep = 0; rep < plan.repetitions; rep += 1) {
        for (const c of list) {
          const entry = (byCase[c.name] ??= { ours: [], floor: [] });
          const n = c.calls ?? 1;
          const queue = c.provider === undefined ? ours : guarded;
          entry.ours.push(perCall(await count(() => runOurs(ctx, client, queue, c)), n));
          entry.floor.push(perCall(await count(() => runFloor(ctx, client, floor, c)), n));
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
    return actionsResult(plan, byCase, byCadence, firstCalls);
  },
};

/** The guarded worker's providers (`GUARDED`): the loopback provider with health, a limit, or both on it. */
function guardedProviders(ctx: BenchContext) {
  const base = {
    type: 'openai-compatible' as const,
    baseURL: ctx.lp.openaiBaseURL,
    apiKeyEnv: BENCH_KEY_ENV,
  };
  const health = { scope: 'provider' as const };
  const limits = { requestsPerSecond: LIMIT_RPS };
  return createProviderRegistry(
    {
      [GUARDED.health]: { ...base, health },
      [GUARDED.limits]: { ...base, limits },
      [GUARDED.both]: { ...base, health, limits },
    },
    { env: ctx.workerEnv },
  );
}

/** A count of `n` calls at once, per call. */
function perCall(c: Counted, n: number): Counted {
  if (n === 1) return c;
  const byType = Object.fromEntries(Object.entries(c.byType).map(([t, v]) => [t, v / n]));
  return { total: c.total / n, byType };
}

/** Runs the case's calls (at once) on model-retry's worker of `taskQueue`, each on a model of its own. */
async function runOurs(
  ctx: BenchContext,
  client: Client,
  taskQueue: string,
  c: ActionCase,
): Promise<string[]> {
  return Promise.all(Array.from({ length: c.calls ?? 1 }, () => oneOfOurs(ctx, client, taskQueue, c)));
}

async function oneOfOurs(ctx: BenchContext, client: Client, taskQueue: string, c: ActionCase) {
  const model = ctx.model('actions');
  ctx.lp.script(model.id, c.script());
  const name = c.provider === undefined ? model.name : `${c.provider}:${model.id}`;
  const workflowId = `bench-actions-${randomUUID()}`;
  const handle = c.turn
    ? await startAgentTurn(client, { model: name, ...c.turn }, { taskQueue, workflowId })
    : await startModelCall(client, { model: name, ...c.ours }, { taskQueue, workflowId });
  const reading = c.subscribed ? readStream(client, handle.workflowId) : Promise.resolve();
  await Promise.all([settle(handle), reading]);
  return workflowId;
}

async function runFloor(ctx: BenchContext, client: Client, taskQueue: string, c: ActionCase) {
  await Promise.all(Array.from({ length: c.calls ?? 1 }, () => oneFloor(ctx, client, taskQueue, c)));
}

async function oneFloor(ctx: BenchContext, client: Client, taskQueue: string, c: ActionCase) {
  const model = ctx.model('actions-floor');
  ctx.lp.script(model.id, c.script());
  const workflowId = `bench-actions-floor-${randomUUID()}`;
  const handle = c.turn
    ? await client.workflow.start('floorTurnWorkflow', {
        taskQueue,
        workflowId,
        args: [{ model: model.name, ...c.turn } satisfies FloorTurnInput],
      })
    : c.floor.stream
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
const ORDER = [
  'start',
  'marker',
  'activity',
  'timer',
  'upsert',
  'heartbeat',
  'signal',
  'update',
  'signal-with-start',
  'memo',
];

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
  firstCalls: Record<string, Counted & { historyMarkers: number; workflowTasks: number }>,
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
        'The agent turn: the tools described, a step asking for the calculator, the tool, a step answering ' +
          '(`agentTurnWorkflow` beside `floorTurnWorkflow`, the same four activities).',
        `Fleet health and limits: model-retry's call on a provider with \`health\` (one state for the provider), ` +
          `with \`requestsPerSecond: ${LIMIT_RPS}\` (its attempt on the provider's limit queue), or both; the ` +
          "floor's is the plain call, which has neither. Calls at once are counted together and divided by their " +
          'number: a worker sends the outcomes of its attempts on a backend in one signal per 250 ms at most.',
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
    figures: { rows, cadences, firstCalls },
    tables,
    notes: [
      ...rows.map(
        (r) =>
          `${r.name}: ${fmtN(r.ours.total)} actions (${parts(r.ours)}) beside the floor's ${fmtN(r.floor.total)}.`,
      ),
      ...Object.entries(firstCalls).map(
        ([name, c]) =>
          `${name}, the first call on the backend (its signal-with-start starts the backend's health workflow, ` +
          `once per backend and task queue; not in the rows above): ${fmtN(c.total)} actions (${parts(c)}); ` +
          `its history has ${c.historyMarkers} marker(s) in ${c.workflowTasks} workflow tasks.`,
      ),
    ],
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
