import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { expect, inject } from 'vitest';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import { startDevServer } from '../../worker/dev-server.js';
import { startLoopbackProvider } from '../../loopback/index.js';
import { createModelRetryWorker } from '../../worker/worker.js';
import type { TurnFixture } from './agent-turn.js';
import { TEST_API_KEY, TEST_SECRETS } from './model-call.js';
import { replayAll } from './replay.js';
import { leakReport, sweepHistories } from './secret-scan.js';
import { leakNeedles } from './secrets.js';
import { LARGE_MESSAGE_CHANNEL_ARGS } from '../../client/connection-options.js';

/** A dev server of a file's own (settings the suite's shared one must not have), with a worker and a provider. */
export interface OwnServerFixture extends TurnFixture {
  /** The task queue the worker polls. */
  taskQueue: string;
  /**
   * Replays the histories the file kept, sweeps every history of the server for the test credentials, stops
   * everything, and fails when a credential leaked.
   */
  close(): Promise<void>;
}

/**
 * Starts a dev server with `extraArgs` (e.g. lowered limits), a loopback provider (`local:<model>`, with the run's
 * test key) and model-retry's worker on `taskQueue`.
 */
export async function ownServerFixture(options: {
  extraArgs: string[];
  taskQueue: string;
}): Promise<OwnServerFixture> {
  const dir = mkdtempSync(join(tmpdir(), `model-retry-${options.taskQueue}-`));
  const server = await startDevServer({
    dbFilename: join(dir, 'server.sqlite'),
    extraArgs: options.extraArgs,
  });
  const connection = await Connection.connect({
    address: server.address,
    channelArgs: LARGE_MESSAGE_CHANNEL_ARGS,
  });
  const native = await NativeConnection.connect({ address: server.address });
  const lp = await startLoopbackProvider();
  const worker = await createModelRetryWorker({
    connection: native,
    namespace: server.namespace,
    taskQueue: options.taskQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    shutdownGraceMs: 2000,
    deps: {
      providers: createProviderRegistry(
        { local: { type: 'openai-compatible', baseURL: lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' } },
        { env: { LOOPBACK_KEY: TEST_API_KEY } },
      ),
    },
  });
  const running = worker.run();
  const client = new Client({ connection, namespace: server.namespace });
  const fx: OwnServerFixture = {
    temporal: { client },
    lp,
    histories: [],
    taskQueue: options.taskQueue,
    async close() {
      await replayAll(fx.histories);
      // This server is not the suite's: its histories are swept for the credentials here.
      const { leaks } = await sweepHistories(client, leakNeedles(TEST_SECRETS));
      worker.shutdown();
      await running;
      await native.close();
      await connection.close();
      await lp.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
      expect(leaks, leakReport(leaks)).toEqual([]);
    },
  };
  return fx;
}
