import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { replayAll } from '../harness/replay.js';
import { createTestNamespace } from '../harness/namespace.js';
import { until } from '../harness/until.js';
import { NativeConnection, Worker } from '@temporalio/worker';
import { ModelRetryPlugin } from '../../plugin/index.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { continuing, fail, hang, ok, toolCall } from '../../loopback/index.js';
import { modelCallFixture, story } from '../harness/model-call.js';
import type { ModelCallFixture } from '../harness/model-call.js';
import { bundleAiSdkWorkflows, finishAiSdkRun, runEnd, startAiSdkWorker } from '../harness/ai-sdk.js';
import type { AiSdkWorker } from '../harness/ai-sdk.js';
import type { AgentInput, AgentOutput } from '../harness/bundle/ai-sdk-agent.js';
import type { AbortInput, StreamTextInput, TextInput, TextOutput } from '../harness/ai-sdk-workflows.js';

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

  const start = (
    worker: AiSdkWorker,
    workflow: string,
    args: AgentInput | TextInput | StreamTextInput | AbortInput,
  ) =>
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
        expect.objectContaining({ callId: 'c1', model: m.name, backend: 0, attempts: 1, chain: [m.name] }),
        expect.objectContaining({ callId: 'c2', model: m.name, backend: 0, attempts: 1, chain: [m.name] }),
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
      expect.objectContaining({ callId: 'c1', model: b.name, backend: 1, attempts: 3 }),
      expect.objectContaining({ callId: 'c2', model: b.name, backend: 1, attempts: 2 }),
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
    // Each text delta once, then the finish part of the accepted answer.
    expect(reader.deltas().filter((d) => d.text !== '')).toHaveLength(WORDS.length);
    expect(reader.deltas().at(-1)?.part?.type).toBe('finish');
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

  it('retries without `retry` as the AI SDK does by default: a 500, a wait of 2 s, then the answer', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(500), ok('Sunny.')]);
    const run = await finish<TextOutput>(
      await start(mr, 'durableTextWorkflow', { model: m.name, prompt: PROMPT }),
    );
    expect(run.result?.text).toBe('Sunny.');
    expect(story(run.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: 2000 },
      { backend: 0, outcome: 'succeeded' },
    ]);
    expect(fx.lp.requestCount(m.id)).toBe(2);
  });

  it('makes one attempt with `retry: false`, whatever `maxRetries` says (the plan is the one retry owner)', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(500), ok('never')]);
    const run = await finish<TextOutput>(
      await start(mr, 'durableTextWorkflow', {
        model: m.name,
        prompt: PROMPT,
        maxRetries: 5,
        options: { retry: false },
      }),
    );
    expect(run.failure?.type).toBe('ModelCallFailed');
    expect(fx.lp.requestCount(m.id)).toBe(1);
  });

  it("names the first backend's model and provider as the AI SDK's telemetry sees them, and the answer's model", async () => {
    const a = fx.model('a');
    const b = fx.model('b');
    fx.lp.script(a.id, [fail(401)]);
    fx.lp.script(b.id, [ok('From b.')]);
    const run = await finish<TextOutput>(
      await start(mr, 'durableTextWorkflow', { model: [a.name, b.name], prompt: PROMPT }),
    );
    expect(run.result).toEqual({
      text: 'From b.',
      provider: 'local',
      modelId: a.id,
      // The provider's own model id of the answer, and the backend that gave it.
      responseModelId: b.id,
      calls: {
        callId: 'c1',
        model: b.name,
        backend: 1,
        chain: [a.name, b.name],
        attempts: 2,
        tried: [
          expect.objectContaining({ model: a.name, outcome: 'failed' }),
          { modelCallId: 'c1.2', model: b.name, outcome: 'succeeded' },
        ],
      },
    });
  });

  it('carries provider options and request headers to the provider unchanged', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('Sunny.')]);
    const run = await finish<TextOutput>(
      await start(mr, 'durableTextWorkflow', {
        model: m.name,
        prompt: PROMPT,
        providerOptions: { local: { user: 'user-7', service_tier: 'flex', metadata: { team: 'blue' } } },
        headers: { 'X-Team': 'blue' },
      }),
    );
    expect(run.result?.text).toBe('Sunny.');
    const [request] = fx.lp.requests(m.id);
    expect(request?.body).toMatchObject({ user: 'user-7', service_tier: 'flex', metadata: { team: 'blue' } });
    expect(request?.headers['x-team']).toBe('blue');
  });

  it("gives a durable model's attempts its tenant as their fairness key, and sets nothing on the user's workflow", async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('Sunny.')]);
    const handle = await start(mr, 'durableTextWorkflow', {
      model: m.name,
      prompt: PROMPT,
      options: { tenant: 'acme' },
    });
    const run = await finish<TextOutput>(handle);
    expect(run.result?.text).toBe('Sunny.');
    const events = run.history.events ?? [];
    const keys = events.flatMap((e) =>
      e.activityTaskScheduledEventAttributes
        ? [e.activityTaskScheduledEventAttributes.priority?.fairnessKey]
        : [],
    );
    expect(keys).toEqual(['acme']);
    // The user's workflow: no priority of ours, no upsert, no ModelRetryTenant.
    expect(events[0]?.workflowExecutionStartedEventAttributes?.priority?.fairnessKey ?? '').toBe('');
    expect(events.some((e) => e.upsertWorkflowSearchAttributesEventAttributes)).toBe(false);
    const attributes = (await handle.describe()).typedSearchAttributes.getAll().map((p) => p.key.name);
    expect(attributes).not.toContain('ModelRetryTenant');
  });

  it("carries a user's image as its bytes, in the request the provider gets", async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok('Three pixels.')]);
    const run = await finish<TextOutput>(
      await start(mr, 'durableTextWorkflow', { model: m.name, prompt: 'What is this?', withImage: true }),
    );
    expect(run.result?.text).toBe('Three pixels.');
    const body = fx.lp.requests(m.id)[0]?.body as { messages: { role: string; content: unknown }[] };
    expect(body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AQID' } },
      ],
    });
  });

  it.each(['text', 'textStream', 'fullStream'] as const)(
    'fails the run with ModelCallFailed when streamText fails, read with %s',
    async (read) => {
      const m = fx.model();
      fx.lp.script(m.id, [fail(400)]);
      const handle = await start(mr, 'durableStreamTextWorkflow', { model: m.name, prompt: 'hi', read });
      const end = await runEnd(handle);
      expect(end.taskFailure).toBeUndefined();
      expect(end.status).toBe('FAILED');
      expect(end.cause).toMatchObject({ type: 'ModelCallFailed', nonRetryable: true });
      expect(fx.lp.requestCount(m.id)).toBe(1);
      histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
    },
  );

  it("hands streamText's failure to the code that reads it, never to onError", async () => {
    const m = fx.model();
    fx.lp.script(m.id, [fail(400)]);
    const run = await finish<unknown>(
      await start(mr, 'durableStreamCaughtWorkflow', { model: m.name, prompt: 'hi' }),
    );
    expect(run.result).toEqual({
      textStream: 'ModelCallFailed',
      steps: 'ModelCallFailed',
      consumeStream: 'resolved',
      onErrorCalls: 0,
    });
  });

  it('fails the run with the refusal when streamText carries a credential header, before any request', async () => {
    const m = fx.model();
    const handle = await start(mr, 'durableStreamTextWorkflow', {
      model: m.name,
      prompt: 'hi',
      read: 'textStream',
      headers: { authorization: 'Bearer nope' },
    });
    const end = await runEnd(handle);
    expect(end.status).toBe('FAILED');
    expect(end.cause).toMatchObject({ type: 'InvalidModelCallInput' });
    expect(String((end.cause as Error).message)).toContain('headers.authorization');
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  it("continues a cut stream of streamText with `stream: { onCut: 'continue' }`: one whole text, read as a stream", async () => {
    const m = fx.model();
    fx.lp.script(m.id, [
      continuing(ANSWER, 'exact', { cutAfterChunks: 4, cutPauseMs: 400 }),
      continuing(ANSWER),
    ]);
    const done = await finish<{ text: string }>(
      await start(mr, 'durableStreamTextWorkflow', {
        model: m.name,
        prompt: 'hi',
        read: 'fullStream',
        options: { stream: { batchMs: 20, onCut: 'continue' }, retry: { waits: [10] } },
      }),
    );
    // The workflow checks that what `fullStream` gave equals `result.text`.
    expect(done.result?.text).toBe(ANSWER);
    expect(fx.lp.requests(m.id)[1]?.continuation?.form).toBe('instruction');
  });

  it('streams the answer of streamText whole, and ends the run CANCELED when it is cancelled', async () => {
    const m = fx.model();
    fx.lp.script(m.id, [ok(undefined, { chunks: WORDS }), hang()]);
    const done = await finish<{ text: string }>(
      await start(mr, 'durableStreamTextWorkflow', { model: m.name, prompt: 'hi', read: 'fullStream' }),
    );
    expect(done.result?.text).toBe(ANSWER);
    const handle = await start(mr, 'durableStreamTextWorkflow', {
      model: m.name,
      prompt: 'hi',
      read: 'textStream',
    });
    await until('the request', () => (fx.lp.requestCount(m.id) === 2 ? true : undefined));
    await handle.cancel();
    const end = await runEnd(handle);
    expect(end.status).toBe('CANCELLED');
    expect(end.cause).toBeInstanceOf(CancelledFailure);
    await fx.lp.idle();
    expect(fx.lp.requests(m.id)[1]?.outcome).toBe('client-aborted');
    histories.push({ workflowId: handle.workflowId, history: await handle.fetchHistory() });
  });

  it.each(['generateText', 'streamText'] as const)(
    'cancels the call when the abort signal given to %s aborts: the request rejects with its reason',
    async (via) => {
      const m = fx.model();
      fx.lp.script(m.id, [hang()]);
      const run = await finish<{ text?: string; rejected?: unknown }>(
        await start(mr, 'durableAbortWorkflow', { model: m.name, prompt: 'hi', abortAfterMs: 1000, via }),
      );
      expect(run.result).toEqual({ rejected: 'stopped by the workflow' });
      // generateText awaits the call's end; streamText rejects its results itself at the abort, and this run ends
      // then, with the call's cancellation under way (its record still running), yet it reaches the provider.
      expect(run.records.map((r) => r.outcome)).toEqual([
        via === 'generateText' ? 'cancelled' : expect.stringMatching(/^(running|cancelled)$/),
      ]);
      await fx.lp.idle();
      expect(fx.lp.requests(m.id).map((r) => r.outcome)).toEqual(['client-aborted']);
    },
  );

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
