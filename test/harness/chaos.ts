import { randomUUID } from 'node:crypto';
import { settle } from './settle.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { expect } from 'vitest';
import { readCallHistory } from '../../client/history-reader.js';
import { startLoopbackProvider } from '../../loopback/index.js';
import type { LoopbackProvider } from '../../loopback/index.js';
import { attemptsQuery } from '../../common/queries.js';
import type { AttemptRecord, ModelCallResult } from '../../common/call.js';
import type { modelCallWorkflow } from '../../workflows/call/model-call-workflow.js';
import { TEST_API_KEY, TEST_SECRETS, expectNoSecrets, sentNothing } from './model-call.js';
import { leakReport, sweepHistories } from './secret-scan.js';
import { leakNeedles } from './secrets.js';
import { startWorkerProcess } from './processes.js';
import type { WorkerProcess } from './processes.js';
import { LARGE_MESSAGE_CHANNEL_ARGS } from '../../client/connection-options.js';
import { startTestServer } from './test-server.js';
import type { TestServer } from './test-server.js';

/**
 * What a chaos test works with: a Temporal server of its own (`startTestServer`: a dev server on a SQLite file
 * in a temp dir, or a cluster on PostgreSQL in the cluster tier; either can be killed and restarted on the same
 * data and port), a loopback provider in the test process, a providers file that points `local:*` at it, a
 * client, and `model-retry worker` processes on one task queue.
 */
export interface ChaosFixture {
  server: TestServer;
  dbFilename: string;
  client: Client;
  lp: LoopbackProvider;
  taskQueue: string;
  /**
   * Starts a `model-retry worker` process on the task queue and resolves once it polls. `temporalAddress`: the
   * address it dials instead of the server's (a proxy in between); `providersFile`: another providers file;
   * `env`: more environment.
   */
  startWorker(options?: {
    temporalAddress?: string;
    providersFile?: string;
    env?: NodeJS.ProcessEnv;
  }): Promise<WorkerProcess>;
  /** `kill -9` the server, wait until it is gone, start it again on the same data and port. */
  killAndRestartServer(): Promise<void>;
  /** Writes a providers file (with the test key's variable) in the fixture's folder; returns its path. */
  writeProviders(name: string, providers: Record<string, unknown>): string;
  close(): Promise<void>;
}

export async function chaosFixture(): Promise<ChaosFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'model-retry-chaos-'));
  const dbFilename = join(dir, 'chaos.sqlite');
  const lp = await startLoopbackProvider();
  const server = await startTestServer({ dbFilename });
  const writeProviders = (name: string, providers: Record<string, unknown>) => {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(providers));
    return file;
  };
  const providersFile = writeProviders('providers', {
    local: { type: 'openai-compatible', baseURL: lp.openaiBaseURL, apiKeyEnv: 'CHAOS_LOOPBACK_KEY' },
  });
  // The test's own connection (not the server env's), so it outlives a server restart and reconnects.
  const connection = await Connection.connect({
    address: server.address,
    channelArgs: LARGE_MESSAGE_CHANNEL_ARGS,
  });
  const client = new Client({ connection, namespace: server.namespace });
  const taskQueue = `chaos-${randomUUID()}`;
  const workers: WorkerProcess[] = [];
  return {
    server,
    dbFilename,
    client,
    lp,
    taskQueue,
    writeProviders,
    async startWorker(options = {}) {
      const worker = await startWorkerProcess({
        address: options.temporalAddress ?? server.address,
        taskQueue,
        providersFile: options.providersFile ?? providersFile,
        env: { ...options.env, CHAOS_LOOPBACK_KEY: TEST_API_KEY },
      });
      workers.push(worker);
      return worker;
    },
    killAndRestartServer: () => server.killAndRestart(),
    async close() {
      await Promise.all(workers.map((w) => w.stop()));
      // Every history this file's server holds, scanned for the credentials before the server goes.
      const { leaks } = await sweepHistories(client, leakNeedles(TEST_SECRETS));
      await connection.close();
      await server.stop();
      await lp.close();
      rmSync(dir, { recursive: true, force: true });
      expect(leaks, leakReport(leaks)).toEqual([]);
    },
  };
}

/** A finished call, seen from the workflow, its history and the provider. */
export interface SettledCall {
  workflowId: string;
  result?: ModelCallResult;
  failure?: ApplicationFailure;
  records: AttemptRecord[];
  history: temporal.api.history.v1.IHistory;
  /** The `X-Request-Id` of every request the provider received for this call. */
  requestIds: string[];
}

/**
 * Awaits a call's end and checks that nothing was lost or repeated: the records rebuilt from the history alone
 * equal the `attempts` query, and the provider's requests match the attempt records one to one, joined by
 * their `X-Request-Id` (`<workflowId>/<modelCallId>`): no attempt reached the provider twice, no request is
 * missing from the record, and every attempt has its request, except that a `WorkerLost` attempt may have
 * none (its worker was killed after Temporal handed it the attempt, before the request left).
 */
export async function settleCall(
  lp: LoopbackProvider,
  handle: WorkflowHandle<typeof modelCallWorkflow>,
): Promise<SettledCall> {
  const { result, failure } = await settle(handle);
  const records = await handle.query(attemptsQuery);
  const history = await handle.fetchHistory();
  expect(readCallHistory(history).attempts, handle.workflowId).toEqual(records);
  expectNoSecrets(history, handle.workflowId);
  if (result) expect(result.attempts).toEqual(records);
  const sent = requestIds(lp, records);
  const recorded = records.map((r) => `${handle.workflowId}/${r.modelCallId}`);
  // A continuation whose prefill was refused asks again at once within its attempt (its record says so).
  const twice = records.filter((r) => r.continuation?.prefillRefused).length;
  expect(new Set(sent).size, `${handle.workflowId}: an attempt reached the provider twice`).toBe(
    sent.length - twice,
  );
  expect(
    sent.filter((id) => !recorded.includes(id)),
    `${handle.workflowId}: requests with no attempt on record`,
  ).toEqual([]);
  const missing = records.filter((r) => !sent.includes(`${handle.workflowId}/${r.modelCallId}`));
  expect(
    // CoolingDown sends nothing by design (fleet health kept the request back), nor does an attempt refused for its
    // tenant's envelope.
    missing.filter((r) => r.failure?.class !== 'WorkerLost' && !sentNothing(r)).map((r) => r.modelCallId),
    `${handle.workflowId}: attempts on record that never reached the provider`,
  ).toEqual([]);
  return {
    workflowId: handle.workflowId,
    records,
    history,
    requestIds: sent,
    ...(result ? { result } : {}),
    ...(failure ? { failure } : {}),
  };
}

/** The `X-Request-Id`s of the requests to the models on record (each chaos call has models of its own). */
function requestIds(lp: LoopbackProvider, records: readonly AttemptRecord[]): string[] {
  return [...new Set(records.map((r) => r.model.slice('local:'.length)))]
    .flatMap((model) => lp.requests(model))
    .map((request) => String(request.headers['x-request-id']));
}

/** The identity of the worker that completed the workflow task with this event id (or the latest before it). */
export function workflowTaskIdentity(
  history: temporal.api.history.v1.IHistory,
  beforeEventId = Number.POSITIVE_INFINITY,
): string | undefined {
  const completed = (history.events ?? []).filter(
    (e) => e.workflowTaskCompletedEventAttributes && Number(e.eventId) <= beforeEventId,
  );
  return completed.at(-1)?.workflowTaskCompletedEventAttributes?.identity ?? undefined;
}
