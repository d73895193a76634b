import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import type { ActivityDeps } from '../../activities/index.js';
import { createModelRetryWorker } from '../../worker/worker.js';

/** A connection to the run's dev server, with a client and a way to start workers on fresh task queues. */
export interface TestTemporal {
  client: Client;
  /** A worker on a task queue of its own, running until `stop`. */
  startWorker(options?: {
    deps?: ActivityDeps;
    shutdownGraceMs?: number;
    taskQueue?: string;
  }): Promise<TestWorker>;
  close(): Promise<void>;
}

export interface TestWorker {
  taskQueue: string;
  worker: Worker;
  /** Shuts the worker down (gracefully) and waits until it has stopped. */
  stop(): Promise<void>;
  /** Settles when the worker has stopped. */
  done: Promise<void>;
}

export async function connectTestTemporal(): Promise<TestTemporal> {
  const address = inject('temporalAddress');
  const namespace = inject('temporalNamespace');
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  const client = new Client({ connection, namespace });
  const running = new Set<TestWorker>();
  return {
    client,
    async startWorker(options = {}) {
      const taskQueue = options.taskQueue ?? `test-${randomUUID()}`;
      const worker = await createModelRetryWorker({
        connection: nativeConnection,
        namespace,
        taskQueue,
        workflowBundle: { codePath: inject('workflowBundlePath') },
        shutdownGraceMs: options.shutdownGraceMs ?? 2000,
        ...(options.deps ? { deps: options.deps } : {}),
      });
      const done = worker.run();
      const handle: TestWorker = {
        taskQueue,
        worker,
        async stop() {
          running.delete(handle);
          if (worker.getState() === 'RUNNING') worker.shutdown();
          await done;
        },
        done,
      };
      running.add(handle);
      return handle;
    },
    async close() {
      await Promise.all([...running].map((w) => w.stop()));
      await nativeConnection.close();
      await connection.close();
    },
  };
}
