import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, toolCall } from '../../loopback/index.js';
import type { RecordedRequest } from '../../loopback/index.js';
import { startAgentTurn } from '../../client/agent-turn-client.js';
import { openTestBenchContext } from '../harness/bench.js';
import type { BenchContext, BenchWorker } from '../harness/lab.js';
import { startFloorWorker } from '../harness/floor/worker.js';
import { countTypes } from '../../bench/lib/history.js';

/**
 * The floor the `turn` benchmark measures agent turns against (`floorTurnWorkflow`): a plain workflow with the
 * same activities, making the same HTTP requests as model-retry's turn at every step (the conversation so far
 * and the tools), so that the two differ only in what model-retry adds.
 */
describe('the bench floor of an agent turn', () => {
  let ctx: BenchContext;
  let ours: BenchWorker;
  let floor: BenchWorker;

  beforeAll(async () => {
    ctx = await openTestBenchContext();
    ours = await ctx.startWorker();
    floor = await startFloorWorker(ctx);
  }, 120_000);

  afterAll(async () => {
    await floor?.stop();
    await ours?.stop();
    await ctx?.close();
  });

  /** A request body as the provider saw it, less what names the model and the tool calls' ids. */
  const body = (r: RecordedRequest) =>
    JSON.parse(
      JSON.stringify({ ...(r.body as object), model: 'M' }).replace(/"call_[^"]*"/g, '"ID"'),
    ) as unknown;

  it("sends the same requests as model-retry's turn, step by step, with the same activities", async () => {
    const a = ctx.model('floor-turn');
    const b = ctx.model('floor-turn');
    const script = [
      toolCall('calculator', { expression: '6 * 7' }),
      toolCall('calculator', { expression: '6 * 7' }),
      ok('42'),
    ];
    ctx.lp.script(a.id, script);
    ctx.lp.script(b.id, script);
    const input = { prompt: 'Calculate, then answer.', tools: ['calculator'], maxSteps: 3 };
    const mine = await startAgentTurn(
      ctx.client,
      { ...input, model: a.name },
      { taskQueue: ours.taskQueue, workflowId: `bench-turn-test-${randomUUID()}` },
    );
    const theirs = await ctx.client.workflow.start('floorTurnWorkflow', {
      taskQueue: floor.taskQueue,
      workflowId: `bench-turn-floor-test-${randomUUID()}`,
      args: [{ ...input, model: b.name }],
    });
    expect((await mine.result()).text).toBe('42');
    expect(await theirs.result()).toEqual({ steps: 3, text: '42' });
    const [ourRequests, floorRequests] = [ctx.lp.requests(a.id), ctx.lp.requests(b.id)];
    expect(floorRequests).toHaveLength(3);
    expect(floorRequests.map(body)).toEqual(ourRequests.map(body));
    const scheduled = async (h: { fetchHistory: typeof theirs.fetchHistory }) =>
      countTypes(await h.fetchHistory()).get('ActivityTaskScheduled');
    expect(await scheduled(theirs)).toBe(await scheduled(mine));
  });
});
