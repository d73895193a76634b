import { execFileSync } from 'node:child_process';
import { spawnCli } from './cli.js';
import type { SpawnedCli } from './cli.js';

/** A `model-retry worker` process started with the real command line. */
export interface WorkerProcess {
  pid: number;
  /** The worker identity Temporal records for it (the SDK's default, `<pid>@<host>`) starts with this. */
  identityPrefix: string;
  cli: SpawnedCli;
  /** `kill -9`, then waits until the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM (graceful shutdown), then waits until the process is gone; SIGKILL if it outlives `timeoutMs`. */
  stop(timeoutMs?: number): Promise<void>;
}

export interface WorkerProcessOptions {
  /** `TEMPORAL_ADDRESS` of the worker. */
  address: string;
  taskQueue: string;
  providersFile: string;
  /** More environment (the providers' key variables). */
  env?: NodeJS.ProcessEnv;
  /** @default 2000 */
  shutdownGraceMs?: number;
  /** How long the worker may take to bundle its workflows and start polling. @default 180000 */
  readyTimeoutMs?: number;
}

/**
 * Starts `node bin/model-retry.js worker --providers FILE --task-queue Q` with `TEMPORAL_ADDRESS` set, and
 * resolves once it says it is polling.
 */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const cli = spawnCli(
    [
      'worker',
      '--providers',
      options.providersFile,
      '--task-queue',
      options.taskQueue,
      '--shutdown-grace-ms',
      String(options.shutdownGraceMs ?? 2000),
    ],
    { ...options.env, TEMPORAL_ADDRESS: options.address },
  );
  const pid = cli.child.pid;
  if (pid === undefined) throw new Error('model-retry worker did not start');
  try {
    await cli.waitFor(/polling task queue/, options.readyTimeoutMs ?? 180_000);
  } catch (error) {
    cli.child.kill('SIGKILL');
    await cli.exited;
    throw error;
  }
  const ended = async (timeoutMs: number) => {
    const timer = setTimeout(() => cli.child.kill('SIGKILL'), timeoutMs);
    await cli.exited;
    clearTimeout(timer);
  };
  return {
    pid,
    identityPrefix: `${pid}@`,
    cli,
    async kill9() {
      if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
      await cli.exited;
    },
    async stop(timeoutMs = 30_000) {
      if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGTERM');
      await ended(timeoutMs);
    },
  };
}

/**
 * The pid of the `temporal server start-dev` process that serves `dbFilename` (the dev server is a child of
 * the Temporal SDK's native code, so it is found by its command line).
 */
export function devServerPid(dbFilename: string): number {
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  const pids = lines
    .map((line) => line.trim().split(/\s+/))
    .filter(
      (words) => words.includes('start-dev') && words[words.indexOf('--db-filename') + 1] === dbFilename,
    )
    .map((words) => Number(words[0]));
  if (pids.length !== 1) throw new Error(`expected one dev server on ${dbFilename}, found ${pids.length}`);
  return pids[0] as number;
}

/** Whether a process with this pid still exists (a zombie counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    const state = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return state !== '' && !state.startsWith('Z');
  } catch {
    return false;
  }
}
