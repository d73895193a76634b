import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import type { Activities } from '../../activities/index.js';
import { eventTypeName } from '../../client/history-format.js';
import { readCallHistory } from '../../client/history-reader.js';
import { startModelCall } from '../../client/model-call-client.js';
import { healthWorkflowId } from '../../common/health.js';
import type { ModelCallInput } from '../../common/call.js';
import { ok, rateLimited, slow } from '../../loopback/index.js';
import { attemptsQuery } from '../../common/queries.js';
import { modelCallWorkflow } from '../../workflows/call/model-call-workflow.js';
import { useFixture } from '../harness/fixture.js';
import { finishCall, loopbackProviders } from '../harness/model-call.js';
import type { CallRun, LoopbackProviderSettings } from '../harness/model-call.js';

/** How many markers (local activities) a history has. */
const markers = (history: CallRun['history']): number =>
  (history.events ?? []).map(eventTypeName).filter((t) => t === 'MarkerRecorded').length;

/** The attempt activities a history scheduled. */
const scheduledAttempts = (history: CallRun['history']): number =>
  (history.events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelRequest',
  ).length;

/**
 * The cooling check before an attempt on a rate-limited backend runs
 * before the attempt's record opens, only where fleet health can answer, and its answer travels with the attempt.
 */
describe('the cooling check before an attempt on a rate-limited backend', () => {
  const { fx } = useFixture({ worker: false });
  let native: NativeConnection;
  const registry = (settings: Record<string, LoopbackProviderSettings>) => loopbackProviders(fx.lp, settings);

  beforeAll(async () => {
    native = await NativeConnection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    await native.close();
  });

  /** A worker of the user's own on `taskQueue` with model-retry's workflows and the given activities. */
  const plainWorker = (taskQueue: string, activities: object) =>
    Worker.create({
      connection: native,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities,
    });

  it('asks nothing (no marker) when fleet health is off, or the backend has no rate limit', async () => {
    const id = `quiet-${randomUUID().slice(0, 8)}`;
    const providers = registry({
      // Rate limited, fleet health off: no answer could hold an attempt.
      offq: { health: false, models: { [id]: { limits: { requestsPerSecond: 50 } } } },
      // Fleet health on, no rate limit: the attempt runs on the call's queue anyway.
      onq: { health: { coolDownMs: 60_000 } },
    });
    const worker = await fx.temporal.startWorker({ deps: { providers, health: false } });
    fx.lp.script(id, [{ ...ok('fine'), repeat: true }]);
    for (const model of [`offq:${id}`, `onq:${id}`]) {
      const handle = await startModelCall(
        fx.temporal.client,
        { model, prompt: 'hi', retry: { maxAttempts: 1 } },
        { taskQueue: worker.taskQueue },
      );
      const run = await finishCall(fx, handle);
      expect(run.result?.output.text, model).toBe('fine');
      // The worker's config only.
      expect(markers(run.history), model).toBe(1);
    }
    await fx.temporal.client.workflow
      .getHandle(healthWorkflowId(worker.taskQueue, `onq:${id}`))
      .terminate('test over')
      .catch(() => undefined);
    await worker.stop();
  });

  it('an attempt after the check starts when its history says, also while it runs', async () => {
    const id = `dated-${randomUUID().slice(0, 8)}`;
    const model = `datedq:${id}`;
    const providers = registry({
      datedq: { health: {}, models: { [id]: { limits: { requestsPerSecond: 50 } } } },
    });
    const worker = await fx.temporal.startWorker({ deps: { providers, health: false } });
    fx.lp.script(id, [slow(1_500, ok('late'))]);
    const handle = await startModelCall(
      fx.temporal.client,
      { model, prompt: 'hi', retry: { maxAttempts: 1 } },
      { taskQueue: worker.taskQueue },
    );
    await fx.lp.waitForRequests(1, id);
    // The running record (no end yet: its start is the workflow's own) against the one history dates.
    const running = await handle.query(attemptsQuery);
    expect(running.map((r) => r.outcome)).toEqual(['running']);
    expect(readCallHistory(await handle.fetchHistory()).attempts).toEqual(running);
    const run = await finishCall(fx, handle);
    expect(markers(run.history)).toBe(2);
    await fx.temporal.client.workflow
      .getHandle(healthWorkflowId(worker.taskQueue, model))
      .terminate('test over')
      .catch(() => undefined);
    await worker.stop();
  });

  it('a cancel during the check ends the call CANCELED with no attempt opened (records == history)', async () => {
    const id = `slowcheck-${randomUUID().slice(0, 8)}`;
    const model = `slowq:${id}`;
    const providers = registry({
      slowq: { health: {}, models: { [id]: { limits: { requestsPerSecond: 50 } } } },
    });
    const activities = createActivities({ providers, health: {} });
    let checking: () => void = () => undefined;
    const checkStarted = new Promise<void>((resolve) => (checking = resolve));
    let checkCancelled = false;
    // The check is slow (a loaded worker): the cancel reaches the workflow while it runs.
    const slowCheck: Pick<Activities, 'backendCooling'> = {
      async backendCooling(m) {
        checking();
        try {
          await Context.current().sleep(6_000);
        } catch (error) {
          checkCancelled = error instanceof CancelledFailure;
          throw error;
        }
        return activities.backendCooling(m);
      },
    };
    const taskQueue = `slowcheck-${randomUUID()}`;
    const worker = await plainWorker(taskQueue, { ...activities, ...slowCheck });
    fx.lp.script(id, [ok('never sent')]);
    await worker.runUntil(async () => {
      const input: ModelCallInput = { model, prompt: 'hi', retry: { maxAttempts: 1 } };
      const handle = await fx.temporal.client.workflow.start(modelCallWorkflow, {
        taskQueue,
        workflowId: `slowcheck-${randomUUID()}`,
        args: [input],
        // The worker hands in the task it holds for the local activity after 80 % of this, and so learns of
        // the cancel while the check still runs.
        workflowTaskTimeout: '2s',
      });
      await checkStarted;
      await handle.cancel();
      const error = await handle.result().catch((e: unknown) => e);
      expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      expect((await handle.describe()).status.name).toBe('CANCELLED');
      const history = await handle.fetchHistory();
      fx.histories.push({ workflowId: handle.workflowId, history });
      const records = await handle.query(attemptsQuery);
      const rebuilt = readCallHistory(history);
      // No phantom: a record the workflow keeps is one the history shows, with the same start.
      expect(rebuilt.attempts).toEqual(records);
      expect(rebuilt.stopReason).toBe('cancelled');
      expect(records).toEqual([]);
      expect(scheduledAttempts(history)).toBe(0);
    });
    expect(checkCancelled).toBe(true);
    expect(fx.lp.requestCount(id)).toBe(0);
  });

  it('a check that takes the time left stops the call `deadline` with no attempt (the stop rules run again)', async () => {
    const id = `latecheck-${randomUUID().slice(0, 8)}`;
    const model = `lateq:${id}`;
    const providers = registry({
      lateq: { health: {}, models: { [id]: { limits: { requestsPerSecond: 50 } } } },
    });
    const activities = createActivities({ providers, health: {} });
    const slowCheck: Pick<Activities, 'backendCooling'> = {
      async backendCooling(m) {
        await new Promise((r) => setTimeout(r, 3_000));
        return activities.backendCooling(m);
      },
    };
    const taskQueue = `latecheck-${randomUUID()}`;
    const worker = await plainWorker(taskQueue, { ...activities, ...slowCheck });
    fx.lp.script(id, [ok('never sent')]);
    await worker.runUntil(async () => {
      // Fits at the start (0 + 1000 + 500 <= 4000), not after the 3 s check.
      const retry = { deadlineInMs: 4_000, reserveMs: 500, minAttemptMs: 1_000, attemptTimeoutMs: 1_000 };
      const input: ModelCallInput = { model, prompt: 'hi', retry };
      const handle = await fx.temporal.client.workflow.start(modelCallWorkflow, {
        taskQueue,
        workflowId: `latecheck-${randomUUID()}`,
        args: [input],
      });
      await handle.result().catch(() => undefined);
      const history = await handle.fetchHistory();
      fx.histories.push({ workflowId: handle.workflowId, history });
      const rebuilt = readCallHistory(history);
      expect(rebuilt.stopReason).toBe('deadline');
      expect(rebuilt.attempts).toEqual([]);
      expect(scheduledAttempts(history)).toBe(0);
    });
    expect(fx.lp.requestCount(id)).toBe(0);
  });

  it("a held attempt run by a worker that does not know the backend carries the workflow's cool-down", async () => {
    const opener = `opener-${randomUUID().slice(0, 8)}`;
    const held = `held-${randomUUID().slice(0, 8)}`;
    // One health key for the provider: a 429 on `opener` cools `held` too. Only `held` is rate limited.
    const providers = registry({
      heldq: {
        health: { scope: 'provider', coolDownMs: 120_000 },
        models: { [held]: { limits: { requestsPerSecond: 50 } } },
      },
    });
    const health = { flushMs: 100, refreshMs: 200 };
    const seen = createActivities({ providers, health });
    const fresh = createActivities({ providers, health });
    const taskQueue = `heldq-${randomUUID()}`;
    fx.lp.script(opener, [rateLimited(600)]);
    fx.lp.script(held, [{ ...ok('never sent'), repeat: true }]);
    // A 429 with a retry-after opens the provider in this worker's copy of fleet health at once.
    const first = await plainWorker(taskQueue, seen);
    await first.runUntil(async () => {
      const handle = await startModelCall(
        fx.temporal.client,
        { model: `heldq:${opener}`, prompt: 'hi', retry: { maxAttempts: 1 } },
        { taskQueue },
      );
      const run = await finishCall(fx, handle);
      expect(run.records.map((r) => r.failure?.class)).toEqual(['RateLimited']);
    });
    // The workflow's check asks the copy that saw it; the held attempt runs where the backend is unknown.
    const second = await plainWorker(taskQueue, {
      ...fresh,
      backendCooling: seen.backendCooling,
      modelRetryConfig: seen.modelRetryConfig,
    });
    const run = await second.runUntil(async () => {
      const input: ModelCallInput = {
        model: `heldq:${held}`,
        prompt: 'hi',
        retry: { maxAttempts: 3, retryAfter: { maxMs: 30_000 } },
      };
      return finishCall(fx, await startModelCall(fx.temporal.client, input, { taskQueue }));
    });
    // One attempt, one cool-down over `retryAfter.maxMs`: the call stops instead of spending its attempts.
    expect(run.records.map((r) => r.failure?.class)).toEqual(['CoolingDown']);
    expect(run.records[0]?.failure?.retryAfterMs).toBeGreaterThan(60_000);
    expect(run.details?.stopReason).toBe('retry-after-exceeded');
    expect(fx.lp.requestCount(held)).toBe(0);
    await fx.temporal.client.workflow
      .getHandle(healthWorkflowId(taskQueue, 'heldq'))
      .terminate('test over')
      .catch(() => undefined);
  });

  it("a slow first answer of the worker's config is tried again: a cost-budgeted call still runs", async () => {
    const id = `slowconfig-${randomUUID().slice(0, 8)}`;
    const providers = registry({
      pricedq: { models: { [id]: { pricing: { inputPerMTok: 1, outputPerMTok: 2 } } } },
    });
    const activities = createActivities({ providers, health: false });
    let tries = 0;
    const taskQueue = `slowconfig-${randomUUID()}`;
    const worker = await plainWorker(taskQueue, {
      ...activities,
      async modelRetryConfig() {
        tries += 1;
        // The first answer comes too late (a stalled worker); the next one at once.
        if (tries === 1) await Context.current().sleep(5_000);
        return activities.modelRetryConfig();
      },
    });
    fx.lp.script(id, [ok('priced', { usage: { inputTokens: 10, outputTokens: 5 } })]);
    const run = await worker.runUntil(async () => {
      const input = { model: `pricedq:${id}`, prompt: 'hi', budget: { maxCostUsd: 1 } };
      return finishCall(fx, await startModelCall(fx.temporal.client, input, { taskQueue }));
    });
    expect(run.result?.output.text).toBe('priced');
    expect(tries).toBe(2);
  });
});
