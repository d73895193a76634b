import { randomUUID } from 'node:crypto';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { Client, WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { WorkerPlugin } from '@temporalio/worker';
import { readCallHistory } from '../../client/history-reader.js';
import type { ModelCallFailedDetails } from '../../common/call.js';
import { ModelRetryPlugin } from '../../plugin/index.js';
import type { Benchmark } from '../lib/benchmark.js';
import { bundleAiSdkWorkflows, weatherActivities } from '../../test/harness/ai-sdk-bundle.js';
import { aiSdkCost } from './cost.js';
import { FAULT_ROWS } from './rows.js';
import type { FaultRow } from './rows.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { runWorker } from '../../test/harness/run-worker.js';
import { eventTypeName } from '../lib/history.js';
import type { History } from '../lib/history.js';
import { fmtMs } from '../lib/stats.js';
import { until } from '../../test/harness/until.js';

const SIDES = ['@temporalio/ai-sdk', 'model-retry durableModel'] as const;
type Side = (typeof SIDES)[number];

/** What one side did on one row. */
interface Outcome {
  requests: number;
  outcome: string;
  ms: number;
  /** Attempts the history shows (records, or closed model activities) and whether that is every request. */
  visible: number;
}

/**
 * The side-by-side comparison of the AI SDK surfaces: the same `generateText` agent (a weather tool whose `execute` runs an activity),
 * written on `@temporalio/ai-sdk`'s `TemporalProvider` (Temporal's default retry policy, as its users get it) and
 * on model-retry's `durableModel` (a backoff plan with the same first wait, bounded by a deadline), through the
 * fault matrix: per row, the requests the loopback provider saw, the outcome, the time to it, and whether the
 * history shows every attempt. A run still retrying at the bound is terminated and says so. Then what the
 * AI SDK surface costs each run beside `callModel` and the floor (`aiSdkCost`).
 */
export const aiSdk: Benchmark = {
  name: 'ai-sdk',
  title: '7. The AI SDK agent on @temporalio/ai-sdk and on durableModel, through the fault matrix',
  async run(ctx) {
    const quick = ctx.size === 'quick';
    const waitMs = quick ? 200 : 1000;
    const boundMs = quick ? 6000 : 30_000;
    const rows = quick
      ? FAULT_ROWS.filter((r) => ['502 once', '401 (always)', 'cancel mid-request'].includes(r.name))
      : FAULT_ROWS;
    const bundling = Date.now();
    const code = await bundleAiSdkWorkflows();
    ctx.log(`ai-sdk: agent workflows bundled with the AI SDK in ${Date.now() - bundling} ms`);
    const temporal = await startSide(ctx, code, new AiSdkPlugin({ modelProvider: loopbackProvider(ctx) }));
    const ours = await startSide(
      ctx,
      code,
      new ModelRetryPlugin({ activities: { providers: ctx.providers } }),
    );
    const results: { row: FaultRow; by: Record<Side, Outcome> }[] = [];
    try {
      for (const row of rows) {
        const by = {} as Record<Side, Outcome>;
        for (const side of SIDES) {
          by[side] = await runRow(ctx, side === 'model-retry durableModel' ? ours : temporal, side, row, {
            waitMs,
            boundMs,
          });
          ctx.log(`ai-sdk: ${row.name} on ${side}: ${by[side].outcome}, ${by[side].requests} requests`);
        }
        results.push({ row, by });
      }
    } finally {
      await temporal.stop();
      await ours.stop();
    }
    const cost = await aiSdkCost(ctx);
    return {
      name: 'ai-sdk',
      title: this.title,
      params: { firstWaitMs: waitMs, boundMs, rows: rows.length },
      figures: {
        rows: results.map((r) => ({ name: r.row.name, class: r.row.class, ...r.by })),
        ...cost.figures,
      },
      tables: [
        {
          title: `The same agent through each fault (first wait ${fmtMs(waitMs)}, runs terminated at ${fmtMs(boundMs)}; a cancel's time runs from the cancel)`,
          columns: [
            'fault',
            'class',
            'side',
            'requests',
            'outcome',
            'time to outcome',
            'history shows every attempt',
          ],
          rows: results.flatMap(({ row, by }) =>
            SIDES.map((side) => {
              const o = by[side];
              return [
                row.name,
                row.class,
                side,
                String(o.requests),
                o.outcome,
                fmtMs(o.ms),
                o.visible >= o.requests ? `yes (${o.visible})` : `no (${o.visible} of ${o.requests})`,
              ];
            }),
          ),
        },
        ...cost.tables,
      ],
      notes: [
        "@temporalio/ai-sdk's requests retry under Temporal's retry policy: a permanent error (401, 404, 400, quota) is retried until the run is stopped, and history keeps only the last failure of an activity.",
        'durableModel classifies each failure: permanent ones stop at once (or drop the backend), retry-after is honoured, a chain advances, a cut stream is not re-sent.',
        ...cost.notes,
      ],
    };
  },
};

interface SideWorker {
  taskQueue: string;
  client: Client;
  stop(): Promise<void>;
}

function loopbackProvider(ctx: BenchContext) {
  // A dummy key: the loopback provider checks none, and no real one should be in any history.
  return createOpenAICompatible({ name: 'loopback', baseURL: ctx.lp.openaiBaseURL, apiKey: 'dummy' });
}

async function startSide(ctx: BenchContext, code: string, plugin: WorkerPlugin): Promise<SideWorker> {
  const taskQueue = `bench-ai-sdk-${randomUUID()}`;
  const worker = await Worker.create({
    connection: ctx.native,
    namespace: ctx.namespace,
    taskQueue,
    workflowBundle: { code },
    activities: weatherActivities,
    plugins: [plugin],
    shutdownGraceTime: '1 second',
  });
  const client = new Client({ connection: ctx.client.connection, namespace: ctx.namespace });
  return { ...runWorker(worker, taskQueue), client };
}

/** Runs `row` on one side: the workflow to its end, or terminated at the bound; cancelled mid-request for a cancel row. */
async function runRow(
  ctx: BenchContext,
  worker: SideWorker,
  side: Side,
  row: FaultRow,
  { waitMs, boundMs }: { waitMs: number; boundMs: number },
): Promise<Outcome> {
  const ids = [ctx.model('ai-sdk'), ctx.model('ai-sdk'), ctx.model('ai-sdk')];
  const [first, second, third] = ids as [(typeof ids)[0], (typeof ids)[0], (typeof ids)[0]];
  ctx.lp.script(first.id, row.script());
  if (row.chain) {
    ctx.lp.script(second.id, row.chain[0]);
    ctx.lp.script(third.id, row.chain[1]);
  }
  const ours = side === 'model-retry durableModel';
  const workflow = `${ours ? 'durable' : 'temporal'}${row.stream ? 'Stream' : 'Agent'}Workflow`;
  const args = ours
    ? {
        model: row.chain ? ids.map((m) => m.name) : first.name,
        prompt: 'What is the weather in Paris?',
        options: {
          retry: { backoff: { initialMs: waitMs, factor: 2, maxMs: 100_000, jitterMs: 0 } },
          deadlineInMs: boundMs,
          reserveMs: 0,
          ...(row.stream ? { stream: { batchMs: 10 } } : {}),
        },
      }
    : {
        model: first.id,
        prompt: 'What is the weather in Paris?',
        retry: { initialInterval: waitMs, backoffCoefficient: 2, maximumInterval: 100_000 },
      };
  let started = Date.now();
  const handle = await worker.client.workflow.start(workflow, {
    args: [args],
    taskQueue: worker.taskQueue,
    workflowId: `bench-ai-sdk-${randomUUID()}`,
  });
  if (row.cancel) {
    await boundedWait('the first request', () => ctx.lp.requestCount(first.id) > 0, boundMs);
    // A cancel row's time runs from the cancel: how long until the workflow is closed.
    started = Date.now();
    await handle.cancel();
  }
  const outcome = await settleWithin(handle, boundMs - (Date.now() - started));
  const ms = Date.now() - started;
  const history = await handle.fetchHistory();
  const requests = ids.reduce((n, m) => n + ctx.lp.requestCount(m.id), 0);
  let text = outcome;
  if (row.cancel) {
    // Did the request in flight end when the workflow was cancelled (a second later at most), or is it still open?
    await boundedWait('the request to end', () => ctx.lp.requests(first.id)[0]?.endedAt !== undefined, 2000);
    text += ctx.lp.requests(first.id)[0]?.endedAt !== undefined ? '; request aborted' : '; request left open';
  }
  return {
    requests,
    outcome: text,
    ms,
    visible: ours ? readCallHistory(history).attempts.length : closedActivities(history),
  };
}

/** Waits for the run's end; a run still going at the bound is terminated. */
async function settleWithin(handle: WorkflowHandle, leftMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'bound'>((resolve) => {
    timer = setTimeout(() => resolve('bound'), Math.max(0, leftMs));
  });
  try {
    const ended = await Promise.race([handle.result().then(() => 'answered', describeFailure), bound]);
    if (ended !== 'bound') return ended;
    await handle.terminate('benchmark bound reached');
    return 'still retrying at the bound (terminated)';
  } finally {
    clearTimeout(timer);
  }
}

function describeFailure(error: unknown): string {
  if (!(error instanceof WorkflowFailedError)) return `ended: ${(error as Error).name}`;
  let cause: unknown = error.cause;
  while (cause instanceof Error && !(cause instanceof ApplicationFailure) && cause.cause) cause = cause.cause;
  if (error.cause?.name === 'CancelledFailure') return 'cancelled';
  if (cause instanceof ApplicationFailure) {
    const details = cause.details?.[0] as Partial<ModelCallFailedDetails> | undefined;
    return `failed: ${cause.type ?? 'Error'}${details?.stopReason ? ` (${details.stopReason})` : ''}`;
  }
  return `failed: ${(cause as Error | undefined)?.name ?? 'unknown'}`;
}

/** Attempts of a model activity the history shows: each closed activity (completed, failed, timed out, cancelled). */
function closedActivities(history: History): number {
  const closing = [
    'ActivityTaskCompleted',
    'ActivityTaskFailed',
    'ActivityTaskTimedOut',
    'ActivityTaskCanceled',
  ];
  const models = new Set(
    (history.events ?? [])
      .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name?.startsWith('invokeModel'))
      .map((e) => String(e.eventId)),
  );
  return (history.events ?? []).filter((e) => {
    if (!closing.includes(eventTypeName(e))) return false;
    const attrs =
      e.activityTaskCompletedEventAttributes ??
      e.activityTaskFailedEventAttributes ??
      e.activityTaskTimedOutEventAttributes ??
      e.activityTaskCanceledEventAttributes;
    return models.has(String(attrs?.scheduledEventId));
  }).length;
}

/** Waits until `probe` holds, at most `timeoutMs`: a bound, not a failure (the row then says what it saw). */
function boundedWait(what: string, probe: () => boolean, timeoutMs: number): Promise<unknown> {
  return until(what, () => (probe() ? true : undefined), timeoutMs, 20).catch(() => undefined);
}
