import { settle } from './settle.js';
import type { WorkflowHandle } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { temporal } from '@temporalio/proto';
import { expect } from 'vitest';
import { createProviderRegistry } from '../../activities/providers.js';
import type { ProviderRegistry } from '../../activities/providers.js';
import { readCallHistory } from '../../client/history-reader.js';
import { startModelCall } from '../../client/model-call-client.js';
import { startLoopbackProvider } from '../../worker/loopback/index.js';
import type { LoopbackProvider } from '../../worker/loopback/index.js';
import { attemptsQuery } from '../../workflows/call-log.js';
import type {
  AttemptRecord,
  ModelCallFailedDetails,
  ModelCallInput,
  ModelCallResult,
} from '../../workflows/call-types.js';
import type { modelCallWorkflow } from '../../workflows/model-call-workflow.js';
import { connectTestTemporal } from './temporal.js';
import { freePort } from '../../worker/free-port.js';
import type { TestTemporal, TestWorker } from './temporal.js';

/** The key the test provider expects; no history may ever contain it. */
export const TEST_API_KEY = 'sk-loopback-test-0123456789abcdefghijklmnopqrstuvwxyz';

/** A dev-server connection, a loopback provider and a provider registry pointing at it. */
export interface ModelCallFixture {
  temporal: TestTemporal;
  lp: LoopbackProvider;
  providers: ProviderRegistry;
  /** A model name no other test uses, so scripts and request counts never mix. */
  model(name?: string): { id: string; name: string };
  /** Every history this file produced, for the replay check. */
  histories: { workflowId: string; history: temporal.api.history.v1.IHistory }[];
  close(): Promise<void>;
}

export async function modelCallFixture(): Promise<ModelCallFixture> {
  const temporal = await connectTestTemporal();
  const lp = await startLoopbackProvider();
  const closedPort = await freePort();
  const providers = createProviderRegistry(
    {
      local: { type: 'openai-compatible', baseURL: lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
      dead: {
        type: 'openai-compatible',
        baseURL: `http://127.0.0.1:${closedPort}/v1`,
        apiKeyEnv: 'LOOPBACK_KEY',
      },
    },
    { env: { LOOPBACK_KEY: TEST_API_KEY } },
  );
  let n = 0;
  return {
    temporal,
    lp,
    providers,
    model(name = 'm') {
      n += 1;
      const id = `${name}-${n}`;
      return { id, name: `local:${id}` };
    },
    histories: [],
    async close() {
      await temporal.close();
      await lp.close();
    },
  };
}

/** What one call did, seen from every side: result or failure, the workflow's records, the history's. */
export interface CallRun {
  workflowId: string;
  handle: WorkflowHandle<typeof modelCallWorkflow>;
  result?: ModelCallResult;
  failure?: ApplicationFailure;
  details?: ModelCallFailedDetails;
  records: AttemptRecord[];
  history: temporal.api.history.v1.IHistory;
  historyJson: string;
}

/** Runs a call to its end on `worker`, then checks that the records rebuilt from history equal the workflow's. */
export async function runCall(
  fx: ModelCallFixture,
  worker: TestWorker,
  input: ModelCallInput,
): Promise<CallRun> {
  const handle = await startModelCall(fx.temporal.client, input, { taskQueue: worker.taskQueue });
  return finishCall(fx, handle);
}

export async function finishCall(
  fx: ModelCallFixture,
  handle: WorkflowHandle<typeof modelCallWorkflow>,
): Promise<CallRun> {
  const { result, failure } = await settle(handle);
  const records = await handle.query(attemptsQuery);
  const history = await handle.fetchHistory();
  fx.histories.push({ workflowId: handle.workflowId, history });
  const run: CallRun = {
    workflowId: handle.workflowId,
    handle,
    records,
    history,
    historyJson: historyToJSON(history),
    ...(result ? { result } : {}),
    ...(failure ? { failure, details: failure.details?.[0] as ModelCallFailedDetails } : {}),
  };
  expect(readCallHistory(history).attempts).toEqual(records);
  // The provider saw exactly the attempts on record, model by model.
  for (const model of new Set(records.map((r) => r.model).filter((m) => m.startsWith('local:')))) {
    const id = model.slice('local:'.length);
    expect(fx.lp.requestCount(id), `requests to ${model}`).toBe(
      records.filter((r) => r.model === model).length,
    );
  }
  if (result) expect(result.attempts).toEqual(records);
  return run;
}

/** The record fields that tell the story of a call, one object per attempt. */
export function story(records: readonly AttemptRecord[]) {
  return records.map((r) => ({
    backend: r.backend,
    outcome: r.outcome,
    ...(r.failure ? { class: r.failure.class, action: r.failure.action } : {}),
    ...(r.retryInMs !== undefined ? { retryInMs: r.retryInMs } : {}),
  }));
}
