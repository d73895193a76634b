import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { modelRetryWebpackConfigHook } from '../../plugin/index.js';
import { workflowsPath } from '../../worker/worker.js';
import type { History } from '../lib/history.js';
import { median } from '../lib/stats.js';

const noop = () => undefined;
const quiet = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };

/**
 * The two bundles a replay is measured on, each as its user builds it: model-retry's workflows as
 * `ModelRetryPlugin` and `createModelRetryWorker` bundle them (`modelRetryWebpackConfigHook`), and the floor's
 * plain workflows alone, with Temporal's defaults, as a user without model-retry would. One shared bundle would
 * make the floor instantiate model-retry's modules at every run too (Temporal does that per run for every
 * module the workflows file imports).
 */
export async function replayBundles(): Promise<{ ours: string; floor: string }> {
  const [ours, floor] = await Promise.all([
    bundleWorkflowCode({
      workflowsPath: workflowsPath(),
      logger: quiet,
      webpackConfigHook: modelRetryWebpackConfigHook(),
    }),
    bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('../../test/harness/floor/workflows.ts', import.meta.url)),
      logger: quiet,
    }),
  ]);
  return { ours: ours.code, floor: floor.code };
}

/** What replaying one history took: wall time, and this process's CPU (all threads: the SDK's core too). */
export interface ReplayTime {
  ms: number;
  cpuMs: number;
}

/**
 * One `Worker.runReplayHistories` kept open on `code`, fed one history at a time, so that replays on two
 * bundles can be interleaved history by history and each timed alone (the replay worker's start-up is paid once,
 * before the first history). `close` ends it.
 */
export function replayWorker(code: string): {
  replay(workflowId: string, history: History): Promise<ReplayTime>;
  close(): Promise<void>;
} {
  let next: { workflowId: string; history: History } | undefined;
  let closed = false;
  async function* feed() {
    while (!closed && next) {
      const item = next;
      next = undefined;
      yield item;
    }
  }
  const results = Worker.runReplayHistories({ workflowBundle: { code } }, feed());
  return {
    async replay(workflowId, history) {
      next = { workflowId, history };
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const r = await results.next();
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      if (r.done) throw new Error(`replay of ${workflowId}: the replay worker ended`);
      if (r.value.error) throw new Error(`replay of ${workflowId} failed: ${String(r.value.error)}`);
      return { ms, cpuMs: (cpu.user + cpu.system) / 1000 };
    },
    async close() {
      closed = true;
      await results.return?.(undefined);
    },
  };
}

/**
 * Replays each side's histories on its own bundle (a replay worker each), rounds interleaved side by side and
 * history by history; per side the median events and each replay's CPU and wall time per event, the first round
 * left out.
 */
export async function replayEach<K extends string>(
  sides: { key: K; code: string; histories: History[] }[],
  rounds: number,
): Promise<Map<K, { events: number; cpuPerEvent: number[]; msPerEvent: number[] }>> {
  const out = new Map(
    sides.map((s) => [
      s.key,
      {
        events: median(s.histories.map((h) => h.events?.length ?? 0)),
        cpuPerEvent: [] as number[],
        msPerEvent: [] as number[],
      },
    ]),
  );
  const workers = sides.map((s) => replayWorker(s.code));
  try {
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < Math.max(...sides.map((s) => s.histories.length)); i++) {
        for (const [k, side] of sides.entries()) {
          const history = side.histories[i];
          if (!history) continue;
          const time = await workers[k]!.replay(`${side.key}-${i}#${round}`, history);
          if (round === 0) continue;
          const events = history.events?.length ?? 1;
          out.get(side.key)?.cpuPerEvent.push(time.cpuMs / events);
          out.get(side.key)?.msPerEvent.push(time.ms / events);
        }
      }
    }
  } finally {
    await Promise.all(workers.map((w) => w.close()));
  }
  return out;
}
