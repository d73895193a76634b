import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import type { WorkflowBundle } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fail, ok, rateLimited } from '../../loopback/index.js';
import { startModelCall } from '../../client/model-call-client.js';
import { attemptsQuery } from '../../common/queries.js';
import { createModelRetryWorker, workflowsPath } from '../../worker/worker.js';
import { startTracing, tracingInterceptorsPath } from '../../worker/tracing.js';
import type { Tracing } from '../../worker/tracing.js';
import type { ModelCallInput } from '../../common/call.js';
import type { ActivityDeps } from '../../activities/index.js';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { useFixture } from '../harness/fixture.js';
import { TEST_SECRETS } from '../harness/model-call.js';
import { startOtlpReceiver } from '../harness/otlp-receiver.js';
import type { OtlpReceiver, ReceivedSpan } from '../harness/otlp-receiver.js';

/** The spans of one workflow's trace, by name; every name must be there exactly `count` times. */
function byName(spans: ReceivedSpan[], name: string): ReceivedSpan[] {
  return spans.filter((s) => s.name === name);
}

function one(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = byName(spans, name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0] as ReceivedSpan;
}

function parentOf(spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan | undefined {
  return spans.find((s) => s.spanId === span.parentSpanId);
}

let plain: Promise<WorkflowBundle> | undefined;

/** The workflow bundle without any tracing interceptors, as a worker without tracing has. */
function plainBundle(): Promise<WorkflowBundle> {
  plain ??= bundleWorkflowCode({
    workflowsPath: workflowsPath(),
    logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
  });
  return plain;
}

describe('traces: a call exports its spans over OTLP, linked from the client to the activity', () => {
  const { fx } = useFixture({ worker: false });
  let bundle: WorkflowBundle;
  let connection: NativeConnection;
  const receivers: OtlpReceiver[] = [];
  const tracings: Tracing[] = [];

  beforeAll(async () => {
    // A bundle with the OpenTelemetry workflow interceptors, as a worker bundling at start gets from the plugin.
    bundle = await bundleWorkflowCode({
      workflowsPath: workflowsPath(),
      workflowInterceptorModules: [tracingInterceptorsPath()],
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    });
    connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  }, 180_000);
  afterAll(async () => {
    await Promise.all(tracings.map((t) => t.shutdown()));
    await connection?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });

  async function traced(protocol: 'http/json' | 'http/protobuf', deps: ActivityDeps = {}) {
    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    const tracing = startTracing({ url: receiver.url, protocol });
    tracings.push(tracing);
    const client = new Client({
      connection: fx.temporal.client.connection,
      namespace: inject('temporalNamespace'),
      plugins: [tracing.plugin],
    });
    const taskQueue = `test-${randomUUID()}`;
    const worker = () =>
      createModelRetryWorker({
        connection,
        namespace: inject('temporalNamespace'),
        taskQueue,
        workflowBundle: bundle,
        shutdownGraceMs: 2000,
        deps: { providers: fx.providers, ...deps },
        plugins: [tracing.plugin],
      });
    return { receiver, tracing, client, taskQueue, worker };
  }

  const prompt = () => `secret-prompt-${randomUUID()}`;

  it('over http/json: client, workflow, call, attempts and activities in one trace, with the GenAI attributes', async () => {
    const t = await traced('http/json');
    const m = fx.model();
    fx.lp.script(m.id, [
      fail(502),
      rateLimited(0),
      ok('hello', { usage: { inputTokens: 11, outputTokens: 7 } }),
    ]);
    const text = prompt();
    const input: ModelCallInput = { model: m.name, prompt: text, retry: { waits: [10, 30] } };
    const worker = await t.worker();
    const workflowId = `traced-${randomUUID()}`;
    await worker.runUntil(async () => {
      const handle = await startModelCall(t.client, input, { taskQueue: t.taskQueue, workflowId });
      await handle.result();
    });
    await t.tracing.flush();
    const all = await t.receiver.until((spans) => spans.some((s) => s.name === 'callModel c1'));
    const start = one(all, 'StartWorkflow:modelCallWorkflow');
    const spans = all.filter((s) => s.traceId === start.traceId);
    const run = one(spans, 'RunWorkflow:modelCallWorkflow');
    const call = one(spans, 'callModel c1');
    const attempts = byName(spans, `chat ${m.id}`);
    expect(parentOf(spans, run)).toBe(start);
    expect(parentOf(spans, call)).toBe(run);
    expect(attempts.map((a) => a.attributes['model_retry.attempt.id'])).toEqual(['c1.1', 'c1.2', 'c1.3']);
    for (const attempt of attempts) {
      expect(parentOf(spans, attempt)).toBe(call);
      const startActivity = spans.find((s) => s.parentSpanId === attempt.spanId);
      expect(startActivity?.name).toBe('StartActivity:modelRequest');
      const runActivity = spans.find((s) => s.parentSpanId === startActivity?.spanId);
      expect(runActivity?.name).toBe('RunActivity:modelRequest');
      expect(attempt.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'model_retry.provider': 'local',
        'gen_ai.request.model': m.id,
      });
      // `local` is an openai-compatible provider: it speaks OpenAI's wire format, so the conventions' `openai`.
      expect(attempt.attributes['gen_ai.provider.name']).toBe('openai');
    }
    expect(attempts.map((a) => a.attributes['error.type'])).toEqual([
      'ServerError',
      'RateLimited',
      undefined,
    ]);
    expect(attempts[0]?.attributes['model_retry.action']).toBe('retry-same');
    expect(attempts[2]?.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.response.model': m.id,
    });
    expect(call.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': m.id,
      'model_retry.stop_reason': 'succeeded',
      'model_retry.attempts': 3,
      'gen_ai.usage.output_tokens': 7,
    });
    const waits = call.events.filter((e) => e.name === 'model_retry.wait');
    expect(
      waits.map((e) => [e.attributes['model_retry.wait.cause'], e.attributes['model_retry.wait.ms']]),
    ).toEqual([
      ['ServerError', 10],
      ['RateLimited', 30],
    ]);
    expect(call.resource['service.name']).toBe('model-retry');
    expect(new Set(all.map((s) => s.spanId)).size).toBe(all.length);
    const exported = JSON.stringify(all);
    expect(exported).not.toContain(text);
    expect(exported).not.toContain(TEST_SECRETS.apiKey);
    expect(exported).not.toContain(TEST_SECRETS.proxyToken);
  });

  it('over http/protobuf: a call that stops says why, and its attempt names the failure class and the provider', async () => {
    const t = await traced('http/protobuf');
    const m = fx.model();
    fx.lp.script(m.id, [fail(400)]);
    const worker = await t.worker();
    await worker.runUntil(async () => {
      const handle = await startModelCall(
        t.client,
        { model: `claude:${m.id}`, prompt: prompt(), retry: { waits: [10] } },
        { taskQueue: t.taskQueue },
      );
      await expect(handle.result()).rejects.toThrow();
    });
    await t.tracing.flush();
    const spans = await t.receiver.until((s) => s.some((x) => x.name === 'callModel c1'));
    expect(spans.every((s) => s.encoding === 'application/x-protobuf')).toBe(true);
    const call = one(spans, 'callModel c1');
    expect(call.attributes).toMatchObject({
      'model_retry.stop_reason': 'non-retryable',
      'error.type': 'BadRequest',
    });
    const attempt = one(spans, `chat ${m.id}`);
    expect(attempt.parentSpanId).toBe(call.spanId);
    expect(attempt.attributes).toMatchObject({
      'error.type': 'BadRequest',
      'http.response.status_code': 400,
      // The conventions' value for the provider's type (anthropic), our provider's name beside it.
      'gen_ai.provider.name': 'anthropic',
      'model_retry.provider': 'claude',
    });
  });

  it('exports each span once when another worker replays the call after a restart, and none on a replay', async () => {
    const t = await traced('http/json');
    const m = fx.model();
    fx.lp.script(m.id, [fail(502), ok('after the restart')]);
    const first = await t.worker();
    const workflowId = `traced-restart-${randomUUID()}`;
    const firstRun = first.run();
    const handle = await startModelCall(
      t.client,
      { model: m.name, prompt: prompt(), retry: { waits: [4000] } },
      { taskQueue: t.taskQueue, workflowId },
    );
    // The first attempt has failed and the call waits: this worker goes away, another one takes the call over.
    await t.receiver.until((s) => s.some((x) => x.attributes['model_retry.attempt.id'] === 'c1.1'));
    first.shutdown();
    await firstRun;
    const second = await t.worker();
    await second.runUntil(() => handle.result());
    await t.tracing.flush();
    const all = await t.receiver.until((s) => s.some((x) => x.name === 'callModel c1'));
    const spans = all.filter((s) => s.traceId === one(all, 'callModel c1').traceId);
    expect(new Set(spans.map((s) => s.spanId)).size).toBe(spans.length);
    expect(byName(spans, `chat ${m.id}`).map((s) => s.attributes['model_retry.attempt.id'])).toEqual([
      'c1.1',
      'c1.2',
    ]);
    const call = one(spans, 'callModel c1');
    expect(call.events.filter((e) => e.name === 'model_retry.wait')).toHaveLength(1);
    expect(parentOf(spans, byName(spans, `chat ${m.id}`)[1] as ReceivedSpan)).toBe(call);

    const before = t.receiver.spans.length;
    const history = await handle.fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: bundle, plugins: [t.tracing.plugin] },
      history,
      workflowId,
    );
    await t.tracing.flush();
    expect(t.receiver.spans.length).toBe(before);
  });

  it('the waits (backoff jitter) are the same with tracing on and off: span ids draw nothing from the workflow random', async () => {
    const t = await traced('http/json');
    const m = fx.model();
    fx.lp.script(m.id, [fail(502), fail(502), fail(502), ok('after three waits')]);
    const traced1 = await t.worker();
    const handle = await traced1.runUntil(async () => {
      const h = await startModelCall(
        t.client,
        {
          model: m.name,
          prompt: prompt(),
          retry: { backoff: { initialMs: 10, factor: 1, maxMs: 10, jitterMs: 400 }, retriesPerBackend: 3 },
        },
        { taskQueue: t.taskQueue },
      );
      await h.result();
      return h;
    });
    const live = (await handle.result()).attempts.map((a) => a.retryInMs);
    expect(live.slice(0, 3).every((ms) => typeof ms === 'number' && ms >= 10)).toBe(true);
    // A worker without tracing answers the query by replaying the run from its history, on the same seed: its
    // jitter comes out the same only if the traced run's spans drew nothing from the workflow's random.
    const plain = await createModelRetryWorker({
      connection,
      namespace: inject('temporalNamespace'),
      taskQueue: t.taskQueue,
      workflowBundle: await plainBundle(),
      shutdownGraceMs: 2000,
      deps: { providers: fx.providers },
    });
    const replayed = await plain.runUntil(async () => handle.query(attemptsQuery));
    expect(replayed.map((a) => a.retryInMs)).toEqual(live);
  });

  it("a registered AI SDK provider's attempts carry its model's provider, as the conventions' value where one applies", async () => {
    // Two registered providers on the loopback provider: the AI SDK names their models `mistral.chat` (Mistral has
    // a well-known value, `mistral_ai`) and `ollama.chat` (none: the string itself, a custom value).
    const registration = (name: string) => ({
      create: (env: Record<string, string | undefined>, { fetch }: { fetch: typeof globalThis.fetch }) =>
        createOpenAICompatible({ name, baseURL: fx.lp.openaiBaseURL, apiKey: env.REG_KEY ?? '', fetch }),
      secretEnv: ['REG_KEY'],
    });
    const t = await traced('http/json', {
      env: { REG_KEY: TEST_SECRETS.apiKey },
      aiSdkProviders: { mistral: registration('mistral'), ollama: registration('ollama') },
    });
    const a = fx.model('a');
    const b = fx.model('b');
    fx.lp.script(a.id, [fail(401)]);
    fx.lp.script(b.id, [ok('from ollama')]);
    const worker = await t.worker();
    await worker.runUntil(async () => {
      const handle = await startModelCall(
        t.client,
        { model: [`mistral:${a.id}`, `ollama:${b.id}`], prompt: prompt(), retry: { waits: [10] } },
        { taskQueue: t.taskQueue },
      );
      expect((await handle.result()).output.text).toBe('from ollama');
    });
    await t.tracing.flush();
    const spans = await t.receiver.until((s) => s.some((x) => x.name === 'callModel c1'));
    expect(one(spans, `chat ${a.id}`).attributes).toMatchObject({
      'gen_ai.provider.name': 'mistral_ai',
      'model_retry.provider': 'mistral',
      'error.type': 'AuthFailed',
    });
    expect(one(spans, `chat ${b.id}`).attributes).toMatchObject({
      'gen_ai.provider.name': 'ollama.chat',
      'model_retry.provider': 'ollama',
    });
    expect(one(spans, 'callModel c1').attributes['gen_ai.provider.name']).toBe('mistral_ai');
  });
});
