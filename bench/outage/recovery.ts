/**
 * The outage benchmark's recovery part: calls with the chain [A, B] arrive at a steady rate; A refuses
 * connections (nothing listens on its port) until its breaker opens, then comes back (a loopback provider starts
 * on that port and answers every request). Measured: when A gets traffic again and when its breaker closes,
 * against the cool-down, and what reached A between the trip and its return (probes only, after the trip was seen).
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { WorkflowHandle } from '@temporalio/client';
import { readHealth } from '../../activities/health/read.js';
import { readCallHistory } from '../../client/history-reader.js';
import { healthWorkflowId } from '../../common/health.js';
import type { HealthSnapshot } from '../../common/health.js';
import type { ModelCallInput } from '../../common/call.js';
import { always, ok, startLoopbackProvider } from '../../loopback/index.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { startCall } from '../lib/calls.js';

/** What the recovery part runs. */
export interface RecoverySpec {
  taskQueue: string;
  /** A (on the returned port, health on) and B, as `provider:model`; A's loopback model id. */
  chain: [string, string];
  aModelId: string;
  port: number;
  retry: NonNullable<ModelCallInput['retry']>;
  coolDownMs: number;
  /** A new call every this many ms, at most `maxCalls` in all (a slow server does not pile up calls). */
  intervalMs: number;
  maxCalls: number;
  /** How long after A's return to wait for its traffic at most (the run's bound). */
  giveUpMs: number;
}

/** What the recovery part measured (times in ms). */
export interface RecoveryFigures {
  calls: number;
  unfinished: number;
  coolDownMs: number;
  /** The breaker at A's return: its cool-down then (doubled by each failed probe) and how long it stayed open. */
  coolDownAtBackMs: number;
  openAfterBackMs: number;
  /** From A's return to its first request, and to its breaker closing (absent if not within the bound). */
  backToFirstRequestMs?: number;
  backToClosedMs?: number;
  /** From the end of the open phase (`until`, the probe's earliest) to A's first request. */
  untilToFirstRequestMs?: number;
  /** Attempts that tried A (not `CoolingDown`) before its return, trips and probes granted before it; probes in all. */
  sentBeforeBack: number;
  tripsBeforeBack: number;
  probesBeforeBack: number;
  probes: number;
  /** Requests A received once back, and calls A answered. */
  requestsAfterBack: number;
  answeredByA: number;
  /** Whether A had traffic again within one cool-down (the breaker's at the return) of its return. */
  withinOneCoolDown: boolean;
}

/** A port that nothing listens on (taken from the system, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls `probe` every 100 ms until it returns something, or `undefined` after `timeoutMs`. */
async function poll<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

/** Runs the recovery part: starts calls at a steady rate until A is closed again (or the bound), then reads them. */
export async function runRecovery(ctx: BenchContext, spec: RecoverySpec): Promise<RecoveryFigures> {
  const id = healthWorkflowId(spec.taskQueue, spec.chain[0]);
  const handles: Promise<WorkflowHandle>[] = [];
  const input = { model: spec.chain, prompt: 'hi', retry: spec.retry };
  const ticker = setInterval(() => {
    if (handles.length < spec.maxCalls) handles.push(startCall(ctx, spec.taskQueue, input));
  }, spec.intervalMs);
  const phase = (p: HealthSnapshot['breaker']['phase']) => async () => {
    const s = await readHealth(ctx.client, id);
    return s?.breaker.phase === p ? s : undefined;
  };
  const lpA = { current: undefined as Awaited<ReturnType<typeof startLoopbackProvider>> | undefined };
  try {
    const open = await poll(phase('open'), 120_000);
    if (open === undefined) throw new Error(`outage recovery: ${spec.chain[0]} never opened`);
    lpA.current = await startLoopbackProvider({
      port: spec.port,
      scripts: { [spec.aModelId]: [always(ok('a'))] },
    });
    const back = Date.now();
    const atBack = (await readHealth(ctx.client, id).catch(() => undefined)) ?? open;
    const until = atBack.breaker.until ?? back;
    const closed = await poll(phase('closed'), spec.giveUpMs);
    // The breaker's cool-down at the return is the goal's "one cool-down": probes that failed before doubled it.
    // A few more calls once closed, so that calls are answered by A again.
    await new Promise((r) => setTimeout(r, spec.intervalMs * 3));
    clearInterval(ticker);
    const ends = await Promise.all(
      handles.map(async (p) => {
        const h = await p;
        const result = await h.result().catch(() => undefined);
        return { result, history: readCallHistory(await h.fetchHistory()) };
      }),
    );
    const requests = lpA.current.requests();
    const first = requests[0]?.receivedAt;
    const sentBefore = ends
      .flatMap((e) => e.history.attempts)
      .filter((r) => r.model === spec.chain[0] && r.failure?.class !== 'CoolingDown')
      .filter((r) => Date.parse(r.startedAt) < back).length;
    const last = await readHealth(ctx.client, id).catch(() => undefined);
    return {
      calls: ends.length,
      unfinished: ends.filter((e) => e.result?.stopReason !== 'succeeded').length,
      coolDownMs: spec.coolDownMs,
      coolDownAtBackMs: atBack.breaker.coolDownMs,
      openAfterBackMs: Math.max(0, until - back),
      ...(first === undefined
        ? {}
        : { backToFirstRequestMs: first - back, untilToFirstRequestMs: first - until }),
      ...(closed === undefined ? {} : { backToClosedMs: closed.breaker.since - back }),
      sentBeforeBack: sentBefore,
      tripsBeforeBack: atBack.breaker.trips,
      probesBeforeBack: atBack.breaker.probes,
      probes: last?.breaker.probes ?? 0,
      requestsAfterBack: requests.length,
      answeredByA: ends.filter((e) => e.result?.model === spec.chain[0]).length,
      withinOneCoolDown: first !== undefined && first - back <= atBack.breaker.coolDownMs,
    };
  } finally {
    clearInterval(ticker);
    await lpA.current?.close();
  }
}
