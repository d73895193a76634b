import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import type { Worker, WorkerPlugin } from '@temporalio/worker';
import { inject } from 'vitest';
import type { ActivityDeps } from '../../activities/index.js';
import { createModelRetryWorkers } from '../../worker/worker.js';
import { LARGE_MESSAGE_CHANNEL_ARGS } from '../../client/connection-options.js';

/** A connection to the run's dev server, with a client and a way to start workers on fresh task queues. */
export interface TestTemporal {
  client: Client;
  /** The workers' connection, for a test that creates a Worker of its own (closed by `close`). */
  nativeConnection: NativeConnection;
  /** A worker on a task queue of its own, running until `stop`. */
  startWorker(options?: {
    deps?: ActivityDeps;
    shutdownGraceMs?: number;
    taskQueue?: string;
    /** Payload codecs for this worker (`createDataConverter`). */
    dataConverter?: DataConverter;
    /** The worker's `heartbeatThrottleMs` (how soon an attempt learns of its cancellation). */
    heartbeatThrottleMs?: number;
    /** A workflow bundle other than the run's (one built with the encoding failure converter). */
    workflowBundlePath?: string;
    /** The worker's identity (history's `ActivityTaskStarted` names it): tells in-process workers apart. */
    identity?: string;
    /** Worker plugins (a test's activity interceptors, say). */
    plugins?: WorkerPlugin[];
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

/** `dataConverter`: the client's payload codecs (`createDataConverter`); by default Temporal's own. */
export async function connectTestTemporal(
  options: { dataConverter?: DataConverter } = {},
): Promise<TestTemporal> {
  const address = inject('temporalAddress');
  const namespace = inject('temporalNamespace');
  const connection = await Connection.connect({ address, channelArgs: LARGE_MESSAGE_CHANNEL_ARGS });
  const nativeConnection = await NativeConnection.connect({ address });
  const client = new Client({
    connection,
    namespace,
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
  });
  const running = new Set<TestWorker>();
  return {
    client,
    nativeConnection,
    async startWorker(options = {}) {
      const taskQueue = options.taskQueue ?? `test-${randomUUID()}`;
      const workers = await createModelRetryWorkers({
        connection: nativeConnection,
        namespace,
        taskQueue,
        workflowBundle: { codePath: options.workflowBundlePath ?? inject('workflowBundlePath') },
        shutdownGraceMs: options.shutdownGraceMs ?? 2000,
        ...(options.deps ? { deps: options.deps } : {}),
        ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
        ...(options.heartbeatThrottleMs !== undefined
          ? { heartbeatThrottleMs: options.heartbeatThrottleMs }
          : {}),
        ...(options.identity !== undefined ? { identity: options.identity } : {}),
        ...(options.plugins !== undefined ? { plugins: options.plugins } : {}),
      });
      const { worker } = workers;
      const done = workers.run();
      const handle: TestWorker = {
        taskQueue,
        worker,
        async stop() {
          running.delete(handle);
          workers.shutdown();
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
