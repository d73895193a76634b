import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { startDevServer } from '../../worker/dev-server.js';
import type { DevServer } from '../../worker/dev-server.js';
import { freePort } from '../../worker/free-port.js';
import { metricsArgs, readServerRequests } from '../lib/server-requests.js';
import type { Benchmark } from '../lib/benchmark.js';
import { fmtMs } from '../lib/stats.js';
import { concurrencyResult } from './tables.js';
import { FULL, loadKey, MODES, QUICK } from './plan.js';
import type { ConcurrencyPlan, EagerSetting } from './plan.js';
import { runLoad } from './load-run.js';
import type { LoadFigures, LoadMode, LoadSpec, LoadTarget } from './load-run.js';

/**
 * Item 3: many concurrent calls, model-retry beside the platform's floor. Each load starts `calls` calls at once
 * from a client in the worker's own process, on a fresh worker process, for each mode (`modelCallWorkflow` from a
 * client, `callModel` in a user's workflow, the floor), at each failure rate, the modes interleaved round by round
 * with the same seeded failures. It runs on a dev server of its own that allows eager activities
 * (`system.enableActivityEagerExecution`), so eager activities and eager workflow start are measured on and off,
 * the switch being the worker's and the client's request.
 */
export const concurrency: Benchmark = {
  name: 'concurrency',
  title: '3. Concurrent calls on this machine, beside the floor',
  async run(ctx) {
    const plan = ctx.size === 'quick' ? QUICK : FULL;
    const started = Date.now();
    const dir = mkdtempSync(join(tmpdir(), 'model-retry-bench-concurrency-'));
    const { server, metricsPort } = await startServer(join(dir, 'concurrency.sqlite'));
    const connection = await Connection.connect({ address: server.address });
    const serverRequests = () => readServerRequests(metricsPort);
    const target: LoadTarget = {
      address: server.address,
      namespace: server.namespace,
      client: new Client({ connection, namespace: server.namespace }),
    };
    const runs = new Map<string, LoadFigures[]>();
    const load = async (mode: LoadMode, rate: number, eager: EagerSetting | undefined, round: number) => {
      const figures = await runLoad(ctx, target, { ...spec(plan, mode, rate, eager, round), serverRequests });
      const key = loadKey(mode, rate, eager?.name ?? 'off');
      runs.set(key, [...(runs.get(key) ?? []), figures]);
      ctx.lp.reset();
      ctx.log(`bench: concurrency ${key}: ${figures.calls} calls in ${fmtMs(figures.completionMs)}`);
    };
    // One round runs every load once: each cell (failure rate, eager setting) runs its modes one after the other,
    // their order rotating from round to round, so ours and the floor's of a round meet the same minutes.
    const round = async (n: number) => {
      for (const rate of plan.failureRates)
        for (const mode of rotate(MODES, n)) await load(mode, rate, undefined, n);
      for (const eager of plan.eager)
        for (const mode of rotate(MODES, n)) await load(mode, plan.eagerRate, eager, n);
    };
    try {
      const first = Date.now();
      for (let n = 0; n < plan.maxRounds; n += 1) {
        const perRound = n === 0 ? 0 : (Date.now() - first) / n;
        if (n >= plan.minRounds && Date.now() - started + perRound > plan.budgetMs) break;
        await round(n);
      }
    } finally {
      await connection.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    return concurrencyResult(plan, runs);
  },
};

/**
 * The benchmark's dev server: eager activities allowed, its metrics on a port of their own (the requests per call).
 * The metrics port is chosen free before the server starts, and the server picks its internal services' ports
 * itself: should one of them take the same port the start fails, and is tried again with another.
 */
async function startServer(dbFilename: string): Promise<{ server: DevServer; metricsPort: number }> {
  for (let tryNo = 1; ; tryNo += 1) {
    const metricsPort = await freePort();
    try {
      const server = await startDevServer({
        dbFilename,
        extraArgs: [
          '--dynamic-config-value',
          'system.enableActivityEagerExecution=true',
          ...metricsArgs(metricsPort),
        ],
      });
      return { server, metricsPort };
    } catch (error) {
      if (tryNo >= 3) throw error;
    }
  }
}

function rotate<T>(items: readonly T[], n: number): T[] {
  const k = n % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

function spec(
  plan: ConcurrencyPlan,
  mode: LoadMode,
  failureRate: number,
  eager: EagerSetting | undefined,
  round: number,
): LoadSpec {
  return {
    mode,
    calls: plan.calls,
    latencyMs: plan.latencyMs,
    failureRate,
    waitMs: plan.waitMs,
    tuning: {},
    // Every mode of a round meets the same failures, call by call.
    seed: Math.round(failureRate * 1000) * 31 + round * 7919,
    timeoutMs: Math.max(60_000, plan.calls * 600),
    eagerActivities: eager?.eagerActivities ?? false,
    eagerStart: eager?.eagerStart ?? false,
  };
}
