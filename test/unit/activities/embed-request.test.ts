import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import { withAiSdkProviders } from '../../../activities/providers/registered.js';
import type { ModelRequestResult } from '../../../common/attempt.js';
import { base64ToVector } from '../../../common/embedding.js';
import { REQUEST_SPEC } from '../../../common/request.js';
import {
  dropBeforeResponse,
  echoAuth,
  fail,
  malformed,
  ok,
  rateLimited,
  startLoopbackProvider,
} from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { loopbackEmbedding } from '../../../loopback/embeddings.js';
import {
  LOCAL_KEY,
  attemptFailure,
  input,
  loopbackRegistry,
  runAttempt,
  timedOutAttempt,
} from './helpers.js';

let lp: LoopbackProvider;
beforeEach(async () => {
  lp = await startLoopbackProvider();
});
afterEach(async () => {
  await lp.close();
});

const embedInput = (
  model: string,
  values: string[],
  extra: { dimensions?: number; timeoutMs?: number } = {},
) =>
  input(model, {
    request: {
      spec: REQUEST_SPEC,
      prompt: [],
      embed: { values, ...(extra.dimensions !== undefined ? { dimensions: extra.dimensions } : {}) },
      headers: { 'x-trace': 't1' },
    },
    ...(extra.timeoutMs !== undefined ? { timeoutMs: extra.timeoutMs } : {}),
  });

describe('modelRequest of an embedding call (`request.embed`)', () => {
  it("answers the vectors as base64 Float32 and the provider's token count, sending X-Request-Id and the caller's headers", async () => {
    lp.script('emb', [ok('', { usage: { inputTokens: 6 } })]);
    const result = (await runAttempt(
      loopbackRegistry(lp),
      embedInput('local:emb', ['a', 'b'], { dimensions: 4 }),
    ).done) as ModelRequestResult;
    expect(result).toEqual({
      text: '',
      toolCalls: [],
      finishReason: 'stop',
      embeddings: [expect.any(String), expect.any(String)] as unknown,
      usage: { inputTokens: 6, totalTokens: 6 },
      provider: 'local',
      startedAt: expect.any(String) as unknown,
      endedAt: expect.any(String) as unknown,
    });
    expect(result.embeddings?.map(base64ToVector)).toEqual([
      loopbackEmbedding('a', 4),
      loopbackEmbedding('b', 4),
    ]);
    const sent = lp.requests('emb')[0];
    expect(sent?.path).toBe('/v1/embeddings');
    expect(sent?.body).toMatchObject({ model: 'emb', input: ['a', 'b'], dimensions: 4 });
    expect(sent?.headers['x-request-id']).toBe('wf-test/c1.1');
    expect(sent?.headers['x-trace']).toBe('t1');
    expect(sent?.headers.authorization).toBe(`Bearer ${LOCAL_KEY}`);
  });

  it.each([
    ['a 500', fail(500), 'ServerError'],
    ['a 429 with retry-after', rateLimited(2), 'RateLimited'],
    ['a 401', fail(401), 'AuthFailed'],
    ['a dropped connection', dropBeforeResponse(), 'ConnectionLost'],
    ['a 200 that is not JSON', malformed('invalid-json'), 'ParseFailed'],
    ['a 200 without vectors', malformed('wrong-shape'), 'ParseFailed'],
  ])('classifies %s as a language model request: %s', async (_what, step, expected) => {
    lp.script('emb', [step]);
    const { details } = await attemptFailure(
      runAttempt(loopbackRegistry(lp), embedInput('local:emb', ['a'])).done,
    );
    expect(details.class).toBe(expected);
  });

  it('scrubs the key and the texts from a failure that echoes them', async () => {
    lp.script('emb', [echoAuth(401, { everywhere: true })]);
    const text = 'a private document that must not be repeated in any failure message';
    const { details } = await attemptFailure(
      runAttempt(loopbackRegistry(lp), embedInput('local:emb', [text])).done,
    );
    expect(details.class).toBe('AuthFailed');
    expect(details.message).not.toContain(LOCAL_KEY);
    expect(details.message).not.toContain(text);
  });

  it("fails ResponseTimeout when the provider does not answer within the attempt's time", async () => {
    lp.script('emb', [{ kind: 'hang' }]);
    const { details } = await timedOutAttempt(
      lp,
      loopbackRegistry(lp),
      embedInput('local:emb', ['a'], { timeoutMs: 50 }),
      'emb',
    );
    expect(details.class).toBe('ResponseTimeout');
  });

  it('is Misconfigured, sending nothing, on a provider type without embedding models', async () => {
    const registry = createProviderRegistry(
      { claude: { type: 'anthropic', baseURL: lp.anthropicBaseURL, apiKeyEnv: 'K' } },
      { env: { K: 'sk-ant-test-key-0123456789' } },
    );
    const { details } = await attemptFailure(runAttempt(registry, embedInput('claude:emb', ['a'])).done);
    expect(details.class).toBe('Misconfigured');
    expect(details.message).toContain('has no embedding models');
    expect(lp.requestCount()).toBe(0);
  });

  it('is Misconfigured, sending nothing, for more texts than the SDK takes in one request', async () => {
    const registry = createProviderRegistry(
      { gem: { type: 'google', baseURL: lp.googleBaseURL, apiKeyEnv: 'K' } },
      { env: { K: LOCAL_KEY } },
    );
    const values = Array.from({ length: 101 }, (_, i) => `text ${i}`);
    const { details } = await attemptFailure(runAttempt(registry, embedInput('gem:emb', values)).done);
    expect(details.class).toBe('Misconfigured');
    expect(details.message).toContain('maxEmbeddingsPerCall: 100');
    expect(lp.requestCount()).toBe(0);
  });

  it("fails an answer over Temporal's payload limit as Misconfigured, naming maxEmbeddingsPerCall", async () => {
    lp.script('emb', [ok('', { usage: { inputTokens: 200 } })]);
    const values = Array.from({ length: 200 }, (_, i) => `text ${i}`);
    const { details } = await attemptFailure(
      runAttempt(loopbackRegistry(lp), embedInput('local:emb', values, { dimensions: 3072 })).done,
    );
    expect(details.class).toBe('Misconfigured');
    expect(details.message).toContain('`maxEmbeddingsPerCall`');
    expect(details.usage).toEqual({ inputTokens: 200, totalTokens: 200 });
  });

  it("resolves a registered AI SDK provider's embedding model", async () => {
    const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
    const registry = withAiSdkProviders(
      createProviderRegistry({}, { env: {} }),
      {
        reg: {
          create: (env, { fetch }) =>
            createOpenAICompatible({
              name: 'reg',
              baseURL: lp.openaiBaseURL,
              apiKey: env.REG_KEY ?? '',
              fetch,
            }),
          secretEnv: ['REG_KEY'],
        },
      },
      { env: () => ({ REG_KEY: LOCAL_KEY }), fetch: globalThis.fetch },
    );
    lp.script('emb', [ok()]);
    const result = (await runAttempt(registry, embedInput('reg:emb', ['x'])).done) as ModelRequestResult;
    expect(result.embeddings?.map(base64ToVector)).toEqual([loopbackEmbedding('x')]);
  });
});
