import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, peakRssBytes, rssBytes } from './proc.js';
import type { LoadWorkerReport, LoadWorkerSpec } from './load-worker-spec.js';

/** A `load-worker.ts` process: a worker and its client, polling, waiting for `go()`. */
export interface LoadWorker {
  pid: number;
  /** Its resident memory once it was polling, before any work. */
  rssAtReadyBytes?: number;
  /** CPU seconds it has used so far. */
  cpuSeconds(): number | undefined;
  /** Starts the load; resolves with its report once every call ended (or its time ran out). */
  go(): Promise<LoadWorkerReport>;
  /** Stops it (SIGTERM, graceful); resolves with its peak resident memory. */
  stop(): Promise<{ peakRssBytes?: number }>;
}

const SCRIPT = fileURLToPath(new URL('./load-worker.ts', import.meta.url));

/**
 * Starts `load-worker.ts` against `address` and waits until it polls. Extra Node arguments for it (e.g.
 * `--cpu-prof --cpu-prof-dir=DIR` to profile the worker) come from `BENCH_WORKER_NODE_ARGS`.
 */
export async function startLoadWorker(
  spec: LoadWorkerSpec,
  target: { address: string; namespace: string; env: Record<string, string> },
): Promise<LoadWorker> {
  const specFile = join(tmpdir(), `model-retry-load-${randomUUID()}.json`);
  writeFileSync(specFile, JSON.stringify(spec));
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      '--import',
      'tsx',
      SCRIPT,
      specFile,
    ],
    {
      env: {
        ...process.env,
        ...target.env,
        TEMPORAL_ADDRESS: target.address,
        TEMPORAL_NAMESPACE: target.namespace,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const line = (prefix: string, timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`load worker: no "${prefix}" in ${timeoutMs} ms: ${stderr}`)),
        timeoutMs,
      );
      const look = () => {
        const found = stdout.split('\n').find((l) => l.startsWith(prefix));
        if (found === undefined) return;
        clearTimeout(timer);
        child.stdout.off('data', onData);
        resolve(found.slice(prefix.length).trim());
      };
      const onData = (chunk: Buffer) => {
        stdout += chunk.toString();
        look();
      };
      child.stdout.on('data', onData);
      look();
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`load worker exited (${code}) before "${prefix}": ${stderr}`));
      });
    });
  try {
    await line('ready', 60_000);
  } finally {
    rmSync(specFile, { force: true });
  }
  const pid = child.pid as number;
  const rssAtReady = rssBytes(pid);
  return {
    pid,
    ...(rssAtReady !== undefined ? { rssAtReadyBytes: rssAtReady } : {}),
    cpuSeconds: () => cpuSeconds(pid),
    async go() {
      const done = line('done ', spec.timeoutMs + 60_000);
      child.stdin.write('go\n');
      return JSON.parse(await done) as LoadWorkerReport;
    },
    async stop() {
      const peak = peakRssBytes(pid);
      child.kill('SIGTERM');
      await exited;
      return peak !== undefined ? { peakRssBytes: peak } : {};
    },
  };
}
