import { settle } from './settle.js';
import type { WorkflowHandle } from '@temporalio/client';
import type { ApplicationFailure, DataConverter } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { temporal } from '@temporalio/proto';
import { expect, inject } from 'vitest';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import type { ProviderRegistry } from '../../activities/providers/registry.js';
import type { OpenAICompatibleProviderConfig } from '../../activities/providers/config.js';
import { fetchDecodedHistory } from '../../client/decode-history.js';
import { readCallHistory } from '../../client/history-reader.js';
import { startModelCall } from '../../client/model-call-client.js';
import { startLoopbackProvider } from '../../loopback/index.js';
import type { LoopbackProvider } from '../../loopback/index.js';
import { attemptsQuery } from '../../common/queries.js';
import type {
  AttemptRecord,
  ModelCallFailedDetails,
  ModelCallInput,
  ModelCallResult,
} from '../../common/call.js';
import type { modelCallWorkflow } from '../../workflows/call/model-call-workflow.js';
import { findLeaks, leakReport } from './secret-scan.js';
import { leakNeedles, makeTestSecrets } from './secrets.js';
import type { TestSecrets } from './secrets.js';
import { connectTestTemporal } from './temporal.js';
import type { TestTemporal, TestWorker } from './temporal.js';

/**
 * This run's test credentials: the integration project's global setup makes them once for all its files (so
 * its final sweep knows them); projects without it (chaos, browser) get their own, per test file.
 */
export const TEST_SECRETS: TestSecrets = inject('testSecrets') ?? makeTestSecrets();

/** The key the `local` test provider sends; no history may ever contain it. */
export const TEST_API_KEY = TEST_SECRETS.apiKey;

/**
 * A dev-server connection, a loopback provider and a provider registry pointing at it: `local:<model>`
 * (OpenAI-compatible, `Authorization: Bearer <key>` and an `X-Proxy-Token` credential header) and
 * `claude:<model>` (Anthropic, `x-api-key`), with the run's test credentials (`TEST_SECRETS`).
 */
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

/** `dataConverter`: the client's payload codecs (workers get theirs in `startWorker`). */
export async function modelCallFixture(
  options: { dataConverter?: DataConverter } = {},
): Promise<ModelCallFixture> {
  const temporal = await connectTestTemporal(options);
  const lp = await startLoopbackProvider();
  const providers = createProviderRegistry(
    {
      local: {
        type: 'openai-compatible',
        baseURL: lp.openaiBaseURL,
        apiKeyEnv: 'LOOPBACK_KEY',
        headers: { 'X-Proxy-Token': TEST_SECRETS.proxyToken },
      },
      claude: { type: 'anthropic', baseURL: lp.anthropicBaseURL, apiKeyEnv: 'LOOPBACK_ANTHROPIC_KEY' },
      dead: {
        type: 'openai-compatible',
        // Port 2: nothing listens there, no test server is ever given one below 1024, and fetch does not block it. A port freed at the start
        // could be taken by another server during a long run (seen: a 'dead' backend answering 5xx).
        baseURL: 'http://127.0.0.1:2/v1',
        apiKeyEnv: 'LOOPBACK_KEY',
      },
    },
    { env: { LOOPBACK_KEY: TEST_SECRETS.apiKey, LOOPBACK_ANTHROPIC_KEY: TEST_SECRETS.anthropicKey } },
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

/** What a test sets on a provider of {@link loopbackProviders}: its limits, health, models and so on. */
export type LoopbackProviderSettings = Omit<OpenAICompatibleProviderConfig, 'type' | 'baseURL' | 'apiKeyEnv'>;

/**
 * A registry of the providers a test configures for itself, each OpenAI-compatible on the loopback provider `lp`
 * with the run's test API key (`<name>:<model>` reaches `lp` as `<model>`), set as `settings` says.
 */
export function loopbackProviders(
  lp: LoopbackProvider,
  settings: Record<string, LoopbackProviderSettings>,
): ProviderRegistry {
  const config = Object.fromEntries(
    Object.entries(settings).map(([name, extra]) => [
      name,
      { type: 'openai-compatible' as const, baseURL: lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY', ...extra },
    ]),
  );
  return createProviderRegistry(config, { env: { LOOPBACK_KEY: TEST_SECRETS.apiKey } });
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
  const history = await fetchDecodedHistory(handle); // as fetched when the client has no codecs
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
  expectNoSecrets(history, handle.workflowId);
  expectProviderSawSent(fx.lp, records);
  if (result) expect(result.attempts).toEqual(records);
  return run;
}

/** The class of attempts that sent nothing (the contract's class table). */
const UNSENT: ReadonlySet<string> = new Set(['CoolingDown']);

/**
 * Whether an attempt on record sent nothing by the contract: `CoolingDown`, or refused for its tenant's envelope
 * (`QuotaExhausted` with code `tenant-envelope`: the reservation did not fit, so no request left).
 */
export function sentNothing(r: Pick<AttemptRecord, 'failure'>): boolean {
  return UNSENT.has(r.failure?.class ?? '') || r.failure?.code === 'tenant-envelope';
}

/**
 * The provider saw exactly the attempts on record that sent, model by model. `CoolingDown` sends nothing by the
 * contract (an attempt that started with less than minAttemptMs left, as a loaded machine may leave the last one
 * before a deadline, is `CoolingDown`), nor does an attempt refused for its tenant's envelope. `Misconfigured` may
 * have sent (an answer too large to record).
 */
export function expectProviderSawSent(lp: LoopbackProvider, records: readonly AttemptRecord[]): void {
  const sent = records.filter((r) => !sentNothing(r));
  for (const model of new Set(records.map((r) => r.model).filter(isLoopbackModel))) {
    const id = model.slice(model.indexOf(':') + 1);
    // A continuation whose prefill was refused asked again at once within its attempt: two requests, one record.
    const requests = sent
      .filter((r) => r.model === model)
      .reduce((n, r) => n + (r.continuation?.prefillRefused ? 2 : 1), 0);
    expect(lp.requestCount(id), `requests to ${model}`).toBe(requests);
  }
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

/** Whether a model name is served by the fixture's loopback provider (`local:` or `claude:`). */
export function isLoopbackModel(model: string): boolean {
  return model.startsWith('local:') || model.startsWith('claude:');
}

/** Fails when the history holds any of the run's test credentials (in any string or decoded payload). */
export function expectNoSecrets(history: temporal.api.history.v1.IHistory, workflowId: string): void {
  const leaks = findLeaks(history, leakNeedles(TEST_SECRETS), workflowId);
  expect(leaks, leakReport(leaks)).toEqual([]);
}
