import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ActivityDeps, Env } from '../../activities/index.js';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import {
  cutMidBody,
  echoAuth,
  fail,
  ok,
  quotaExhausted,
  rateLimited,
  streamError,
} from '../../loopback/index.js';
import type { Step } from '../../loopback/index.js';
import { runCall, story, TEST_SECRETS } from '../harness/model-call.js';
import { useFixture } from '../harness/fixture.js';
import type { TestWorker } from '../harness/temporal.js';

/**
 * The new provider families end to end on the dev server: `gem:` (the `google` type), `resp:` (the
 * `openai-responses` type) and `reg:` (an AI SDK provider registered in the worker, its key in `secretEnv`),
 * each against the loopback provider speaking its own wire format, driven by the same fault scripts.
 */
describe('the google, openai-responses and registered provider families, on the dev server', () => {
  const { fx } = useFixture({ worker: false });
  let worker: TestWorker;

  beforeAll(async () => {
    const env: Env = { LOOPBACK_KEY: TEST_SECRETS.apiKey, REG_KEY: TEST_SECRETS.proxyToken };
    const deps: ActivityDeps = {
      env,
      providers: createProviderRegistry(
        {
          gem: { type: 'google', baseURL: fx.lp.googleBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
          resp: { type: 'openai-responses', baseURL: fx.lp.openaiBaseURL, apiKeyEnv: 'LOOPBACK_KEY' },
        },
        { env },
      ),
      aiSdkProviders: {
        reg: {
          create: (e, { fetch }) =>
            createOpenAICompatible({
              name: 'reg',
              baseURL: fx.lp.openaiBaseURL,
              apiKey: e.REG_KEY ?? '',
              fetch,
            }),
          secretEnv: ['REG_KEY'],
        },
      },
    };
    worker = await fx.temporal.startWorker({ deps });
  });

  let n = 0;
  /** A model of `family` no other test uses. */
  const model = (family: string) => {
    n += 1;
    return { id: `${family}-m${n}`, name: `${family}:${family}-m${n}` };
  };

  const FAMILIES = ['gem', 'resp', 'reg'] as const;

  it.each(FAMILIES)(
    '%s: retries a 503, a 429 with retry-after and a body cut mid-way, then answers; every attempt on record',
    async (family) => {
      const m = model(family);
      fx.lp.script(m.id, [fail(503), rateLimited(1), cutMidBody(), ok('done')]);
      const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10, 10, 10] } });
      expect(story(run.records).map((r) => r.class)).toEqual([
        'ServerError',
        'RateLimited',
        'ConnectionLost',
        undefined,
      ]);
      expect(run.records[1]?.failure?.retryAfterMs).toBe(1000);
      expect(run.records[1]?.retryInMs).toBeGreaterThanOrEqual(1000);
      expect(run.result?.output.text).toBe('done');
      expect(fx.lp.requestCount(m.id)).toBe(4);
    },
  );

  it.each(FAMILIES)(
    '%s: drops a backend whose quota is exhausted and answers from the next',
    async (family) => {
      const [a, b] = [model(family), model(family)];
      fx.lp.script(a.id, [quotaExhausted()]);
      fx.lp.script(b.id, [ok('from b')]);
      const run = await runCall(fx, worker, {
        model: [a.name, b.name],
        prompt: 'hi',
        retry: { waits: [10] },
      });
      expect(story(run.records)).toMatchObject([
        { backend: 0, class: 'QuotaExhausted', action: 'drop' },
        { backend: 1, outcome: 'succeeded' },
      ]);
      expect(run.result?.output.text).toBe('from b');
    },
  );

  it.each(FAMILIES)('%s: streams an answer, and the result holds the same text', async (family) => {
    const m = model(family);
    fx.lp.script(m.id, [ok('one two three four')]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', stream: { batchMs: 20 } });
    expect(run.result?.output.text).toBe('one two three four');
    expect(fx.lp.requests(m.id)[0]?.stream).toBe(true);
  });

  const STREAM_ERRORS: readonly (readonly [string, Step, string])[] = [
    ['gem', streamError('UNAVAILABLE'), 'ServerError'],
    ['resp', streamError('rate_limit_exceeded'), 'RateLimited'],
    ['resp', streamError('server_error', { event: 'response.failed' }), 'ServerError'],
  ];
  it.each(STREAM_ERRORS)(
    '%s: an error event before any delta is classified by its own status (%o -> %s), then retried',
    async (family, step, expected) => {
      const m = model(family);
      fx.lp.script(m.id, [step, ok('second time')]);
      const run = await runCall(fx, worker, {
        model: m.name,
        prompt: 'hi',
        stream: { batchMs: 20 },
        retry: { waits: [10] },
      });
      expect(story(run.records).map((r) => r.class)).toEqual([expected, undefined]);
      expect(run.result?.output.text).toBe('second time');
    },
  );

  it("gem: waits out Gemini's RetryInfo.retryDelay as a retry-after", async () => {
    const m = model('gem');
    fx.lp.script(m.id, [fail(429, { retryDelay: '1.2s' }), ok('after the delay')]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10] } });
    expect(run.records[0]?.failure).toMatchObject({
      class: 'RateLimited',
      code: 'RESOURCE_EXHAUSTED',
      retryAfterMs: 1200,
    });
    expect(run.records[0]?.retryInMs).toBeGreaterThanOrEqual(1200);
    expect(run.result?.output.text).toBe('after the delay');
  });

  it.each([
    ['gem', ok('', { finishReason: 'MAX_TOKENS' }), 'OutputLimit'],
    ['gem', ok('', { blockReason: 'SAFETY' }), 'ContentFiltered'],
    ['resp', ok('', { finishReason: 'max_output_tokens' }), 'OutputLimit'],
  ] as const)('%s: %o fails as %s and is not tried again on that backend', async (family, step, expected) => {
    const m = model(family);
    fx.lp.script(m.id, [step]);
    const run = await runCall(fx, worker, { model: m.name, prompt: 'hi', retry: { waits: [10] } });
    expect(story(run.records)).toMatchObject([{ class: expected, action: 'drop' }]);
    expect(run.details?.stopReason).toBe('non-retryable');
  });

  it.each([
    // Gemini's error has no free-text code: the echoed key goes into its message only.
    ['gem', 'x-goog-api-key', TEST_SECRETS.apiKey, 'UNAUTHENTICATED'],
    ['resp', 'authorization', `Bearer ${TEST_SECRETS.apiKey}`, '[redacted]'],
    ['reg', 'authorization', `Bearer ${TEST_SECRETS.proxyToken}`, '[redacted]'],
  ] as const)(
    '%s: a provider echoing its key (%s) everywhere leaves none of it in the history',
    async (family, header, sent, code) => {
      const m = model(family);
      fx.lp.script(m.id, [echoAuth(401, { everywhere: true })]);
      const run = await runCall(fx, worker, { model: m.name, prompt: 'hi' });
      expect(fx.lp.requests(m.id)[0]?.headers[header]).toBe(sent);
      expect(run.records[0]?.failure).toMatchObject({ class: 'AuthFailed', code });
      expect(run.records[0]?.failure?.message).toMatch(/^Incorrect API key provided: \[redacted\]\./);
      expect(run.historyJson).not.toContain(TEST_SECRETS.apiKey);
      expect(run.historyJson).not.toContain(TEST_SECRETS.proxyToken);
    },
  );
});
