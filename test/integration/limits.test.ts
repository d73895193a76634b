import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import { eventTypeName } from '../../client/history-format.js';
import { startModelCall } from '../../client/model-call-client.js';
import { hang, ok, slow } from '../../loopback/index.js';
import type { RecordedRequest } from '../../loopback/record.js';
import { attemptsQuery } from '../../common/queries.js';
import { useFixture } from '../harness/fixture.js';
import { runCall, TEST_SECRETS } from '../harness/model-call.js';
import { until } from '../harness/until.js';
import type { TestWorker } from '../harness/temporal.js';

/** The most requests the provider was answering at once, from when each arrived and ended. */
function peakInFlight(requests: readonly RecordedRequest[]): number {
  const edges = requests.flatMap((r) => [
    { at: r.receivedAt, d: 1 },
    { at: r.endedAt ?? Number.POSITIVE_INFINITY, d: -1 },
  ]);
  edges.sort((a, b) => a.at - b.at || a.d - b.d); // an end before a start at the same instant
  let now = 0;
  let peak = 0;
  for (const e of edges) peak = Math.max(peak, (now += e.d));
  return peak;
}

/** The task queue of each attempt activity scheduled in `history`, in order. */
function attemptQueues(history: Awaited<ReturnType<typeof runCall>>['history']): string[] {
  return (history.events ?? []).flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    return a && a.activityType?.name === 'modelRequest' ? [a.taskQueue?.name ?? ''] : [];
  });
}

describe('limits: requestsPerSecond through a limit queue of its own, maxInFlight per worker process', () => {
  const { fx } = useFixture({ worker: false });
  const tag = randomUUID().slice(0, 8);
  const rated = `rated-${tag}`;
  const capped = `capped-${tag}`;
  const single = `single-${tag}`;
  const free = `free-${tag}`;

  const start = (): Promise<TestWorker> => {
    const providers = createProviderRegistry(
      {
        local: {
          type: 'openai-compatible',
          baseURL: fx.lp.openaiBaseURL,
          apiKeyEnv: 'LOOPBACK_KEY',
          models: {
            [rated]: { limits: { requestsPerSecond: 50 } },
            [capped]: { limits: { maxInFlight: 2 } },
            [single]: { limits: { maxInFlight: 1 } },
          },
        },
        claude: {
          type: 'anthropic',
          baseURL: fx.lp.anthropicBaseURL,
          apiKeyEnv: 'LOOPBACK_ANTHROPIC_KEY',
          limits: { requestsPerSecond: 50 },
        },
      },
      { env: { LOOPBACK_KEY: TEST_SECRETS.apiKey, LOOPBACK_ANTHROPIC_KEY: TEST_SECRETS.anthropicKey } },
    );
    return fx.temporal.startWorker({ deps: { providers } });
  };

  it("runs a limited backend's attempts on its limit queue, a provider's on the provider's, others on the call's", async () => {
    const worker = await start();
    fx.lp.script(rated, [ok('rated answer')]);
    fx.lp.script(`claude-${tag}`, [ok('claude answer')]);
    fx.lp.script(free, [ok('free answer')]);
    const onRated = await runCall(fx, worker, { model: `local:${rated}`, prompt: 'hi' });
    const onClaude = await runCall(fx, worker, { model: `claude:claude-${tag}`, prompt: 'hi' });
    const onFree = await runCall(fx, worker, { model: `local:${free}`, prompt: 'hi' });
    expect(onRated.result?.output.text).toBe('rated answer');
    expect(onClaude.result?.output.text).toBe('claude answer');
    expect(onFree.result?.output.text).toBe('free answer');
    expect(attemptQueues(onRated.history)).toEqual([`${worker.taskQueue}/limit/local:${rated}`]);
    expect(attemptQueues(onClaude.history)).toEqual([`${worker.taskQueue}/limit/claude`]);
    expect(attemptQueues(onFree.history)).toEqual([worker.taskQueue]);
    // The worker's limits reached the workflow through its one marker, recorded before the first attempt.
    const types = (onFree.history.events ?? []).map(eventTypeName);
    expect(types.filter((t) => t === 'MarkerRecorded')).toHaveLength(1);
    expect(types.indexOf('MarkerRecorded')).toBeLessThan(types.indexOf('ActivityTaskScheduled'));
    // The limit queue's rate is the queue's own config on this server.
    const described = await fx.temporal.client.workflowService.describeTaskQueue({
      namespace: fx.temporal.client.options.namespace,
      taskQueue: { name: `${worker.taskQueue}/limit/claude` },
      taskQueueType: 2, // activity
      reportConfig: true,
    });
    expect(described.config?.queueRateLimit?.rateLimit?.requestsPerSecond).toBe(50);
    await worker.stop();
  });

  it('never has more than maxInFlight requests of one worker at the provider at once, and every call answers', async () => {
    const worker = await start();
    const calls = 6;
    fx.lp.script(
      capped,
      Array.from({ length: calls }, (_, i) => slow(500, ok(`answer ${i}`))),
    );
    // Started together, on one model: (runCall's per-model request count is per call, so each is awaited alone.)
    const input = { model: `local:${capped}`, prompt: 'hi', retry: { attemptTimeoutMs: 60_000 } };
    const handles = await Promise.all(
      Array.from({ length: calls }, () =>
        startModelCall(fx.temporal.client, input, { taskQueue: worker.taskQueue }),
      ),
    );
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.map((r) => r.stopReason)).toEqual(Array(calls).fill('succeeded'));
    expect(peakInFlight(fx.lp.requests(capped))).toBeLessThanOrEqual(2);
    expect(fx.lp.requestCount(capped)).toBe(calls);
    await worker.stop();
  });

  it('cancels an attempt waiting for a slot: nothing is sent, and the call ends cancelled', async () => {
    const worker = await start();
    fx.lp.script(single, [hang()]);
    const input = { model: `local:${single}`, prompt: 'hi', retry: { attemptTimeoutMs: 120_000 } };
    const holder = await startModelCall(fx.temporal.client, input, { taskQueue: worker.taskQueue });
    await fx.lp.waitForRequests(1, single);
    const waiter = await startModelCall(fx.temporal.client, input, { taskQueue: worker.taskQueue });
    // Its attempt has started on the worker (it heartbeats while it waits for the slot).
    await until('the second attempt running', async () => {
      const pending = (await waiter.describe()).raw.pendingActivities ?? [];
      return pending.some((p) => p.state === 2 /* STARTED */) ? true : undefined;
    });
    await waiter.cancel();
    expect(await waiter.result().catch((e: unknown) => e)).toBeInstanceOf(WorkflowFailedError);
    expect((await waiter.describe()).status.name).toBe('CANCELLED');
    expect((await waiter.query(attemptsQuery)).map((r) => r.outcome)).toEqual(['cancelled']);
    expect(fx.lp.requestCount(single)).toBe(1);
    await holder.cancel();
    expect(await holder.result().catch((e: unknown) => e)).toBeInstanceOf(WorkflowFailedError);
    for (const h of [holder, waiter])
      fx.histories.push({ workflowId: h.workflowId, history: await h.fetchHistory() });
    await worker.stop();
  });
});
