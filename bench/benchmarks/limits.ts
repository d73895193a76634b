import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startModelCall } from '../../client/model-call-client.js';
import { always, ok, slow } from '../../loopback/index.js';
import { BENCH_KEY_ENV } from '../lib/context.js';
import type { Benchmark } from '../lib/benchmark.js';
import { startWorkerProcess } from '../lib/worker-spawn.js';
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

/**
 * Item 7: `requestsPerSecond` for the fleet. Two worker processes poll one task queue with a providers file that
 * limits the backend to 5 requests a second; all calls start at once; the provider's measured rate over 5 s
 * windows (from the first request it received) against the limit. The last window is partial.
 */
export const limits: Benchmark = {
  name: 'limits',
  title: '7. Limits: requestsPerSecond across two worker processes',
  async run(ctx) {
    const plan = ctx.size === 'quick' ? QUICK : FULL;
    const dir = mkdtempSync(join(tmpdir(), 'model-retry-bench-limits-'));
    const model = ctx.model('limited');
    const providersFile = join(dir, 'providers.json');
    writeFileSync(
      providersFile,
      JSON.stringify({
        local: {
          type: 'openai-compatible',
          baseURL: ctx.lp.openaiBaseURL,
          apiKeyEnv: BENCH_KEY_ENV,
          models: { [model.id]: { limits: { requestsPerSecond: plan.requestsPerSecond } } },
        },
      }),
    );
    ctx.lp.script(model.id, [always(slow(50, ok('fine')))]);
    const taskQueue = `bench-limits-${randomUUID()}`;
    const workers = await Promise.all(
      Array.from({ length: plan.workers }, () =>
        startWorkerProcess(ctx, {}, { taskQueue, env: { MODEL_RETRY_PROVIDERS: providersFile } }),
      ),
    );
    try {
      const started = Date.now();
      const handles = await Promise.all(
        Array.from({ length: plan.calls }, () =>
          startModelCall(ctx.client, { model: model.name, prompt: 'hi' }, { taskQueue }),
        ),
      );
      const results = await Promise.all(handles.map((h) => h.result()));
      const elapsedMs = Date.now() - started;
      const times = ctx.lp.requests(model.id).map((r) => r.receivedAt);
      const rows = windows(times, plan.windowMs);
      const full = rows.slice(0, -1); // the last window is partial
      const rates = full.map(([, n]) => n / (plan.windowMs / 1000));
      const firstRequest = Math.min(...times);
      const spanS = (Math.max(...times) - firstRequest) / 1000;
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
      return {
        name: 'limits',
        title: limits.title,
        params: { ...plan },
        tables: [
          {
            title: `Requests the provider received per ${plan.windowMs / 1000} s window (limit ${plan.requestsPerSecond}/s, ${plan.workers} worker processes, ${plan.calls} calls)`,
            columns: ['window from (s)', 'requests', 'rate (/s)', 'vs limit'],
            rows: rows.map(([from, n], i) => {
              const rate = n / (plan.windowMs / 1000);
              const partial = i === rows.length - 1 ? ' (partial)' : '';
              return [
                fmtNum(from / 1000),
                String(n),
                fmtNum(rate) + partial,
                `${fmtNum(((rate - plan.requestsPerSecond) / plan.requestsPerSecond) * 100)} %`,
              ];
            }),
          },
        ],
        figures,
        notes: [
          'Temporal splits a queue rate limit across its partitions (4 on the dev server), each with a burst of ' +
            'max(1, ceil(rate / partitions)): the first window may hold a few more requests than the rate.',
          `Overall: ${times.length} requests over ${fmtNum(spanS)} s from the first, ${fmtNum(figures.overallRatePerSecond ?? 0)}/s.`,
        ],
      };
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
