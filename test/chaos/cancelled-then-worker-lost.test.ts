import { WorkflowFailedError } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventTypeName } from '../../client/history-format.js';
import { readCallHistory } from '../../client/history-reader.js';
import { startModelCall } from '../../client/model-call-client.js';
import { hang } from '../../loopback/index.js';
import { attemptsQuery } from '../../common/queries.js';
import { chaosFixture } from '../harness/chaos.js';
import type { ChaosFixture } from '../harness/chaos.js';
import { until } from '../harness/until.js';
import type { WorkerProcess } from '../harness/processes.js';

describe('a call cancelled while the worker running its attempt is dead', () => {
  let fx: ChaosFixture;
  let workers: WorkerProcess[];
  beforeAll(async () => {
    fx = await chaosFixture();
    workers = await Promise.all([fx.startWorker(), fx.startWorker()]);
  });
  afterAll(async () => {
    await fx?.close();
  });

  it('ends CANCELED when the attempt then times out on its heartbeat, the record keeping WorkerLost', async () => {
    fx.lp.script('cancel-lost', [hang()]);
    const handle = await startModelCall(
      fx.client,
      { model: 'local:cancel-lost', prompt: 'hi' },
      { taskQueue: fx.taskQueue, workflowId: 'chaos-cancelled-then-worker-lost' },
    );
    await fx.lp.waitForRequests(1, 'cancel-lost');
    const runner = await until('the attempt to be started by a worker', async () => {
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      return pending[0]?.lastWorkerIdentity || undefined;
    });
    await workers.find((w) => runner.startsWith(w.identityPrefix))?.kill9();
    // The attempt cannot learn of the cancel (its worker is gone): it ends by the heartbeat timeout, after it.
    await handle.cancel();
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    const history = await handle.fetchHistory();
    const types = (history.events ?? []).map(eventTypeName);
    expect(types.indexOf('ActivityTaskTimedOut')).toBeGreaterThan(
      types.indexOf('ActivityTaskCancelRequested'),
    );
    const records = await handle.query(attemptsQuery);
    expect(records.map((r) => [r.outcome, r.failure?.class, r.failure?.action])).toEqual([
      ['failed', 'WorkerLost', undefined],
    ]);
    const fromHistory = readCallHistory(history);
    expect(fromHistory.attempts).toEqual(records);
    expect(fromHistory.stopReason).toBe('cancelled');
    expect(fx.lp.requestCount('cancel-lost')).toBe(1);
  });
});
