import { randomUUID } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.js';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { limitQueue } from '../../common/limits.js';
import { hang, ok, toolCall } from '../../loopback/index.js';
import { extendDeadlineUpdate } from '../../common/queries.js';
import { finishTurn, runTurn } from '../harness/agent-turn.js';
import { until } from '../harness/until.js';
import { useFixture } from '../harness/fixture.js';
import { loopbackProviders } from '../harness/model-call.js';
import { startTcpProxy } from '../harness/tcp-proxy.js';

describe("an agent turn's stop rules: the deadline as it is now, and first in the contract's order", () => {
  const { fx, worker } = useFixture();

  it('goes on after extendDeadline when an attempt in flight runs into the old deadline', async () => {
    // The first attempt's timeouts are set from the deadline at 5 s (less 1 s reserve). It runs on a worker whose
    // network then stalls, so that Temporal's schedule-to-close timeout (set from that deadline) ends it at 4 s,
    // after the host has moved the deadline a minute later. The turn goes on under the new deadline, as after an
    // attempt timeout its plan retries, instead of stopping `deadline`. (The attempt runs on its backend's limit
    // queue, which only the stalled worker polls; the turn's own worker talks to Temporal directly.)
    const taskQueue = `test-${randomUUID()}`;
    const providers = loopbackProviders(fx.lp, { rated: { limits: { requestsPerSecond: 50 } } });
    const activities = createActivities({ providers });
    const namespace = inject('temporalNamespace');
    const proxy = await startTcpProxy(inject('temporalAddress'));
    const direct = await NativeConnection.connect({ address: inject('temporalAddress') });
    const stalling = await NativeConnection.connect({ address: proxy.address });
    const turns = await Worker.create({
      connection: direct,
      namespace,
      taskQueue,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities,
    });
    const attempts = await Worker.create({
      connection: stalling,
      namespace,
      taskQueue: limitQueue(taskQueue, 'rated'),
      activities,
    });
    const running = [turns.run(), attempts.run()];
    try {
      const id = `stall-${randomUUID().slice(0, 8)}`;
      fx.lp.script(id, [hang(), ok('done')]);
      const handle = await startAgentTurn(
        fx.temporal.client,
        {
          model: `rated:${id}`,
          prompt: 'Take your time',
          retry: { waits: [50], attemptTimeoutMs: 60_000, minAttemptMs: 500 },
          // Room for the first request and the update before the old deadline's timeout fires, on a loaded machine.
          deadlineInMs: 12_000,
          reserveMs: 1000,
        },
        { taskQueue },
      );
      await fx.lp.waitForRequests(1, id);
      proxy.hold();
      const extended = await handle.executeUpdate(extendDeadlineUpdate, { args: [{ byMs: 60_000 }] });
      const timedOut = await until('the attempt to time out', async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        return (
          events.find((e) => e.activityTaskTimedOutEventAttributes)?.activityTaskTimedOutEventAttributes ??
          undefined
        );
      });
      expect(timedOut.failure?.timeoutFailureInfo?.timeoutType).toBe(3); // SCHEDULE_TO_CLOSE
      proxy.release();
      const run = await finishTurn(fx, handle);
      expect(run.result?.stopReason).toBe('succeeded');
      expect(run.result?.text).toBe('done');
      expect(run.result?.deadline).toBe(extended.deadline);
      expect(run.records.map((r) => [r.modelCallId, r.outcome, r.failure?.class])).toEqual([
        ['c1.1', 'failed', 'ResponseTimeout'],
        ['c1.2', 'succeeded', undefined],
      ]);
      expect(fx.lp.requestCount(id)).toBe(2);
    } finally {
      proxy.release();
      turns.shutdown();
      attempts.shutdown();
      await Promise.allSettled(running);
      await Promise.all([direct.close(), stalling.close()]);
      await proxy.cut();
    }
  });

  it('stops `deadline`, not `max-steps`, at maxSteps when the deadline has also passed', async () => {
    // One step (maxSteps 1) whose tool takes 4 s: after it the turn is at maxSteps, and 6 s of minAttemptMs and
    // 1 s of reserve no longer fit before the deadline at 10 s. The contract asks the deadline first.
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('sleep_ms', { ms: 4000 })]);
    const run = await runTurn(fx, worker, {
      model: m.name,
      prompt: 'Nap once',
      tools: ['sleep_ms'],
      maxSteps: 1,
      retry: { waits: [100], minAttemptMs: 6000 },
      deadlineInMs: 10_000,
      reserveMs: 1000,
    });
    expect(run.result?.stopReason).toBe('deadline');
    expect(run.result?.why).toMatch(/deadline/);
    expect(run.result?.steps).toHaveLength(1);
    expect(run.status.stopReason).toBe('deadline');
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });
});
