import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { WorkerTuning } from '../../worker/worker.js';
import type { BenchContext } from './context.js';
import { cpuSeconds, peakRssBytes, rssBytes } from './proc.js';

/** A model-retry worker process started by the bench. */
export interface WorkerProcess {
  pid: number;
  taskQueue: string;
  /** Its resident memory once it was polling, before any work. */
  rssAtReadyBytes?: number;
  /** CPU seconds it has used so far. */
  cpuSeconds(): number | undefined;
  /** Stops it (SIGTERM, graceful); resolves with its peak resident memory and CPU seconds. */
  stop(): Promise<{ peakRssBytes?: number; cpuSeconds?: number }>;
}

const SCRIPT = fileURLToPath(new URL('./worker-process.ts', import.meta.url));

/**
 * Starts `worker-process.ts` on a fresh task queue of the run's server and waits until it polls. Extra Node
 * arguments for it (e.g. `--cpu-prof --cpu-prof-dir=DIR` to profile the worker) come from `BENCH_WORKER_NODE_ARGS`.
 */
export async function startWorkerProcess(
  ctx: BenchContext,
  tuning: WorkerTuning = {},
  /** A task queue shared with other processes, and environment over the bench's (a providers file). */
  options: { taskQueue?: string; env?: Record<string, string> } = {},
): Promise<WorkerProcess> {
  const taskQueue = options.taskQueue ?? `bench-proc-${randomUUID()}`;
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      '--import',
      'tsx',
      SCRIPT,
      taskQueue,
      ctx.bundlePath,
      JSON.stringify(tuning),
    ],
    {
      env: {
        ...process.env,
        ...ctx.workerEnv,
        ...options.env,
        TEMPORAL_ADDRESS: ctx.address,
        TEMPORAL_NAMESPACE: ctx.namespace,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker process not ready in 60 s: ${stderr}`)), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker process exited (${code}) before it was ready: ${stderr}`));
    });
  });
  const pid = child.pid as number;
  const rssAtReady = rssBytes(pid);
  return {
    pid,
    taskQueue,
    ...(rssAtReady !== undefined ? { rssAtReadyBytes: rssAtReady } : {}),
    cpuSeconds: () => cpuSeconds(pid),
    async stop() {
      const peak = peakRssBytes(pid);
      const cpu = cpuSeconds(pid);
      child.kill('SIGTERM');
      await exited;
      return {
        ...(peak !== undefined ? { peakRssBytes: peak } : {}),
        ...(cpu !== undefined ? { cpuSeconds: cpu } : {}),
      };
    },
  };
}
