import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { replayAll } from '../harness/replay.js';
import { createTestNamespace } from '../harness/namespace.js';
import { until } from '../harness/processes.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ModelRetryPlugin } from '../../plugin/index.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fail, ok, toolCall } from '../../loopback/index.js';
import { modelCallFixture, story } from '../harness/model-call.js';
import type { ModelCallFixture } from '../harness/model-call.js';
import { bundleAiSdkWorkflows, finishAiSdkRun, startAiSdkWorker } from '../harness/ai-sdk.js';
import type { AiSdkWorker } from '../harness/ai-sdk.js';
import type { AgentInput, AgentOutput } from '../../bench/workflows/ai-sdk-agent.js';
import { subscribeCallStream } from '../../client/call-stream.js';
import type { CallStreamItem } from '../../client/call-stream.js';
import type { ModelCallFailedDetails } from '../../common/call.js';
import { ENCRYPTED_ENCODING } from '../../payloads/index.js';
import { key, metadataOf } from '../unit/payloads/helpers.js';

type History = temporal.api.history.v1.IHistory;

const PROMPT = 'What is the weather in Paris?';
const WORDS = ['The ', 'quick ', 'brown ', 'fox ', 'jumps ', 'over ', 'the ', 'lazy ', 'dog.'];
const ANSWER = WORDS.join('');

/** Reads a workflow's stream from outside until it ends, keeping the text deltas. */
function subscribe(worker: AiSdkWorker, workflowId: string) {
  const items: CallStreamItem[] = [];
  const done = (async () => {
    for await (const item of subscribeCallStream(worker.client, workflowId, { pollCooldownMs: 20 }))
      items.push(item);
  })();
  const deltas = () => items.flatMap((i) => (i.kind === 'delta' ? [i.delta] : []));
  return {
    done,
    deltas,
    text: () =>
      deltas()
        .map((d) => d.text)
        .join(''),
  };
}

describe('the AI SDK in workflow code: durableModel', () => {
  let fx: ModelCallFixture;
  let code: string;
  let mr: AiSdkWorker;
  beforeAll(async () => {
    [fx, code] = await Promise.all([modelCallFixture(), bundleAiSdkWorkflows()]);
    mr = await startAiSdkWorker(fx, code, { plugin: { activities: { providers: fx.providers } } });
  });
  afterAll(async () => {
    try {
      // Every run of this file, replayed against the bundle it ran on: the AI SDK in the sandbox is deterministic.
      if (histories.length > 0) {
        const dir = mkdtempSync(join(tmpdir(), 'model-retry-ai-sdk-'));
        writeFileSync(join(dir, 'bundle.js'), code);
        try {
          await replayAll(histories, { workflowBundlePath: join(dir, 'bundle.js') });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    } finally {
      await mr?.stop();
      await fx?.close();
    }
  });
  const histories: { workflowId: string; history: History }[] = [];
  const finish = async <T>(handle: WorkflowHandle) => {
    const run = await finishAiSdkRun<T>(handle);
    histories.push({ workflowId: handle.workflowId, history: run.history });
    return run;
  };

  const start = (worker: AiSdkWorker, workflow: string, args: AgentInput) =>
    worker.client.workflow.start(workflow, {
      args: [args],
      taskQueue: worker.taskQueue,
      workflowId: `ai-sdk-${randomUUID()}`,
    });
  const runAgent = async (worker: AiSdkWorker, workflow: string, args: AgentInput) =>
    finish<AgentOutput>(await start(worker, workflow, args));

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

  it('runs generateObject through the structured-output path: a mismatch is repaired on the same backend', async () => {
    const m = fx.model();
    // The first answer lacks `celsius` (and comes fenced); the repair answers in full.
    fx.lp.script(m.id, [
      ok('```json\n{"city":"Paris"}\n```'),
      ok('```json\n{"city":"Paris","celsius":21}\n```'),
    ]);
    const handle = await start(mr, 'durableObjectWorkflow', {
      model: m.name,
      prompt: PROMPT,
      options: { retry: { waits: [10] } },
    });
    const run = await finish<unknown>(handle);
    expect(run.result).toEqual({ city: 'Paris', celsius: 21 });
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'SchemaMismatch', action: 'repair', retryInMs: 0 },
      { backend: 0, outcome: 'succeeded' },
    ]);
    // The repair carries the bad answer and the validator's complaint about the missing field.
    const repair = JSON.stringify(fx.lp.requests(m.id)[1]?.body);
    expect(repair).toContain('celsius');
    expect(repair).toContain('{\\"city\\":\\"Paris\\"}');
    expect(fx.lp.requestCount(m.id)).toBe(2);
  });

  it("keeps one budget across a durable model's requests: the second stops `budget` before it is sent", async () => {
    const m = fx.model();
    fx.lp.script(m.id, [
      toolCall('weather', { city: 'Paris' }, { usage: { inputTokens: 1000, outputTokens: 500 } }),
      ok('Sunny in Paris.'),
    ]);
    const handle = await start(mr, 'durableAgentWorkflow', {
      model: m.name,
      prompt: PROMPT,
      // The first request spends 1,500 tokens; the second's worst case (its input + the largest output seen)
      // would pass 1,600 together with it.
      options: { budget: { maxTotalTokens: 1600 } },
    });
    const run = await finish<AgentOutput>(handle);
    const details = run.failure?.details?.[0] as ModelCallFailedDetails | undefined;
    expect(details?.stopReason).toBe('budget');
    expect(details?.spent?.totalTokens).toBe(1500);
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it('counts two requests made at once on one durable model in its budget: the third stops `budget`', async () => {
    const m = fx.model();
    const usage = { inputTokens: 10, outputTokens: 500 };
    fx.lp.script(m.id, [ok('one', { usage }), ok('two', { usage }), ok('three', { usage })]);
    const handle = await start(mr, 'durableTwoAtOnceWorkflow', {
      model: m.name,
      prompt: PROMPT,
      // Each of the first two fits alone (nothing spent, no output seen yet); together they spent 1,020 tokens, and
      // the third's worst case (10 reported input + the largest output seen, 500) would pass 1,400.
      options: { budget: { maxTotalTokens: 1400 } },
    });
    const run = await finish<string[]>(handle);
    const details = run.failure?.details?.[0] as ModelCallFailedDetails | undefined;
    expect(details?.stopReason).toBe('budget');
    expect(details?.spent?.totalTokens).toBe(1020);
    expect(fx.lp.requestCount(m.id)).toBe(2);
  });

  it('refuses an option durableModel does not know, naming it, before any request', async () => {
    const m = fx.model();
    const handle = await start(mr, 'durableAgentWorkflow', {
      model: m.name,
      prompt: PROMPT,
      options: { budjet: { maxTotalTokens: 10 } } as never,
    });
    const run = await finish<AgentOutput>(handle);
    expect(run.failure?.message).toMatch(/budjet/);
    expect(fx.lp.requestCount(m.id)).toBe(0);
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

  it('streams streamText deltas to an outside subscriber as they come, and the workflow gets the same text', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok(undefined, { chunks: WORDS, chunkDelayMs: 15 })]);
    const handle = await start(mr, 'durableStreamWorkflow', {
      model: m.name,
      prompt: 'hi',
      options: { stream: { batchMs: 20 } },
    });
    const reader = subscribe(mr, handle.workflowId);
    const run = await finish<{ text: string; deltas: number }>(handle);
    await reader.done;
    expect(run.result?.text).toBe(ANSWER);
    expect(reader.text()).toBe(ANSWER);
    expect(reader.deltas()).toHaveLength(WORDS.length);
    expect(fx.lp.requests(m.id)[0]?.stream).toBe(true);
    expect(run.records).toMatchObject([{ outcome: 'succeeded', streamedDeltas: WORDS.length }]);
  });

  it('never re-sends a stream cut after deltas reached the subscriber: the call stops stream-interrupted', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok(undefined, { chunks: WORDS, chunkDelayMs: 40, cutAfterChunks: 5 }), ok(ANSWER)]);
    const handle = await start(mr, 'durableStreamWorkflow', {
      model: m.name,
      prompt: 'hi',
      options: { stream: { batchMs: 10 }, retry: { waits: [10, 10] } },
    });
    const reader = subscribe(mr, handle.workflowId);
    const run = await finish(handle);
    await reader.done;
    const details = run.failure?.details?.[0] as ModelCallFailedDetails | undefined;
    expect(run.failure?.type).toBe('ModelCallFailed');
    expect(details?.stopReason).toBe('stream-interrupted');
    expect(fx.lp.requestCount(m.id)).toBe(1);
    expect(reader.text()).toBe(details?.partialText);
    expect(reader.text().length).toBeGreaterThan(0);
    expect(run.records).toHaveLength(1);
    fx.lp.reset();
  });

  it('gives a Worker the activities and a Worker and a Client the data converter through ModelRetryPlugin', async () => {
    const marker = 'PLUGIN-MARKER-4d1e: what is the weather in Lyon?';
    const warnings: string[] = [];
    const sealed = await startAiSdkWorker(fx, code, {
      plugin: {
        activities: { providers: fx.providers },
        payloads: { codecKeys: [key('k1')] },
        warn: (w) => warnings.push(w),
      },
    });
    try {
      const m = fx.model();
      fx.lp.script(m.id, [toolCall('weather', { city: 'Lyon' }), ok('Sunny in Lyon.')]);
      const handle = await start(sealed, 'durableAgentWorkflow', { model: m.name, prompt: marker });
      const run = await finish<AgentOutput>(handle);
      expect(run.result?.text).toBe('Sunny in Lyon.');
      expect(run.records.map((r) => r.outcome)).toEqual(['succeeded', 'succeeded']);
      // The server holds the input as the plugin's client encrypted it: a client without the plugin sees no prompt.
      const raw = await fx.temporal.client.workflow.getHandle(handle.workflowId).fetchHistory();
      const started = raw.events?.[0]?.workflowExecutionStartedEventAttributes;
      expect(metadataOf(started?.input?.payloads?.[0] ?? undefined, 'encoding')).toBe(ENCRYPTED_ENCODING);
      expect(JSON.stringify(raw)).not.toContain('PLUGIN-MARKER');
      // The dev server has model-retry's search attributes: the worker's check found them, so it said nothing.
      expect(warnings).toEqual([]);
    } finally {
      await sealed.stop();
    }
  });

  it('runs the same agent written with @temporalio/ai-sdk (the comparison)', async () => {
    const temporal = await startAiSdkWorker(fx, code, { temporal: true });
    try {
      const m = fx.model();
      fx.lp.script(m.id, [toolCall('weather', { city: 'Paris' }), ok('Sunny in Paris.')]);
      const run = await runAgent(temporal, 'temporalAgentWorkflow', {
        model: m.id,
        prompt: PROMPT,
      } as AgentInput);
      expect(run.result).toMatchObject({
        text: 'Sunny in Paris.',
        steps: 2,
        toolResults: ['sunny, 21C in Paris'],
      });
      // Its requests are its own activities (`invokeModel`), not model-retry's: nothing to rebuild.
      expect(run.records).toEqual([]);
      expect(fx.lp.requestCount(m.id)).toBe(2);
    } finally {
      await temporal.stop();
    }
  });

  it("warns at a Worker's start when the namespace lacks model-retry's search attributes, and the Worker runs", async () => {
    const { namespace } = await createTestNamespace(fx.temporal.client.connection, 'ai-sdk-no-sa');
    const warnings: string[] = [];
    const native = await NativeConnection.connect({ address: inject('temporalAddress') });
    try {
      const worker = await Worker.create({
        connection: native,
        namespace,
        taskQueue: `ai-sdk-no-sa-${randomUUID()}`,
        workflowBundle: { code },
        plugins: [
          new ModelRetryPlugin({ activities: { providers: fx.providers }, warn: (w) => warnings.push(w) }),
        ],
      });
      await worker.runUntil(until('the warning', () => (warnings.length > 0 ? true : undefined), 60_000));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`not ready on namespace "${namespace}"`);
    } finally {
      await native.close();
    }
  });
});
