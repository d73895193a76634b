import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataConverter } from '@temporalio/common';
import { afterAll, beforeAll, inject } from 'vitest';
import { chaosFixture } from './chaos.js';
import type { ChaosFixture } from './chaos.js';
import { modelCallFixture } from './model-call.js';
import type { ModelCallFixture } from './model-call.js';
import { ownServerFixture } from './own-server.js';
import type { OwnServerFixture } from './own-server.js';
import type { WorkerProcess } from './processes.js';
import { replayAll } from './replay.js';
import type { TestWorker } from './temporal.js';

/**
 * A stand-in for an object that `beforeAll` makes: filled in then with the real object's properties (getters
 * included), so that a test file names `fx` and `worker` as plain constants at the top of its `describe`, and its
 * tests use them as before. Read before `beforeAll` has run (at collection time), it is empty.
 */
function late<T extends object>(): { value: T; fill(real: T): void } {
  const value = {} as T;
  return { value, fill: (real) => Object.defineProperties(value, Object.getOwnPropertyDescriptors(real)) };
}

/** What `useFixture` gives a test file. */
export interface UsedFixture {
  /** The suite's dev server, a loopback provider and a provider registry pointing at it (`modelCallFixture`). */
  fx: ModelCallFixture;
  /** A worker with the fixture's providers, on a task queue of its own (none with `worker: false`). */
  worker: TestWorker;
  /** The CLI's environment: the suite's server and namespace, and the worker's task queue. */
  env: NodeJS.ProcessEnv;
}

/**
 * The set-up every integration file on the suite's dev server shares, called at the top of its `describe`:
 * before the file's tests, a `modelCallFixture` and (unless `worker: false`) a worker with its providers; after
 * them, the histories the file kept (`fx.histories`) are replayed against the workflow bundle and everything is
 * closed. `dataConverter`: the client's payload codecs.
 */
export function useFixture(options: { worker?: boolean; dataConverter?: DataConverter } = {}): UsedFixture {
  const taskQueue = `test-${randomUUID()}`;
  const fx = late<ModelCallFixture>();
  const worker = late<TestWorker>();
  let opened: ModelCallFixture | undefined;
  beforeAll(async () => {
    opened = await modelCallFixture(options.dataConverter ? { dataConverter: options.dataConverter } : {});
    fx.fill(opened);
    if (options.worker === false) return;
    worker.fill(await opened.temporal.startWorker({ deps: { providers: opened.providers }, taskQueue }));
  });
  afterAll(async () => {
    if (!opened) return;
    try {
      if (opened.histories.length > 0) await replayAll(opened.histories);
    } finally {
      await opened.close();
    }
  });
  return { fx: fx.value, worker: worker.value, env: cliEnv(taskQueue) };
}

/** The CLI's environment for the suite's dev server and `taskQueue`. */
export function cliEnv(taskQueue: string): NodeJS.ProcessEnv {
  return {
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    MODEL_RETRY_TASK_QUEUE: taskQueue,
  };
}

/** A dev server of the file's own with a worker (`ownServerFixture`), for the file's tests; closed after them. */
export function useOwnServer(options: Parameters<typeof ownServerFixture>[0]): OwnServerFixture {
  const fx = late<OwnServerFixture>();
  let opened: OwnServerFixture | undefined;
  beforeAll(async () => {
    opened = await ownServerFixture(options);
    fx.fill(opened);
  });
  afterAll(async () => {
    await opened?.close();
  });
  return fx.value;
}

/**
 * A chaos file's server, provider and `workers` worker processes (`chaosFixture`), for the file's tests; closed
 * after them (which sweeps the server's histories for credentials).
 */
export function useChaosFixture(options: { workers: number }): {
  fx: ChaosFixture;
  workers: WorkerProcess[];
} {
  const fx = late<ChaosFixture>();
  const workers: WorkerProcess[] = [];
  let opened: ChaosFixture | undefined;
  beforeAll(async () => {
    opened = await chaosFixture();
    fx.fill(opened);
    const started = Array.from({ length: options.workers }, () => (opened as ChaosFixture).startWorker());
    workers.push(...(await Promise.all(started)));
  });
  afterAll(async () => {
    await opened?.close();
  });
  return { fx: fx.value, workers };
}

/** A temporary directory (`prefix` plus random letters) for the file's tests, removed after them. */
export function useTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
