import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { temporal } from '@temporalio/proto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import type { ModelCallFailedDetails } from '../../common/call.js';
import { fail, ok } from '../../loopback/index.js';
import { loopbackEmbedding } from '../../loopback/embeddings.js';
import { encodingFailureConverterPath } from '../../payloads/data-converter.js';
import { ModelRetryPlugin } from '../../plugin/index.js';
import { finishAiSdkRun, startAiSdkWorker } from '../harness/ai-sdk.js';
import type { AiSdkWorker } from '../harness/ai-sdk.js';
import type { EmbedInput, EmbedOutput } from '../harness/ai-sdk-embed-workflows.js';
import { modelCallFixture, story, TEST_SECRETS } from '../harness/model-call.js';
import type { ModelCallFixture } from '../harness/model-call.js';
import { replayAll } from '../harness/replay.js';

type History = temporal.api.history.v1.IHistory;

const WORKFLOWS = fileURLToPath(new URL('../harness/ai-sdk-embed-workflows.ts', import.meta.url));
const noop = () => undefined;
const quiet = { trace: noop, debug: noop, info: noop, log: noop, warn: console.warn, error: console.error };

describe('the AI SDK in workflow code: durableEmbeddingModel', () => {
  let fx: ModelCallFixture;
  let code: string;
  let worker: AiSdkWorker;
  const histories: { workflowId: string; history: History }[] = [];

  beforeAll(async () => {
    const bundling = bundleWorkflowCode({
      workflowsPath: WORKFLOWS,
      plugins: [new ModelRetryPlugin()],
      failureConverterPath: encodingFailureConverterPath(),
      logger: quiet,
    });
    fx = await modelCallFixture();
    code = (await bundling).code;
    const env = { LOOPBACK_KEY: TEST_SECRETS.apiKey, LOOPBACK_ANTHROPIC_KEY: TEST_SECRETS.anthropicKey };
    const providers = createProviderRegistry(
      {
        local: { type: 'openai-compatible', baseURL: fx.lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
        other: { type: 'openai-compatible', baseURL: fx.lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
        gem: { type: 'google', baseURL: fx.lp.googleBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
        claude: { type: 'anthropic', baseURL: fx.lp.anthropicBaseURL, apiKeyEnv: 'LOOPBACK_ANTHROPIC_KEY' },
      },
      { env },
    );
    worker = await startAiSdkWorker(fx, code, { plugin: { activities: { providers } } });
  }, 120_000);

  afterAll(async () => {
    try {
      // Every run, replayed against the bundle it ran on: the AI SDK's embed in the sandbox is deterministic.
      if (histories.length > 0) {
        const dir = mkdtempSync(join(tmpdir(), 'model-retry-embed-'));
        writeFileSync(join(dir, 'bundle.js'), code);
        try {
          await replayAll(histories, { workflowBundlePath: join(dir, 'bundle.js') });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    } finally {
      await worker?.stop();
      await fx?.close();
    }
  });

  let n = 0;
  const model = (provider = 'local') => {
    n += 1;
    return { id: `embed-${n}`, name: `${provider}:embed-${n}` };
  };

  const run = async (input: EmbedInput) => {
    const handle = await worker.client.workflow.start('durableEmbedWorkflow', {
      args: [input],
      taskQueue: worker.taskQueue,
      workflowId: `ai-sdk-embed-${randomUUID()}`,
    });
    const done = await finishAiSdkRun<EmbedOutput>(handle);
    histories.push({ workflowId: handle.workflowId, history: done.history });
    return done;
  };

  it('answers embed and embedMany with the provider vectors, through /v1/embeddings, one call each', async () => {
    const m = model();
    fx.lp.script(m.id, [ok('', { usage: { inputTokens: 3 } }), ok('', { usage: { inputTokens: 9 } })]);
    const one = await run({ model: m.name, values: ['hello'] });
    expect(one.failure).toBeUndefined();
    expect(one.result?.embeddings).toEqual([loopbackEmbedding('hello')]);
    expect(one.result?.tokens).toBe(3);
    expect(one.result?.calls).toEqual({ callId: 'c1', model: m.name, backend: 0, attempts: 1 });
    expect(one.result).toMatchObject({ provider: 'local', modelId: m.id });

    const values = ['alpha', 'beta', 'gamma'];
    const many = await run({ model: m.name, values, dimensions: 5 });
    expect(many.result?.embeddings).toEqual(values.map((v) => loopbackEmbedding(v, 5)));
    expect(many.result?.tokens).toBe(9);
    expect(many.result?.responses).toBe(1);
    expect(story(many.records)).toEqual([{ backend: 0, outcome: 'succeeded' }]);
    expect(many.records[0]?.usage).toEqual({ inputTokens: 9, totalTokens: 9 });

    const requests = fx.lp.requests(m.id);
    expect(requests.map((r) => [r.path, r.api])).toEqual([
      ['/v1/embeddings', 'openai'],
      ['/v1/embeddings', 'openai'],
    ]);
    expect(requests[1]?.body).toMatchObject({
      model: m.id,
      input: values,
      dimensions: 5,
      encoding_format: 'float',
    });
    expect(requests[1]?.headers['x-request-id']).toMatch(/\/c1\.1$/);
  });

  it('retries a 500 by the default plan (2 s later), then answers', async () => {
    const m = model();
    fx.lp.script(m.id, [fail(500), ok()]);
    const done = await run({ model: m.name, values: ['retry me'] });
    expect(done.failure).toBeUndefined();
    expect(done.result?.embeddings).toEqual([loopbackEmbedding('retry me')]);
    expect(story(done.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'ServerError', action: 'retry-same', retryInMs: 2000 },
      { backend: 0, outcome: 'succeeded' },
    ]);
    expect(done.result?.calls).toMatchObject({ attempts: 2 });
    expect(fx.lp.requestCount(m.id)).toBe(2);
  });

  it('falls back along a chain of one model on two providers', async () => {
    const id = `embed-chain-${randomUUID().slice(0, 8)}`;
    fx.lp.script(id, [fail(401), ok()]);
    const done = await run({ model: [`local:${id}`, `other:${id}`], values: ['x', 'y'] });
    expect(done.failure).toBeUndefined();
    expect(done.result?.embeddings).toEqual([loopbackEmbedding('x'), loopbackEmbedding('y')]);
    expect(story(done.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'AuthFailed', action: 'drop', retryInMs: 0 },
      { backend: 1, outcome: 'succeeded' },
    ]);
  });

  it('refuses a chain of two models at start: nothing is sent', async () => {
    const a = model();
    const b = model('other');
    const done = await run({ model: [a.name, b.name], values: ['never sent'] });
    expect(done.failure?.type).toBe('InvalidModelCallInput');
    expect(done.failure?.message).toContain('`model[1]`');
    expect(done.failure?.message).toContain('same model');
    expect(done.records).toEqual([]);
    expect(fx.lp.requestCount(a.id) + fx.lp.requestCount(b.id)).toBe(0);
  });

  it("counts the reported tokens in the model object's budget: the request that would pass it is not sent", async () => {
    const m = model();
    fx.lp.script(m.id, [ok('', { usage: { inputTokens: 20 } }), ok('', { usage: { inputTokens: 20 } })]);
    const done = await run({
      model: m.name,
      values: ['alpha', 'beta', 'gamma'],
      options: { budget: { maxTotalTokens: 41 }, maxEmbeddingsPerCall: 1 },
    });
    expect(done.failure?.type).toBe('ModelCallFailed');
    const details = done.failure?.details?.[0] as ModelCallFailedDetails | undefined;
    expect(details?.stopReason).toBe('budget');
    expect(details?.spent).toMatchObject({ inputTokens: 40, totalTokens: 40 });
    expect(done.failure?.message).toContain('budget.maxTotalTokens');
    expect(fx.lp.requestCount(m.id)).toBe(2);
  });

  it('refuses a request of more texts than maxEmbeddingsPerCall before anything starts', async () => {
    const m = model();
    const handle = await worker.client.workflow.start('durableDoEmbedWorkflow', {
      args: [{ model: m.name, values: ['a', 'b', 'c'], options: { maxEmbeddingsPerCall: 2 } }],
      taskQueue: worker.taskQueue,
      workflowId: `ai-sdk-embed-${randomUUID()}`,
    });
    const done = await finishAiSdkRun<{ rejected?: string }>(handle);
    histories.push({ workflowId: handle.workflowId, history: done.history });
    expect(done.result?.rejected).toMatch(/`embed.values`: 3 texts are more than one request may carry \(2/);
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });

  it('embeds on Gemini through embedContent and batchEmbedContents', async () => {
    const m = model('gem');
    fx.lp.script(m.id, [ok(), ok()]);
    const one = await run({ model: m.name, values: ['sun'] });
    expect(one.result?.embeddings).toEqual([loopbackEmbedding('sun')]);
    expect(one.result?.tokens).toBeNull();
    const many = await run({ model: m.name, values: ['sun', 'moon'] });
    expect(many.result?.embeddings).toEqual([loopbackEmbedding('sun'), loopbackEmbedding('moon')]);
    expect(fx.lp.requests(m.id).map((r) => r.path)).toEqual([
      `/v1beta/models/${m.id}:embedContent`,
      `/v1beta/models/${m.id}:batchEmbedContents`,
    ]);
  });

  it('drops a backend whose provider has no embedding models (Misconfigured), sending nothing', async () => {
    const m = model('claude');
    const done = await run({ model: m.name, values: ['no'] });
    expect(done.failure?.type).toBe('ModelCallFailed');
    expect(story(done.records)).toEqual([
      { backend: 0, outcome: 'failed', class: 'Misconfigured', action: 'drop' },
    ]);
    expect(done.records[0]?.failure?.message).toContain('no embedding models');
    expect(fx.lp.requestCount(m.id)).toBe(0);
  });
});
