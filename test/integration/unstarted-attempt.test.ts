import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { startModelCall } from '../../client/model-call-client.js';
import { ok } from '../../loopback/index.js';
import { useFixture } from '../harness/fixture.js';
import { finishCall, loopbackProviders } from '../harness/model-call.js';

/**
 * An attempt that no worker ever started (history: `ActivityTaskScheduled`, then `ActivityTaskTimedOut`
 * SCHEDULE_TO_START, no `ActivityTaskStarted`) sent nothing: it is not `ResponseTimeout` ("connected, but no
 * complete answer"), and no budget counts it at its worst case. Made deterministic the way docs/guide/call-model.md warns of: a
 * worker of one's own whose providers have a `requestsPerSecond`, that does not poll the limit queue, so the
 * attempt waits there until the call's deadline (less the reserve).
 */
describe('an attempt that no worker started before the deadline', () => {
  const { fx } = useFixture({ worker: false });
  const id = `unstarted-${randomUUID().slice(0, 8)}`;
  let connection: NativeConnection | undefined;
  afterAll(async () => {
    await connection?.close();
  });

  it('is not ResponseTimeout: nothing was sent, nothing counted as spent, the call stops deadline', async () => {
    connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const taskQueue = `test-${randomUUID()}`;
    const providers = loopbackProviders(fx.lp, { rated: { limits: { requestsPerSecond: 1 } } });
    // The call's own queue only: nobody polls `<taskQueue>/limit/rated`.
    const worker = await Worker.create({
      connection,
      namespace: inject('temporalNamespace'),
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities({ providers }),
    });
    fx.lp.script(id, [ok('never asked')]);
    const run = await worker.runUntil(async () =>
      finishCall(
        fx,
        await startModelCall(
          fx.temporal.client,
          {
            model: `rated:${id}`,
            prompt: 'hi',
            retry: { maxAttempts: 3, deadlineInMs: 3_000, reserveMs: 0, minAttemptMs: 100 },
            budget: { maxTotalTokens: 1_000_000 },
          },
          { taskQueue },
        ),
      ),
    );
    const events = run.history.events ?? [];
    // The history of the case: scheduled on the limit queue, never started, timed out at the deadline. The server
    // reports SCHEDULE_TO_START, not SCHEDULE_TO_CLOSE: with no schedule-to-start timeout of its own, an activity's
    // schedule-to-start is its schedule-to-close, and an attempt never started fires that one.
    expect(events.some((e) => e.activityTaskStartedEventAttributes)).toBe(false);
    const timedOut = events.find(
      (e) => e.activityTaskTimedOutEventAttributes,
    )?.activityTaskTimedOutEventAttributes;
    expect(Number(timedOut?.startedEventId ?? 0)).toBe(0);
    expect(timedOut?.failure?.timeoutFailureInfo?.timeoutType).toBe(2); // SCHEDULE_TO_START
    expect(fx.lp.requestCount(id)).toBe(0);
    expect(run.details?.stopReason).toBe('deadline');
    expect(run.records).toHaveLength(1);
    expect(run.records[0]?.failure?.class).not.toBe('ResponseTimeout');
    expect(run.records[0]?.failure?.class).toBe('Unknown');
    expect(run.records[0]?.failure?.message).toBe('no worker picked up the attempt in time');
    // Not a request that may have been billed (a ResponseTimeout counts its worst case).
    expect(run.details?.spent?.totalTokens ?? 0).toBe(0);
  });
});
