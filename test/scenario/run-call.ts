import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { subscribeCallStream } from '../../client/call-stream.js';
import type { CallStreamItem } from '../../client/call-stream.js';
import { fetchDecodedHistory } from '../../client/decode-history.js';
import { readCallHistory } from '../../client/history-reader.js';
import type { CallHistory } from '../../client/history-reader.js';
import { startModelCall } from '../../client/model-call-client.js';
import type { RecordedRequest } from '../../loopback/index.js';
import type { RetryPlan } from '../../policy/index.js';
import { attemptsQuery } from '../../common/queries.js';
import type { AttemptRecord, ModelCallInput } from '../../common/call.js';
import type { modelCallWorkflow } from '../../workflows/call/model-call-workflow.js';
import type { ModelCallFixture } from '../harness/model-call.js';
import { requestOf } from './scenario.js';
import { TENANT_OUTPUT_BOUND } from './tenants.js';
import { unwatchChecks, watchChecks } from './slow-checks.js';
import type { Moment, PlanShape, Scenario } from './scenario.js';

/** Everything seen of one call's run, from every side: what the invariants are checked on. */
export interface Evidence {
  /** The call as a scenario of its own (a neighbour's chain is its backends of the main chain). */
  scenario: Scenario;
  workflowId: string;
  /** The chain as sent (`local:sc-3`, `dead:…`, `nope:…`). */
  models: string[];
  /** The call's input retry plan. */
  retry: RetryPlan | false;
  /** Temporal's status of the closed run (`COMPLETED`, `FAILED`, `CANCELED`, `TERMINATED`, ...). */
  status: string;
  /** The workflow's own failure, when it failed with an application failure. */
  failure?: ApplicationFailure;
  result?: unknown;
  /** The workflow's records (query) and the ones rebuilt from its history. */
  records: AttemptRecord[];
  fromHistory: CallHistory;
  history: temporal.api.history.v1.IHistory;
  /** The provider requests of this call (by `X-Request-Id` prefix), in order of arrival. */
  requests: RecordedRequest[];
  /** The stream as a subscriber from offset 0 read it (streamed scenarios only). */
  streamItems?: CallStreamItem[];
  /** Whether the host's cancel was accepted by Temporal (it fails for a run already closed). */
  cancelSent: boolean;
  /** Whether the worker was shut down during the call. */
  killed: boolean;
  /** Its local activities begun on in-process workers (counted only with `slowChecks`). */
  checks: number;
}

/** A call of a scenario, started and watched until its end; `finish` gathers its evidence. */
export interface RunningCall {
  workflowId: string;
  /** Its provider requests so far. */
  requests(): RecordedRequest[];
  /** Its local activities begun so far (counted only with `slowChecks`). */
  checks(): number;
  /** Settles when the run has closed. */
  closed: Promise<void>;
  finish(killed: boolean): Promise<Evidence>;
}

/** Starts one call of a scenario on `taskQueue` (its cancel and stream reader run beside it). */
export async function startCall(
  fx: ModelCallFixture,
  s: Scenario,
  models: string[],
  taskQueue: string,
): Promise<RunningCall> {
  const retry = retryOf(s.plan);
  const input: ModelCallInput = {
    model: models.length === 1 ? (models[0] as string) : models,
    ...requestOf(s),
    retry,
    ...(s.stream ? { stream: { batchMs: 20, ...(s.onCut ? { onCut: s.onCut } : {}) } } : {}),
    ...(s.budget ? { budget: s.budget } : {}),
    ...(s.tenant?.name !== undefined
      ? { tenant: s.tenant.name, settings: { maxOutputTokens: TENANT_OUTPUT_BOUND } }
      : {}),
  };
  const workflowId = `model-call-${randomUUID()}`;
  // Watched before the start, so that the first check (the worker config ask) is slow too.
  const watch = s.slowChecks !== undefined ? watchChecks(workflowId, s.slowChecks) : undefined;
  const checks = () => watch?.started ?? 0;
  const handle = await startModelCall(fx.temporal.client, input, { taskQueue, workflowId });
  const prefix = `${handle.workflowId}/`;
  const requests = () => fx.lp.requests().filter((r) => r.headers['x-request-id']?.startsWith(prefix));

  let isClosed = false;
  const streamItems: CallStreamItem[] = [];
  const reading = s.stream ? readStream(fx, handle.workflowId, streamItems) : Promise.resolve();
  let cancelSent = false;
  const cancelling = s.cancel
    ? at(s.cancel, requests, () => isClosed, checks).then(async (reached) => {
        if (!reached) return;
        cancelSent = await handle.cancel().then(
          () => true,
          () => false,
        );
      })
    : Promise.resolve();
  const ending = outcome(handle).finally(() => {
    isClosed = true;
  });

  return {
    workflowId: handle.workflowId,
    requests,
    checks,
    closed: ending.then(() => undefined),
    async finish(killed) {
      const { result, failure } = await ending;
      await Promise.all([cancelling, reading]);
      await fx.lp.idle();
      // Queries and history reads below run no local activity: the watch can go.
      unwatchChecks(handle.workflowId);
      const records = await handle.query(attemptsQuery);
      const history = await fetchDecodedHistory(handle);
      fx.histories.push({ workflowId: handle.workflowId, history });
      const status = (await handle.describe()).status.name;
      return {
        scenario: s,
        workflowId: handle.workflowId,
        models,
        retry,
        status,
        ...(failure ? { failure } : {}),
        ...(result !== undefined ? { result } : {}),
        records,
        fromHistory: readCallHistory(history),
        history,
        requests: requests(),
        ...(s.stream ? { streamItems } : {}),
        cancelSent,
        killed,
        checks: checks(),
      };
    },
  };
}

/** The plan a scenario's shape stands for. */
export function retryOf(p: PlanShape): RetryPlan | false {
  if (p === false) return false;
  const plan: RetryPlan = {
    maxAttempts: p.maxAttempts,
    attemptTimeoutMs: p.attemptTimeoutMs,
    ...(p.waits ? { waits: p.waits } : {}),
    ...(p.backoff ? { backoff: p.backoff } : {}),
    ...(p.retryAfterMaxMs !== undefined ? { retryAfter: { maxMs: p.retryAfterMaxMs } } : {}),
    ...(p.retriesPerBackend !== undefined ? { retriesPerBackend: p.retriesPerBackend } : {}),
    ...(p.actions ? { actions: p.actions as RetryPlan['actions'] } : {}),
  };
  if (p.deadline) {
    plan.deadlineInMs = p.deadline.inMs;
    plan.reserveMs = p.deadline.reserveMs;
    plan.minAttemptMs = p.deadline.minAttemptMs;
  } else {
    plan.minAttemptMs = 100;
  }
  return plan;
}

/** Waits for a moment of the call; false when the call closed first. */
export async function at(
  m: Moment,
  requests: () => RecordedRequest[],
  closed: () => boolean,
  checks: () => number,
): Promise<boolean> {
  if (m.at === 'time') {
    await sleep(m.ms);
    return !closed();
  }
  if (m.at === 'check') {
    // Polled often: the check sleeps `slowChecks` ms (at least 150), so the moment lands while it runs.
    while (checks() < m.check) {
      if (closed()) return false;
      await sleep(2);
    }
    return !closed();
  }
  while (requests().length < m.request) {
    if (closed()) return false;
    await sleep(5);
  }
  if (m.plusMs > 0) await sleep(m.plusMs);
  return !closed();
}

async function outcome(
  handle: WorkflowHandle<typeof modelCallWorkflow>,
): Promise<{ result?: unknown; failure?: ApplicationFailure }> {
  try {
    return { result: await handle.result() };
  } catch (error) {
    if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure) {
      return { failure: error.cause };
    }
    if (error instanceof WorkflowFailedError) return {};
    throw error;
  }
}

async function readStream(fx: ModelCallFixture, workflowId: string, into: CallStreamItem[]): Promise<void> {
  for await (const item of subscribeCallStream(fx.temporal.client, workflowId, { pollCooldownMs: 20 })) {
    into.push(item);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
