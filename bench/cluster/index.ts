import type { Benchmark } from '../lib/benchmark.js';
import { openClusterBench } from './open.js';
import { fmtMs } from '../lib/stats.js';
import { loadTable, scaleTables } from './tables.js';
import type { LoadPair, ScaleRuns } from './tables.js';
import { runLoad } from '../concurrency/load-run.js';
import type { LoadSpec } from '../concurrency/load-run.js';
import { runScale } from './scale-run.js';
import type { ScaleWorkflow } from './scale-run.js';

import { FULL, QUICK } from './plan.js';
import type { ClusterPlan } from './plan.js';

/**
 * The same loads on the run's dev server and on a cluster of the cluster tier (services as processes on
 * PostgreSQL, brought up by the benchmark on the same machine), interleaved, side by side with ratios: the
 * concurrency benchmark's load (`runLoad`), then a scale load of thousands of calls queued at once, model-retry's
 * `modelCallWorkflow` beside the floor (a plain workflow with one plain activity doing the same request).
 */
export const cluster: Benchmark = {
  name: 'cluster',
  title: '11. The cluster beside the dev server',
  async run(ctx) {
    const plan = ctx.size === 'quick' ? QUICK : FULL;
    const cb = await openClusterBench(ctx);
    try {
      const servers = [
        { name: 'dev' as const, ctx, cpu: undefined },
        { name: 'cluster' as const, ctx: cb.ctx, cpu: () => cb.cpuSeconds() },
      ];
      const loads: LoadPair[] = [];
      for (const calls of plan.sizes) {
        const pair: Partial<LoadPair> = { calls };
        for (const s of servers) {
          const target = { address: s.ctx.address, namespace: s.ctx.namespace, client: s.ctx.client };
          const figures = await runLoad(s.ctx, target, loadSpec(plan, calls, s.cpu));
          pair[s.name] = figures;
          ctx.lp.reset();
          ctx.log(`bench: cluster: ${calls} calls on the ${s.name} server: ${fmtMs(figures.completionMs)}`);
        }
        loads.push(pair as LoadPair);
      }
      const scale: Partial<ScaleRuns> = {};
      for (const workflow of ['ours', 'floor'] as const satisfies ScaleWorkflow[]) {
        for (const s of servers) {
          const figures = await runScale(s.ctx, {
            calls: plan.scaleCalls,
            workflow,
            timeoutMs: plan.scaleTimeoutMs,
            ...(s.cpu ? { serverCpuSeconds: s.cpu } : {}),
          });
          scale[`${s.name}-${workflow}`] = figures;
          ctx.lp.reset();
          ctx.log(
            `bench: cluster: scale ${workflow} on the ${s.name} server: ${figures.succeeded}/${figures.calls} ` +
              `in ${fmtMs(figures.completionMs)}` +
              (figures.firstFailure ? `; ${figures.failed} failed, the first: ${figures.firstFailure}` : ''),
          );
        }
      }
      return result(plan, loads, scale as ScaleRuns);
    } finally {
      await cb.close();
    }
  },
};

function loadSpec(plan: ClusterPlan, calls: number, cpu: (() => number | undefined) | undefined): LoadSpec {
  return {
    mode: 'modelCallWorkflow',
    eagerActivities: false,
    eagerStart: false,
    calls,
    latencyMs: plan.latencyMs,
    failureRate: 0.2,
    waitMs: plan.waitMs,
    tuning: {},
    // The same seed on both servers: the same scripts, attempt for attempt.
    seed: calls * 31,
    timeoutMs: Math.max(60_000, calls * 600),
    ...(cpu ? { serverCpuSeconds: cpu } : {}),
  };
}

function result(plan: ClusterPlan, loads: LoadPair[], scale: ScaleRuns) {
  return {
    name: 'cluster',
    title: '11. The cluster beside the dev server',
    params: { ...plan, failureRate: 0.2 },
    figures: { loads, scale },
    tables: [loadTable(plan, loads), ...scaleTables(plan, scale)],
    notes: [
      'The cluster: frontend, history, matching and worker services as separate processes on one PostgreSQL 15 ' +
        '(fsync off), 4 history shards, the dynamic config docker-compose.yml mounts (test/harness/cluster/); ' +
        'its CPU is every service process and PostgreSQL with its backends. The dev server: one process on SQLite.',
    ],
  };
}
