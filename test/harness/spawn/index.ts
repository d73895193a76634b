import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkerTuning } from '../../../worker/worker.js';
import type { BenchContext } from '../lab.js';
import type {
  LoadWorkerReport,
  LoadWorkerSpec,
  LoadWorkerKind,
  WorkerProcessSpec,
} from './load-worker-spec.js';
import { cpuSeconds, peakRssBytes, rssBytes } from './proc.js';

/** A bench process (a worker, or a worker and its client) that polls until it is stopped. */
export interface WorkerProcess {
  pid: number;
  /** Its resident memory once it was polling, before any work. */
  rssAtReadyBytes?: number;
  /** CPU seconds it has used so far. */
  cpuSeconds(): number | undefined;
  /** Stops it (SIGTERM, graceful); resolves with its peak resident memory and CPU seconds. */
  stop(): Promise<{ peakRssBytes?: number; cpuSeconds?: number }>;
}

/** A `worker-process.ts` with a load: a worker and its client, polling, waiting for `go()`. */
export interface LoadWorker extends WorkerProcess {
  /** Starts the load; resolves with its report once every call ended (or its time ran out). */
  go(): Promise<LoadWorkerReport>;
}

/** Starts a bench process: a `.ts` of this folder run with tsx, its argv and environment over the bench's. */
function spawnBench(script: string, args: string[], env: Record<string, string>) {
  const child = spawn(
    process.execPath,
    [
      // Extra Node arguments (e.g. `--cpu-prof --cpu-prof-dir=DIR` to profile the worker).
      ...(process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      '--import',
      'tsx',
      fileURLToPath(new URL(script, import.meta.url)),
      ...args,
    ],
    { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  /** The rest of the first line of stdout that starts with `prefix` (the process prints it when it is there). */
  const line = (prefix: string, timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      const look = () => stdout.split('\n').find((l) => l.startsWith(prefix));
      const done = (error?: Error) => {
        clearTimeout(timer);
        clearInterval(poll);
        if (error) reject(error);
      };
      const timer = setTimeout(
        () => done(new Error(`${script}: no "${prefix}" in ${timeoutMs} ms: ${stderr}`)),
        timeoutMs,
      );
      const poll = setInterval(() => {
        const found = look();
        if (found === undefined) return;
        done();
        resolve(found.slice(prefix.length).trim());
      }, 20);
      void exited.then((code) => done(new Error(`${script} exited (${code}) before "${prefix}": ${stderr}`)));
    });
  const ready = async (): Promise<WorkerProcess & { send(text: string): void; line: typeof line }> => {
    await line('ready', 60_000);
    const pid = child.pid as number;
    const rssAtReady = rssBytes(pid);
    return {
      pid,
      ...(rssAtReady !== undefined ? { rssAtReadyBytes: rssAtReady } : {}),
      cpuSeconds: () => cpuSeconds(pid),
      send: (text) => child.stdin.write(`${text}\n`),
      line,
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
  };
  return ready();
}

/**
 * Starts `worker-process.ts` on a fresh task queue of the run's server (model-retry's worker, or with
 * `kind: 'floor'` the floor's) and waits until it polls.
 */
export async function startWorkerProcess(
  ctx: BenchContext,
  tuning: WorkerTuning = {},
  /** A task queue shared with other processes, and environment over the bench's (a providers file). */
  options: { taskQueue?: string; env?: Record<string, string>; kind?: LoadWorkerKind } = {},
): Promise<WorkerProcess & { taskQueue: string }> {
  const taskQueue = options.taskQueue ?? `bench-proc-${randomUUID()}`;
  const spec: WorkerProcessSpec = {
    kind: options.kind ?? 'model-retry',
    taskQueue,
    bundlePath: ctx.bundlePath,
    tuning,
  };
  const proc = await spawnWorkerProcess(spec, {
    ...ctx.workerEnv,
    ...options.env,
    TEMPORAL_ADDRESS: ctx.address,
    TEMPORAL_NAMESPACE: ctx.namespace,
  });
  return { ...proc, taskQueue };
}

/** Starts `worker-process.ts` on `spec` (written to a temporary file, removed once it polls). */
async function spawnWorkerProcess(spec: WorkerProcessSpec, env: Record<string, string>) {
  const specFile = join(tmpdir(), `model-retry-worker-${randomUUID()}.json`);
  writeFileSync(specFile, JSON.stringify(spec));
  return spawnBench('./worker-process.ts', [specFile], env).finally(() => rmSync(specFile, { force: true }));
}

/** Starts `worker-process.ts` with a load against `address` and waits until it polls. */
export async function startLoadWorker(
  spec: LoadWorkerSpec,
  target: { address: string; namespace: string; env: Record<string, string> },
): Promise<LoadWorker> {
  const env = { ...target.env, TEMPORAL_ADDRESS: target.address, TEMPORAL_NAMESPACE: target.namespace };
  const proc = await spawnWorkerProcess(spec, env);
  return {
    ...proc,
    async go() {
      const done = proc.line('done ', spec.timeoutMs + 60_000);
      proc.send('go');
      return JSON.parse(await done) as LoadWorkerReport;
    },
  };
}
