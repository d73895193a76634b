import { randomUUID } from 'node:crypto';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { Client } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { weatherActivities } from '../../bench/lib/ai-sdk.js';
import { inject } from 'vitest';
import { ModelRetryPlugin } from '../../plugin/index.js';
import type { ModelRetryPluginOptions } from '../../plugin/index.js';
import { fetchDecodedHistory } from '../../client/decode-history.js';
import { readCallHistory } from '../../client/history-reader.js';
import type { AttemptRecord } from '../../common/call.js';
import { settle } from './settle.js';
import type { ModelCallFixture } from './model-call.js';
import { expectNoSecrets } from './model-call.js';

export { bundleAiSdkWorkflows } from '../../bench/lib/ai-sdk.js';

/** A running worker of the AI SDK workflows with a client for it. */
export interface AiSdkWorker {
  taskQueue: string;
  client: Client;
  stop(): Promise<void>;
}

/**
 * A Worker and a Client given `plugin` (model-retry's, or `@temporalio/ai-sdk`'s on the loopback provider when
 * `temporal`), running the bundled AI SDK workflows and the weather activity.
 */
export async function startAiSdkWorker(
  fx: ModelCallFixture,
  code: string,
  options: { plugin?: ModelRetryPluginOptions; temporal?: true },
): Promise<AiSdkWorker> {
  const namespace = inject('temporalNamespace');
  const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  const taskQueue = `ai-sdk-${randomUUID()}`;
  const plugin = options.temporal
    ? new AiSdkPlugin({
        // A dummy key: Temporal's integration is not ours to scrub, and the run's histories are swept for keys.
        modelProvider: createOpenAICompatible({
          name: 'loopback',
          baseURL: fx.lp.openaiBaseURL,
          apiKey: 'dummy',
        }),
      })
    : new ModelRetryPlugin(options.plugin);
  const worker = await Worker.create({
    connection,
    namespace,
    taskQueue,
    workflowBundle: { code },
    activities: weatherActivities,
    plugins: [plugin],
    shutdownGraceTime: '2 seconds',
  });
  const running = worker.run();
  const client = new Client({ connection: fx.temporal.client.connection, namespace, plugins: [plugin] });
  return {
    taskQueue,
    client,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

/** One workflow run to its end: its result or failure, and every model call's records rebuilt from history. */
export async function finishAiSdkRun<T>(handle: WorkflowHandle) {
  const { result, failure } = await settle(handle);
  const history: temporal.api.history.v1.IHistory = await fetchDecodedHistory(handle);
  expectNoSecrets(await handle.fetchHistory(), handle.workflowId);
  const records: AttemptRecord[] = readCallHistory(history).attempts;
  return { result: result as T | undefined, failure, history, records };
}
