import { randomUUID } from 'node:crypto';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AiSdkPlugin } from '@temporalio/ai-sdk';
import { Client, WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { weatherActivities } from './ai-sdk-bundle.js';
import { encodingFailureConverterPath } from '../../payloads/data-converter.js';
import { inject } from 'vitest';
import { ModelRetryPlugin } from '../../plugin/index.js';
import type { ModelRetryPluginOptions } from '../../plugin/index.js';
import { fetchDecodedHistory } from '../../client/decode-history.js';
import { readCallHistory } from '../../client/history-reader.js';
import type { AttemptRecord } from '../../common/call.js';
import { settle } from './settle.js';
import type { ModelCallFixture } from './model-call.js';
import { expectNoSecrets } from './model-call.js';

/** The tests' AI SDK workflows: the benchmark's agent workflows and the tests' own (`ai-sdk-workflows.ts`). */
const AI_SDK_TEST_WORKFLOWS = fileURLToPath(new URL('./ai-sdk-workflows.ts', import.meta.url));

const noop = () => undefined;
const quiet = { trace: noop, debug: noop, info: noop, log: noop, warn: console.warn, error: console.error };

/**
 * The tests' AI SDK workflows bundled as a user's worker bundles them with `ModelRetryPlugin` (its polyfills
 * first); one bundle serves both model-retry's and `@temporalio/ai-sdk`'s workers.
 */
export async function bundleAiSdkWorkflows(): Promise<string> {
  const bundle = await bundleWorkflowCode({
    workflowsPath: AI_SDK_TEST_WORKFLOWS,
    plugins: [new ModelRetryPlugin()],
    failureConverterPath: encodingFailureConverterPath(),
    logger: quiet,
  });
  return bundle.code;
}

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

/**
 * How a run ended, without hanging on one that never will: its status and what it failed with, or
 * `TASK_FAILED` with the message of the first failed workflow task (a run whose task fails is retried forever).
 */
export async function runEnd(
  handle: WorkflowHandle,
  timeoutMs = 60_000,
): Promise<{ status: string; cause?: unknown; taskFailure?: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status } = await handle.describe();
    if (status.name !== 'RUNNING') {
      const cause = await handle.result().then(
        () => undefined,
        (error: unknown) => (error instanceof WorkflowFailedError ? error.cause : error),
      );
      return { status: status.name, cause };
    }
    const events = (await handle.fetchHistory()).events ?? [];
    const failed = events.find((e) => e.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes;
    if (failed) return { status: 'TASK_FAILED', taskFailure: failed.failure?.message ?? '' };
    if (Date.now() > deadline)
      throw new Error(`workflow ${handle.workflowId} did not end in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
