import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fail, ok, toolCall } from '../../loopback/index.js';
import { modelCallFixture, story } from '../harness/model-call.js';
import type { ModelCallFixture } from '../harness/model-call.js';
import { bundleAiSdkWorkflows, finishAiSdkRun, startAiSdkWorker } from '../harness/ai-sdk.js';
import type { AiSdkWorker } from '../harness/ai-sdk.js';
import type { AgentInput, AgentOutput } from '../harness/ai-sdk-workflows.js';

const PROMPT = 'What is the weather in Paris?';

describe('the AI SDK in workflow code: durableModel', () => {
  let fx: ModelCallFixture;
  let code: string;
  let mr: AiSdkWorker;
  beforeAll(async () => {
    [fx, code] = await Promise.all([modelCallFixture(), bundleAiSdkWorkflows()]);
    mr = await startAiSdkWorker(fx, code, { plugin: { activities: { providers: fx.providers } } });
  });
  afterAll(async () => {
    await mr?.stop();
    await fx?.close();
  });

  const runAgent = async (worker: AiSdkWorker, workflow: string, args: AgentInput) => {
    const handle = await worker.client.workflow.start(workflow, {
      args: [args],
      taskQueue: worker.taskQueue,
      workflowId: `ai-sdk-${randomUUID()}`,
    });
    return finishAiSdkRun<AgentOutput>(handle);
  };

  it('runs generateText with a tool that calls an activity and stopWhen: each model request is one callModel, on record', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [toolCall('weather', { city: 'Paris' }), ok('Sunny in Paris.')]);
    const run = await runAgent(mr, 'durableAgentWorkflow', { model: m.name, prompt: PROMPT });
    expect(run.result).toEqual({
      text: 'Sunny in Paris.',
      steps: 2,
      toolResults: ['sunny, 21C in Paris'],
      calls: [
        { callId: 'c1', model: m.name, backend: 0, attempts: 1 },
        { callId: 'c2', model: m.name, backend: 0, attempts: 1 },
      ],
    });
    expect(run.records.map((r) => [r.modelCallId, r.outcome, r.finishReason])).toEqual([
      ['c1.1', 'succeeded', 'tool-calls'],
      ['c2.1', 'succeeded', 'stop'],
    ]);
    // The second request carries the conversation: system, user, the assistant's tool call, the tool's result.
    const second = fx.lp.requests(m.id)[1]?.body as { messages: { role: string; content?: unknown }[] };
    expect(second.messages.map((msg) => msg.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(second.messages[3]?.content).toBe('sunny, 21C in Paris');
    expect(fx.lp.requestCount(m.id)).toBe(2);
  });

  it("retries and falls back by model-retry's classification, each attempt an activity in history", async () => {
    const a = fx.model('a');
    const b = fx.model('b');
    fx.lp.script(a.id, [fail(401), fail(401)]);
    fx.lp.script(b.id, [fail(503), toolCall('weather', { city: 'Oslo' }), ok('Cold in Oslo.')]);
    const run = await runAgent(mr, 'durableAgentWorkflow', {
      model: [a.name, b.name],
      prompt: 'And in Oslo?',
      options: { retry: { waits: [10, 10] }, deadlineInMs: 600_000, reserveMs: 1000 },
    });
    expect(run.result?.text).toBe('Cold in Oslo.');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'AuthFailed', action: 'drop', retryInMs: 0 },
      { backend: 1, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: 10 },
      { backend: 1, outcome: 'succeeded' },
      { backend: 0, outcome: 'failed', class: 'AuthFailed', action: 'drop', retryInMs: 0 },
      { backend: 1, outcome: 'succeeded' },
    ]);
    expect(run.result?.calls).toEqual([
      { callId: 'c1', model: b.name, backend: 1, attempts: 3 },
      { callId: 'c2', model: b.name, backend: 1, attempts: 2 },
    ]);
    expect([fx.lp.requestCount(a.id), fx.lp.requestCount(b.id)]).toEqual([2, 3]);
  });

  it('fails the workflow with ModelCallFailed on a 400, after one request', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(400)]);
    const run = await runAgent(mr, 'durableAgentWorkflow', {
      model: m.name,
      prompt: PROMPT,
      options: { retry: { waits: [10, 10] } },
    });
    expect(run.failure?.type).toBe('ModelCallFailed');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'BadRequest', action: 'abort' },
    ]);
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it('refuses a bad plan, naming the field, before any request', async () => {
    const m = fx.model();
    const run = await runAgent(mr, 'durableAgentWorkflow', {
      model: m.name,
      prompt: PROMPT,
      options: { retry: { waits: [10] }, deadline: '2099-01-01T00:00:00Z', deadlineInMs: 60_000 },
    });
    expect(run.failure?.type).toBe('InvalidRetryPlan');
    expect(run.failure?.message).toContain('deadlineInMs');
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });
});
