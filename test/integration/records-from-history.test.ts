import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import type { Activities } from '../../activities/index.js';
import { fetchDecodedHistory } from '../../client/decode-history.js';
import { readCallHistory } from '../../client/history-reader.js';
import type { ModelCallInput } from '../../common/call.js';
import { fail } from '../../loopback/index.js';
import { attemptsQuery } from '../../common/queries.js';
import { modelCallWorkflow } from '../../workflows/call/model-call-workflow.js';
import { ModelRetryPlugin } from '../../plugin/index.js';
import { bundleAiSdkWorkflows } from '../harness/ai-sdk.js';
import { useFixture } from '../harness/fixture.js';
import { loopbackProviders } from '../harness/model-call.js';

/**
 * The records rebuilt from history alone equal the workflow's own where a decision is followed by no attempt and
 * no wait's timer: the decision must still be somewhere in history.
 */
describe('records rebuilt from history equal the workflow’s own', () => {
  const { fx } = useFixture({ worker: false });

  it('a zero-wait advance cancelled during the cooling check keeps its action and retryInMs 0', async () => {
    const first = `first-${randomUUID().slice(0, 8)}`;
    const second = `second-${randomUUID().slice(0, 8)}`;
    // Backend 1 is rate limited and watched by fleet health: the attempt on it is checked first (a marker).
    const providers = loopbackProviders(fx.lp, {
      plainq: {},
      checkedq: { health: {}, models: { [second]: { limits: { requestsPerSecond: 50 } } } },
    });
    const activities = createActivities({ providers, health: {} });
    let checking: () => void = () => undefined;
    const checkStarted = new Promise<void>((resolve) => (checking = resolve));
    // The check is slow (a loaded worker): the cancel reaches the workflow while it runs.
    const slowCheck: Pick<Activities, 'backendCooling'> = {
      async backendCooling(m) {
        checking();
        await Context.current().sleep(6_000);
        return activities.backendCooling(m);
      },
    };
    const taskQueue = `zero-advance-${randomUUID()}`;
    const worker = await Worker.create({
      connection: fx.temporal.nativeConnection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: { ...activities, ...slowCheck },
    });
    fx.lp.script(first, [fail(502)]);
    await worker.runUntil(async () => {
      const input: ModelCallInput = {
        model: [`plainq:${first}`, `checkedq:${second}`],
        prompt: 'hi',
        // A 502 advances at once: no wait, so no timer names the decision.
        retry: { maxAttempts: 3, actions: { ServerError: 'advance' } },
      };
      const handle = await fx.temporal.client.workflow.start(modelCallWorkflow, {
        taskQueue,
        workflowId: `zero-advance-${randomUUID()}`,
        args: [input],
        // The worker hands in the task it holds for the local activity after 80 % of this, and so learns of
        // the cancel while the check still runs.
        workflowTaskTimeout: '2s',
      });
      await checkStarted;
      await handle.cancel();
      const error = await handle.result().catch((e: unknown) => e);
      expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      const history = await fetchDecodedHistory(handle);
      fx.histories.push({ workflowId: handle.workflowId, history });
      const records = await handle.query(attemptsQuery);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ outcome: 'failed', retryInMs: 0, failure: { action: 'advance' } });
      expect(readCallHistory(history).attempts).toEqual(records);
    });
    expect(fx.lp.requestCount(second)).toBe(0);
  });

  it("a ModelCallFailed a user's workflow caught keeps the decision before it (a zero-wait advance, then no time)", async () => {
    const first = `ufirst-${randomUUID().slice(0, 8)}`;
    const second = `usecond-${randomUUID().slice(0, 8)}`;
    const providers = loopbackProviders(fx.lp, {
      plainq: {},
      checkedq: { health: {}, models: { [second]: { limits: { requestsPerSecond: 50 } } } },
    });
    const activities = createActivities({ providers, health: {} });
    // The check before backend 1 takes the time left: the call stops `deadline` with no attempt on it.
    const slowCheck: Pick<Activities, 'backendCooling'> = {
      async backendCooling(m) {
        await new Promise((r) => setTimeout(r, 3_000));
        return activities.backendCooling(m);
      },
    };
    const plugin = new ModelRetryPlugin({ activities: { providers, health: {} } });
    const taskQueue = `caught-${randomUUID()}`;
    const worker = await Worker.create({
      connection: fx.temporal.nativeConnection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowBundle: { code: await bundleAiSdkWorkflows() },
      activities: slowCheck,
      plugins: [plugin],
    });
    const client = new Client({
      connection: fx.temporal.client.connection,
      namespace: inject('temporalNamespace'),
      plugins: [plugin],
    });
    fx.lp.script(first, [fail(502)]);
    await worker.runUntil(async () => {
      const input: ModelCallInput = {
        model: [`plainq:${first}`, `checkedq:${second}`],
        prompt: 'hi',
        // Fits at the start (0 + 1000 + 500 <= 4000), not after the 3 s check; a 502 advances at once.
        retry: {
          deadlineInMs: 4_000,
          reserveMs: 500,
          minAttemptMs: 1_000,
          attemptTimeoutMs: 1_000,
          actions: { ServerError: 'advance' },
        },
      };
      const handle = await client.workflow.start('caughtCallWorkflow', {
        taskQueue,
        workflowId: `caught-${randomUUID()}`,
        args: [input],
      });
      // The workflow survived the failure it caught.
      expect(await handle.result()).toEqual({ stopReason: 'deadline' });
      const history = await fetchDecodedHistory(handle);
      const records = await handle.query(attemptsQuery);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ outcome: 'failed', retryInMs: 0, failure: { action: 'advance' } });
      expect(readCallHistory(history).attempts).toEqual(records);
    });
    expect(fx.lp.requestCount(second)).toBe(0);
  });
});
