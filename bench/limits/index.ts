import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { startModelCall } from '../../client/model-call-client.js';
import { startDevServer } from '../../worker/dev-server.js';
import { always, ok, slow } from '../../loopback/index.js';
import { BENCH_KEY_ENV } from '../../test/harness/lab.js';
import type { Benchmark } from '../lib/benchmark.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { startWorkerProcess } from '../../test/harness/spawn/index.js';
import { fmtNum } from '../lib/stats.js';

interface Plan {
  calls: number;
  requestsPerSecond: number;
  workers: number;
  windowMs: number;
}

const FULL: Plan = { calls: 100, requestsPerSecond: 5, workers: 2, windowMs: 5000 };
const QUICK: Plan = { calls: 12, requestsPerSecond: 5, workers: 2, windowMs: 1000 };

/** Requests per window from the first request on: [window start (ms from the first), requests in it]. */
function windows(times: readonly number[], windowMs: number): [number, number][] {
  if (times.length === 0) return [];
  const first = Math.min(...times);
  const counts = new Map<number, number>();
  for (const t of times) {
    const w = Math.floor((t - first) / windowMs);
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const last = Math.max(...counts.keys());
  return Array.from({ length: last + 1 }, (_, w) => [w * windowMs, counts.get(w) ?? 0]);
}

/** The dynamic config that gives every task queue of a dev server one partition (it cannot scope it by queue). */
export const ONE_PARTITION_ARGS = [
  '--dynamic-config-value',
  'matching.numTaskqueueReadPartitions=1',
  '--dynamic-config-value',
  'matching.numTaskqueueWritePartitions=1',
];

/** What one side measured. */
interface Side {
  label: string;
  rows: [number, number][];
  figures: Record<string, unknown>;
  spanS: number;
  requests: number;
}

/** Two worker processes of `server` on one task queue, all calls at once, the provider's request times. */
async function measure(
  ctx: BenchContext,
  server: { address: string; namespace: string; client: Client },
  plan: Plan,
  label: string,
  providersFile: string,
  model: { id: string; name: string },
): Promise<Side> {
  const on = { ...ctx, address: server.address, namespace: server.namespace };
  const taskQueue = `bench-limits-${randomUUID()}`;
  const env = { MODEL_RETRY_PROVIDERS: providersFile };
  const workers = await Promise.all(
    Array.from({ length: plan.workers }, () => startWorkerProcess(on, {}, { taskQueue, env })),
  );
  try {
    const started = Date.now();
    const handles = await Promise.all(
      Array.from({ length: plan.calls }, () =>
        startModelCall(server.client, { model: model.name, prompt: 'hi' }, { taskQueue }),
      ),
    );
    // A call that failed (a loaded machine) is counted, not fatal: `answered` says how many succeeded.
    const results = await Promise.all(
      handles.map((h) => h.result().catch(() => ({ stopReason: 'failed' as const }))),
    );
    const elapsedMs = Date.now() - started;
    const times = ctx.lp.requests(model.id).map((r) => r.receivedAt);
    const rows = windows(times, plan.windowMs);
    const rates = rows.slice(0, -1).map(([, n]) => n / (plan.windowMs / 1000)); // the last window is partial
    const spanS = (Math.max(...times) - Math.min(...times)) / 1000;
    const figures = {
      calls: plan.calls,
      answered: results.filter((r) => r.stopReason === 'succeeded').length,
      requests: times.length,
      limitPerSecond: plan.requestsPerSecond,
      overallRatePerSecond: spanS > 0 ? (times.length - 1) / spanS : undefined,
      fullWindowRates: rates,
      maxWindowRate: rates.length > 0 ? Math.max(...rates) : undefined,
      elapsedMs,
    };
    return { label, rows, figures, spanS, requests: times.length };
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
}

/** The providers file that limits `model` to the plan's rate. */
function writeProviders(dir: string, ctx: BenchContext, model: { id: string }, plan: Plan): string {
  const file = join(dir, `providers-${model.id}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      local: {
        type: 'openai-compatible',
        baseURL: ctx.lp.openaiBaseURL,
        apiKeyEnv: BENCH_KEY_ENV,
        models: { [model.id]: { limits: { requestsPerSecond: plan.requestsPerSecond } } },
      },
    }),
  );
  return file;
}

/** One side by side row per window: requests and rate with the default partitions, then with one. */
function table(sides: Side[], plan: Plan) {
  const n = Math.max(...sides.map((s) => s.rows.length));
  const cell = (side: Side, i: number): string[] => {
    const row = side.rows[i];
    if (row === undefined) return ['', ''];
    const rate = row[1] / (plan.windowMs / 1000);
    const partial = i === side.rows.length - 1 ? ' (partial)' : '';
    const vs = `${fmtNum(((rate - plan.requestsPerSecond) / plan.requestsPerSecond) * 100)} %`;
    return [String(row[1]), `${fmtNum(rate)}${partial}, ${vs}`];
  };
  return {
    title: `Requests the provider received per ${plan.windowMs / 1000} s window (limit ${plan.requestsPerSecond}/s, ${plan.workers} worker processes, ${plan.calls} calls)`,
    columns: [
      'window from (s)',
      ...sides.flatMap((s) => [`requests, ${s.label}`, `rate (/s), vs limit, ${s.label}`]),
    ],
    rows: Array.from({ length: n }, (_, i) => [
      fmtNum((i * plan.windowMs) / 1000),
      ...sides.flatMap((s) => cell(s, i)),
    ]),
  };
}

/**
 * Item 7: `requestsPerSecond` for the fleet. Two worker processes poll one task queue with a providers file that
 * limits the backend to 5 requests a second; all calls start at once; the provider's measured rate over 5 s
 * windows (from the first request it received) against the limit, side by side: on the run's server (Temporal's
 * default 4 partitions per queue, the rate split between them) and on a dev server of its own whose queues have one
 * partition (`ONE_PARTITION_ARGS`). The last window is partial.
 */
export const limits: Benchmark = {
  name: 'limits',
  title: '8. Limits: requestsPerSecond across two worker processes',
  async run(ctx) {
    const plan = ctx.size === 'quick' ? QUICK : FULL;
    const dir = mkdtempSync(join(tmpdir(), 'model-retry-bench-limits-'));
    const own = await startDevServer({ extraArgs: ONE_PARTITION_ARGS });
    try {
      const sides: Side[] = [];
      const runs = [
        { label: '4 partitions', server: ctx },
        { label: '1 partition', server: { ...own, client: own.env.client } },
      ];
      for (const { label, server } of runs) {
        const model = ctx.model('limited');
        ctx.lp.script(model.id, [always(slow(50, ok('fine')))]);
        const file = writeProviders(dir, ctx, model, plan);
        sides.push(await measure(ctx, server, plan, label, file, model));
      }
      return {
        name: 'limits',
        title: limits.title,
        params: { ...plan },
        tables: [table(sides, plan)],
        figures: Object.fromEntries(sides.map((s) => [s.label, s.figures])),
        notes: [
          'Temporal splits a queue rate limit across its read partitions (4 by default), each with a burst of ' +
            'max(1, ceil(rate / partitions)): the first window may hold a few more requests than the rate. ' +
            'The dev server cannot scope `matching.numTaskqueueReadPartitions` to a queue: the one-partition ' +
            'side runs on a dev server of its own.',
          ...sides.map(
            (s) =>
              `Overall, ${s.label}: ${s.requests} requests over ${fmtNum(s.spanS)} s from the first, ` +
              `${fmtNum((s.figures.overallRatePerSecond as number | undefined) ?? 0)}/s.`,
          ),
        ],
      };
    } finally {
      await own.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
