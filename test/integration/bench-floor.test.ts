import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fail, ok } from '../../loopback/index.js';
import type { RecordedRequest } from '../../loopback/index.js';
import { startFloorWorker } from '../harness/floor/worker.js';
import { openTestBenchContext } from '../harness/bench.js';
import type { BenchContext, BenchWorker } from '../harness/lab.js';
import { runCall } from '../../bench/lib/calls.js';
import { countTypes } from '../../bench/lib/history.js';
import type { ModelCallResult } from '../../common/call.js';
import type { ChatMessage, ModelRequestResult } from '../../common/attempt.js';

/**
 * The floor the load benchmarks measure model-retry against (test/harness/floor/workflows.ts): it must make the very
 * request model-retry's attempt makes, and its retry path must be a durable timer between two activities.
 */
describe('the bench floor', () => {
  let ctx: BenchContext;
  let ours: BenchWorker;
  let floorWorker: BenchWorker;

  beforeAll(async () => {
    ctx = await openTestBenchContext();
    ours = await ctx.startWorker();
    floorWorker = await startFloorWorker(ctx);
  }, 120_000);

  afterAll(async () => {
    await floorWorker?.stop();
    await ours?.stop();
    await ctx?.close();
  });

  const start = (workflowType: string, input: unknown) =>
    ctx.client.workflow.start(workflowType, {
      taskQueue: floorWorker.taskQueue,
      workflowId: `bench-floor-test-${randomUUID()}`,
      args: [input],
    });
  const messages: ChatMessage[] = [{ role: 'user', content: 'the same question' }];
  /** A request as the provider saw it, less what names the model and the workflow. */
  const shape = (r: RecordedRequest) => ({
    method: r.method,
    path: r.path,
    headers: Object.keys(r.headers).sort(),
    body: { ...(r.body as Record<string, unknown>), model: 'M' },
    requestId: r.headers['x-request-id']?.replace(/^[^/]+\//, ''),
  });

  it("sends the same HTTP request as model-retry's attempt and returns the same record", async () => {
    const a = ctx.model('floor-same');
    const b = ctx.model('floor-same');
    ctx.lp.script(a.id, [ok('same answer')]);
    ctx.lp.script(b.id, [ok('same answer')]);
    const call = await runCall(ctx, ours.taskQueue, { model: a.name, messages });
    const handle = await start('floorCallWorkflow', { model: b.name, messages, timeoutMs: 30_000 });
    const floor = (await handle.result()) as ModelRequestResult;
    const [theirs, mine] = [ctx.lp.requests(a.id)[0], ctx.lp.requests(b.id)[0]];
    expect(call.ok).toBe(true);
    expect(theirs && mine && shape(mine)).toEqual(theirs && shape(theirs));
    expect(mine?.headers['x-request-id']).toBe(`${handle.workflowId}/c1.1`);
    const completed = call.history.events?.find((e) => e.activityTaskCompletedEventAttributes);
    const payload = completed?.activityTaskCompletedEventAttributes?.result?.payloads?.[0]?.data;
    const attempt = JSON.parse(Buffer.from(payload ?? []).toString('utf8')) as ModelRequestResult;
    expect(floor.text).toBe(attempt.text);
    const keys = (o: object) =>
      Object.keys(o)
        .filter((k) => k !== 'searchAttributesReady')
        .sort();
    expect(keys(floor)).toEqual(keys(attempt));
  });

  it('retries after a durable timer, with one activity per try', async () => {
    const m = ctx.model('floor-retry');
    ctx.lp.script(m.id, [fail(502), ok('after a wait')]);
    const handle = await start('floorRetryWorkflow', {
      model: m.name,
      messages,
      timeoutMs: 30_000,
      waits: [50, 50],
    });
    expect(((await handle.result()) as ModelRequestResult).text).toBe('after a wait');
    const types = countTypes(await handle.fetchHistory());
    expect(types.get('ActivityTaskScheduled')).toBe(2);
    expect(types.get('ActivityTaskFailed')).toBe(1);
    expect(types.get('TimerFired')).toBe(1);
    expect(ctx.lp.requests(m.id).map((r) => r.headers['x-request-id'])).toEqual([
      `${handle.workflowId}/c1.1`,
      `${handle.workflowId}/c1.2`,
    ]);
  });

  it('fails once its waits are spent, naming only the status', async () => {
    const m = ctx.model('floor-spent');
    ctx.lp.script(m.id, [fail(502), fail(502)]);
    const handle = await start('floorRetryWorkflow', {
      model: m.name,
      messages,
      timeoutMs: 30_000,
      waits: [20],
    });
    await expect(handle.result()).rejects.toMatchObject({
      cause: { cause: { type: 'FloorRequestFailed', message: 'the provider answered 502' } },
    });
    expect(ctx.lp.requestCount(m.id)).toBe(2);
  });

  it("runs callModel inside a user's workflow", async () => {
    const m = ctx.model('floor-user');
    ctx.lp.script(m.id, [fail(502), ok('from callModel')]);
    const handle = await ctx.client.workflow.start('userCallWorkflow', {
      taskQueue: ours.taskQueue,
      workflowId: `bench-user-call-${randomUUID()}`,
      args: [{ model: m.name, messages, retry: { waits: [20], retriesPerBackend: 1 } }],
    });
    const result = (await handle.result()) as ModelCallResult;
    expect(result.output.text).toBe('from callModel');
    expect(result.attempts).toHaveLength(2);
  });
});
