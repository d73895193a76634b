import type { Client } from '@temporalio/client';
import { startModelCall } from '../../client/model-call-client.js';
import type { ModelCallInput } from '../../common/call.js';
import { percentile } from '../lib/stats.js';
import { MAX_OUTPUT_TOKENS } from './plan.js';
import type { Plan } from './plan.js';

/** A server and the task queue its worker processes poll. */
export interface Fleet {
  client: Client;
  taskQueue: string;
}

/** One tenant's call latencies, start request to result, ms. */
export interface Latencies {
  calls: number;
  failed: number;
  p50: number;
  p95: number;
  /** The start request alone (until the server answered it): p50 and p95, ms. */
  startP50: number;
  startP95: number;
  /** From the start's answer to the result (what task queue fairness can order): p50 and p95, ms. */
  afterStartP50: number;
  afterStartP95: number;
  samplesMs: number[];
}

/** One call's times: its start request, and start request to result; undefined when it did not succeed. */
type Timed = { startMs: number; totalMs: number } | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function input(tenant: string, model: string): ModelCallInput {
  return { model, prompt: 'hi', tenant, settings: { maxOutputTokens: MAX_OUTPUT_TOKENS } };
}

/** Starts a call and waits for its end: how long it took, or undefined when it did not succeed. */
async function timedCall(fleet: Fleet, call: ModelCallInput): Promise<Timed> {
  const from = Date.now();
  try {
    const handle = await startModelCall(fleet.client, call, { taskQueue: fleet.taskQueue });
    const startMs = Date.now() - from;
    const result = await handle.result();
    return result.stopReason === 'succeeded' ? { startMs, totalMs: Date.now() - from } : undefined;
  } catch {
    return undefined;
  }
}

function latencies(samples: Timed[]): Latencies {
  const done = samples.filter((s) => s !== undefined);
  const totals = done.map((s) => s.totalMs);
  const starts = done.map((s) => s.startMs);
  const after = done.map((s) => s.totalMs - s.startMs);
  return {
    calls: samples.length,
    failed: samples.length - done.length,
    p50: percentile(totals, 50),
    p95: percentile(totals, 95),
    startP50: percentile(starts, 50),
    startP95: percentile(starts, 95),
    afterStartP50: percentile(after, 50),
    afterStartP95: percentile(after, 95),
    samplesMs: totals,
  };
}

/** The `trickle` tenant's calls, one every `trickleEveryMs`, each timed from its start request to its result. */
async function trickle(fleet: Fleet, plan: Plan, model: string): Promise<Latencies> {
  const runs: Promise<Timed>[] = [];
  for (let i = 0; i < plan.trickleCalls; i += 1) {
    runs.push(timedCall(fleet, input('trickle', model)));
    await sleep(plan.trickleEveryMs);
  }
  return latencies(await Promise.all(runs));
}

/** What one server measured: the trickle alone, then under the burst (and the burst's own latencies). */
export interface FairnessSide {
  alone: Latencies;
  underBurst: Latencies;
  burst: Latencies;
  /** When the trickle's last call and the burst's last call ended, ms from the burst's start. */
  trickleEndMs: number;
  burstEndMs: number;
  /** Trickle p50 and p95 under the burst over alone. */
  p50Ratio: number;
  p95Ratio: number;
  /** The same, from the start's answer to the result. */
  afterStartP50Ratio: number;
  afterStartP95Ratio: number;
}

/**
 * The trickle alone, then again while `burst` starts all its calls at once: the trickle begins once the burst's
 * starts are sent (a queue has formed on the server by then: the workers have few activity slots).
 */
export async function measureFairness(
  fleet: Fleet,
  plan: Plan,
  models: { burst: string; trickle: string },
): Promise<FairnessSide> {
  const alone = await trickle(fleet, plan, models.trickle);
  const t0 = Date.now();
  const burstRuns = Array.from({ length: plan.burstCalls }, () =>
    timedCall(fleet, input('burst', models.burst)),
  );
  // Let the burst's first starts land so that a backlog exists when the trickle begins.
  await sleep(Math.min(2_000, 10 * plan.burstCalls));
  const underBurst = await trickle(fleet, plan, models.trickle);
  const trickleEndMs = Date.now() - t0;
  const burst = latencies(await Promise.all(burstRuns));
  return {
    alone,
    underBurst,
    burst,
    trickleEndMs,
    burstEndMs: Date.now() - t0,
    p50Ratio: underBurst.p50 / alone.p50,
    p95Ratio: underBurst.p95 / alone.p95,
    afterStartP50Ratio: underBurst.afterStartP50 / alone.afterStartP50,
    afterStartP95Ratio: underBurst.afterStartP95 / alone.afterStartP95,
  };
}
