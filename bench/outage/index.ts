import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEALTH_ID_PREFIX } from '../../common/health.js';
import { always, fail, ok, rateLimited } from '../../loopback/index.js';
import type { Benchmark } from '../lib/benchmark.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { BENCH_KEY_ENV } from '../../test/harness/lab.js';
import { closedPort, runRecovery } from './recovery.js';
import { outageTables } from './tables.js';
import type { OutageRow } from './tables.js';
import { runWave } from './wave.js';
import { startWorkerProcess } from '../../test/harness/spawn/index.js';

import { FULL, QUICK } from './plan.js';
import type { OutagePlan } from './plan.js';

/** The providers file: A and B through the loopback, A at a closed port, and the recovery's A; health off and on. */
function providersFile(
  ctx: BenchContext,
  plan: OutagePlan,
  dir: string,
  ports: { dead: number; back: number },
) {
  const base = { type: 'openai-compatible', apiKeyEnv: BENCH_KEY_ENV };
  const lp = { ...base, baseURL: ctx.lp.openaiBaseURL };
  const health = (coolDownMs: number) => ({
    trip: { failures: plan.threshold, windowMs: plan.windowMs },
    coolDownMs,
  });
  const file = join(dir, 'providers.json');
  writeFileSync(
    file,
    JSON.stringify({
      aoff: { ...lp, health: false },
      boff: { ...lp, health: false },
      aon: { ...lp, health: health(plan.coolDownMs) },
      bon: { ...lp, health: health(plan.coolDownMs) },
      deadoff: { ...base, baseURL: `http://127.0.0.1:${ports.dead}/v1`, health: false },
      deadon: { ...base, baseURL: `http://127.0.0.1:${ports.dead}/v1`, health: health(plan.coolDownMs) },
      back: {
        ...base,
        baseURL: `http://127.0.0.1:${ports.back}/v1`,
        health: health(plan.recoveryCoolDownMs),
      },
    }),
  );
  return file;
}

/** Ends the health workflows of the run's task queue (they run until terminated). */
async function endHealthWorkflows(ctx: BenchContext, taskQueue: string): Promise<void> {
  const query = `WorkflowId STARTS_WITH "${HEALTH_ID_PREFIX}${taskQueue}:"`;
  for await (const w of ctx.client.workflow.list({ query })) {
    if (w.status.name === 'RUNNING')
      await ctx.client.workflow.getHandle(w.workflowId).terminate('outage benchmark over');
  }
}

type Scenario = '503s, then 429 + retry-after' | 'connection refused';

/** One wave of one scenario in one mode, on fresh models (a fresh breaker). */
async function wave(ctx: BenchContext, plan: OutagePlan, taskQueue: string, scenario: Scenario, on: boolean) {
  const mode = on ? 'on' : 'off';
  const a = ctx.model('outage-a');
  const b = ctx.model('outage-b');
  ctx.lp.script(b.id, [always(ok('b'))]);
  const refused = scenario === 'connection refused';
  if (!refused) {
    // A's first answers are 503s, as many as the calls' tries with health off would use, then 429s.
    const failures = Array.from({ length: plan.calls * plan.retriesPerBackend }, () => fail(503));
    ctx.lp.script(a.id, [...failures, always(rateLimited(plan.retryAfterS))]);
  }
  const aName = `${refused ? 'dead' : 'a'}${mode}:${a.id}`;
  const figures = await runWave(ctx, {
    taskQueue,
    calls: plan.calls,
    chain: [aName, `b${mode}:${b.id}`],
    retry: retryOf(plan),
    threshold: plan.threshold,
    ...(on ? { healthBackend: aName } : {}),
    ...(refused ? {} : { loopbackModel: a.id }),
  });
  ctx.log(`bench: outage ${scenario}, health ${mode}: ${JSON.stringify(figures)}`);
  return { scenario, health: mode, ...figures } satisfies OutageRow;
}

const retryOf = (plan: OutagePlan) => ({
  retriesPerBackend: plan.retriesPerBackend,
  waits: Array.from({ length: plan.retriesPerBackend + 1 }, () => plan.waitMs),
});

/**
 * Item 9: fleet health in an outage. 200 calls at once with the chain [A, B] on two worker processes, A failing
 * (503s then 429s with a retry-after; or a closed port), B healthy: with fleet health off, then on (the order
 * alternates between scenarios); then A comes back after its trip, and the time until it gets traffic again.
 */
export const outage: Benchmark = {
  name: 'outage',
  title: '9. Outage: fleet health off and on, calls with the chain [A, B]',
  async run(ctx) {
    const plan = ctx.size === 'quick' ? QUICK : FULL;
    const dir = mkdtempSync(join(tmpdir(), 'model-retry-bench-outage-'));
    const ports = { dead: await closedPort(), back: await closedPort() };
    const env = { MODEL_RETRY_PROVIDERS: providersFile(ctx, plan, dir, ports) };
    const taskQueue = `bench-outage-${randomUUID()}`;
    const workers = await Promise.all(
      Array.from({ length: plan.workers }, () => startWorkerProcess(ctx, {}, { taskQueue, env })),
    );
    try {
      const rows: OutageRow[] = [];
      rows.push(await wave(ctx, plan, taskQueue, '503s, then 429 + retry-after', false));
      rows.push(await wave(ctx, plan, taskQueue, '503s, then 429 + retry-after', true));
      rows.push(await wave(ctx, plan, taskQueue, 'connection refused', true));
      rows.push(await wave(ctx, plan, taskQueue, 'connection refused', false));
      const a = ctx.model('outage-back');
      const b = ctx.model('outage-b');
      ctx.lp.script(b.id, [always(ok('b'))]);
      const recovery = await runRecovery(ctx, {
        taskQueue,
        chain: [`back:${a.id}`, `bon:${b.id}`],
        aModelId: a.id,
        port: ports.back,
        retry: retryOf(plan),
        coolDownMs: plan.recoveryCoolDownMs,
        intervalMs: plan.recoveryIntervalMs,
        maxCalls: plan.recoveryMaxCalls,
        giveUpMs: 3 * plan.recoveryCoolDownMs + (ctx.size === 'quick' ? 5_000 : 20_000),
      });
      ctx.log(`bench: outage recovery: ${JSON.stringify(recovery)}`);
      return {
        name: 'outage',
        title: outage.title,
        params: { ...plan },
        tables: outageTables(plan, rows, recovery),
        figures: { rows, recovery },
        notes: [
          'Health on: the goal is that what reached A stays within the attempts in flight when its breaker ' +
            'opened + the threshold + the probes; with health off every call tries A 1 + retriesPerBackend times.',
          "A at a closed port receives nothing: its attempts are counted from the calls' histories.",
        ],
      };
    } finally {
      await endHealthWorkflows(ctx, taskQueue).catch(() => undefined);
      await Promise.all(workers.map((w) => w.stop()));
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
