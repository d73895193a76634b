import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptFailureDetails } from '../../../activities/index.js';
import { streamAnswer } from '../../../activities/attempt/stream-answer.js';
import { parseProvidersConfig } from '../../../activities/providers/config.js';
import {
  parseGoogleDuration,
  refineGoogleObservation,
  usageFromGoogleRaw,
} from '../../../activities/providers/google.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import type { Env } from '../../../activities/providers/registry.js';
import {
  fail,
  ok,
  quotaExhausted,
  startLoopbackProvider,
  streamError,
  toolCall,
} from '../../../loopback/index.js';
import type { LoopbackProvider, Step } from '../../../loopback/index.js';
import { SHARED_FAULTS } from './family-faults.js';
import type { FaultRow } from './family-faults.js';
import { attemptFailure, input, quietEnvironment, runAttempt } from './helpers.js';
import { createActivities } from '../../../activities/index.js';
import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';

const GEMINI_KEY = 'gemini-test-key-0123456789';

let lp: LoopbackProvider;
beforeAll(async () => {
  lp = await startLoopbackProvider();
});
afterEach(() => {
  lp.assertScriptsConsumed();
  lp.reset();
});
afterAll(async () => {
  await lp.close();
});

/** `gem:<model>`, a `google` provider pointed at the loopback provider's Gemini API. */
const registry = (env: Env = { GEMINI_KEY }) =>
  createProviderRegistry(
    { gem: { type: 'google', baseURL: lp.googleBaseURL, apiKeyEnv: 'GEMINI_KEY' } },
    { env },
  );

/** A collecting stand-in for the workflow's stream: the deltas as they came. */
function collector() {
  const deltas: string[] = [];
  return {
    deltas,
    publisher: {
      add: (d: string) => void deltas.push(d),
      finish: async () => {},
      abandon: async () => {},
      sent: 0,
    },
  };
}

describe('the google provider type (Gemini generateContent)', () => {
  it('answers with its text, usage and response id, the key in x-goog-api-key', async () => {
    lp.script('gemini-2.5-flash', [ok('hello from gemini', { usage: { inputTokens: 6, outputTokens: 3 } })]);
    const result = await runAttempt(registry(), input('gem:gemini-2.5-flash')).done;
    expect(result).toMatchObject({
      text: 'hello from gemini',
      finishReason: 'stop',
      usage: { inputTokens: 6, outputTokens: 3, totalTokens: 9 },
      responseId: 'gemini-loopback-1',
      provider: 'gem',
    });
    const [request] = lp.requests('gemini-2.5-flash');
    expect(request?.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(request?.api).toBe('google');
    expect(request?.headers['x-goog-api-key']).toBe(GEMINI_KEY);
    expect(request?.headers['authorization']).toBeUndefined();
    expect(request?.headers['x-request-id']).toBe('wf-test/c1.1');
  });

  it('returns a function call as a tool call', async () => {
    lp.script('m', [toolCall('calculator', { expression: '2+2' })]);
    const result = await runAttempt(registry(), input('gem:m')).done;
    expect(result).toMatchObject({
      text: '',
      finishReason: 'tool-calls',
      toolCalls: [{ name: 'calculator', args: '{"expression":"2+2"}' }],
    });
  });

  it('streams through :streamGenerateContent?alt=sse, delta by delta', async () => {
    lp.script('m', [ok('one two three', { usage: { inputTokens: 4, outputTokens: 3 } })]);
    const { deltas, publisher } = collector();
    const model = registry().resolve('gem:m').model;
    const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }];
    const result = await streamAnswer(model, { prompt }, publisher);
    expect(deltas).toEqual(['one ', 'two ', 'three']);
    expect(result.finishReason).toEqual({ unified: 'stop', raw: 'STOP' });
    expect(usageFromGoogleRaw(result)).toEqual({ inputTokens: 4, outputTokens: 3, totalTokens: 7 });
    expect(lp.requests('m')[0]).toMatchObject({
      path: '/v1beta/models/m:streamGenerateContent',
      stream: true,
    });
  });

  it('an answer that stopped at MAX_TOKENS with text is a success with finishReason length', async () => {
    lp.script('m', [ok('half an ans', { finishReason: 'MAX_TOKENS' })]);
    const result = await runAttempt(registry(), input('gem:m')).done;
    expect(result).toMatchObject({ text: 'half an ans', finishReason: 'length' });
  });

  it('without its key variable is Misconfigured, sending nothing; GOOGLE_GENERATIVE_AI_API_KEY by default', async () => {
    const { details } = await attemptFailure(runAttempt(registry({}), input('gem:m')).done);
    expect(details.class).toBe('Misconfigured');
    expect(details.message).toContain('reads its key from GEMINI_KEY');
    const byDefault = createProviderRegistry({ g: { type: 'google' } }, { env: {} });
    expect(() => byDefault.resolve('g:m')).toThrow(/GOOGLE_GENERATIVE_AI_API_KEY/);
    expect(lp.requestCount()).toBe(0);
  });

  it('is validated like the other types: an unknown field and a key in the file are refused, naming them', () => {
    expect(() => parseProvidersConfig({ g: { type: 'google', region: 'eu' } })).toThrow(
      /`g.region` is not a known field of a "google" provider/,
    );
    expect(() => parseProvidersConfig({ g: { type: 'google', apiKey: 'x' } })).toThrow(
      /keys never go in this file/,
    );
    expect(() => parseProvidersConfig({ g: { type: 'google', baseURL: 'https://u:p@h/v1beta' } })).toThrow(
      /`g.baseURL` holds a credential/,
    );
  });
});

/** Gemini's own ways of saying what went wrong. */
const GEMINI_FAULTS: readonly FaultRow[] = [
  [
    '429 RESOURCE_EXHAUSTED with RetryInfo.retryDelay "30s" -> RateLimited, retryAfterMs 30000',
    fail(429, { retryDelay: '30s' }),
    { class: 'RateLimited', status: 429, code: 'RESOURCE_EXHAUSTED', retryAfterMs: 30_000 },
  ],
  [
    'a fractional retryDelay "1.5s" -> retryAfterMs 1500',
    fail(429, { retryDelay: '1.5s' }),
    { class: 'RateLimited', retryAfterMs: 1500 },
  ],
  [
    '429 with a QuotaFailure and no RetryInfo -> QuotaExhausted',
    quotaExhausted(),
    { class: 'QuotaExhausted', status: 429, code: 'RESOURCE_EXHAUSTED' },
  ],
  [
    '429 with a QuotaFailure and a RetryInfo (a per-minute quota) -> RateLimited with its delay',
    quotaExhausted({ retryDelay: '20s' }),
    { class: 'RateLimited', code: 'RESOURCE_EXHAUSTED', retryAfterMs: 20_000 },
  ],
  [
    '400 INVALID_ARGUMENT "The input token count (N) exceeds the maximum..." -> ContextTooLong (drop: a larger model may take it)',
    fail(400, {
      message: 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).',
    }),
    { class: 'ContextTooLong', status: 400, code: 'INVALID_ARGUMENT' },
  ],
  [
    'any other 400 INVALID_ARGUMENT stays BadRequest',
    fail(400, { message: 'Invalid value at \'generation_config.temperature\' (TYPE_FLOAT), "hot"' }),
    { class: 'BadRequest', status: 400, code: 'INVALID_ARGUMENT' },
  ],
  ['503 UNAVAILABLE -> ServerError', fail(503), { class: 'ServerError', status: 503, code: 'UNAVAILABLE' }],
  ['500 INTERNAL -> ServerError', fail(500), { class: 'ServerError', status: 500, code: 'INTERNAL' }],
  [
    'finish reason SAFETY -> ContentFiltered',
    ok('so', { finishReason: 'SAFETY' }),
    { class: 'ContentFiltered' },
  ],
  [
    'finish reason RECITATION -> ContentFiltered',
    ok('quoted', { finishReason: 'RECITATION' }),
    { class: 'ContentFiltered' },
  ],
  [
    'a blocked prompt (promptFeedback.blockReason) -> ContentFiltered',
    ok('', { blockReason: 'SAFETY' }),
    { class: 'ContentFiltered', status: 200 },
  ],
  [
    'MAX_TOKENS with nothing -> OutputLimit',
    ok('', { finishReason: 'MAX_TOKENS' }),
    { class: 'OutputLimit' },
  ],
];

describe('Gemini classification, through the loopback provider speaking its wire format', () => {
  it.each([...SHARED_FAULTS, ...GEMINI_FAULTS])('%s', async (_name, step, expected) => {
    lp.script('m', [step]);
    const { details } = await attemptFailure(runAttempt(registry(), input('gem:m')).done);
    expect(details).toMatchObject(expected);
    if (!('retryAfterMs' in expected)) expect(details.retryAfterMs).toBeUndefined();
    expect(details.message.length).toBeLessThanOrEqual(300);
  });
});

describe('Gemini errors inside a stream are classified by their own status', () => {
  const rows: readonly (readonly [string, Step, Partial<AttemptFailureDetails>])[] = [
    [
      'UNAVAILABLE before any delta -> ServerError 503',
      streamError('UNAVAILABLE'),
      { class: 'ServerError', status: 503, code: 'UNAVAILABLE' },
    ],
    [
      'RESOURCE_EXHAUSTED after two deltas -> RateLimited 429',
      streamError('RESOURCE_EXHAUSTED', { afterChunks: 2 }),
      { class: 'RateLimited', status: 429, code: 'RESOURCE_EXHAUSTED' },
    ],
    [
      "Anthropic's overloaded_error rendered by Gemini (UNAVAILABLE) -> ServerError 503",
      streamError('overloaded_error', { afterChunks: 1 }),
      { class: 'ServerError', status: 503 },
    ],
    [
      'a stream that ends without its finish -> ConnectionLost',
      ok('a partial answer', { endAfterChunks: 2 }),
      { class: 'ConnectionLost' },
    ],
    [
      'a stream cut after two deltas -> ConnectionLost',
      ok('one two three', { cutAfterChunks: 2 }),
      { class: 'ConnectionLost' },
    ],
  ];
  it.each(rows)('%s', async (_name, step, expected) => {
    lp.script('m', [step]);
    const attempt = input('gem:m', { stream: { batchMs: 60_000 } });
    const { details } = await attemptFailure(runAttempt(registry(), attempt).done);
    expect(details).toMatchObject(expected);
    expect(details.message).not.toContain('{');
  });
});

describe('Gemini error details and usage, read by the adapter', () => {
  it.each([
    ['30s', 30_000],
    ['1.5s', 1500],
    ['0.250s', 250],
    ['0s', 0],
    ['30', undefined],
    ['-1s', undefined],
    [30, undefined],
  ] as const)('retryDelay %j is %j ms', (value, ms) => {
    expect(parseGoogleDuration(value)).toBe(ms);
  });

  it("leaves an error that is not Gemini's as it was", () => {
    expect(refineGoogleObservation(new Error('x'), { status: 500 })).toEqual({ status: 500 });
  });

  it('reads thinking as output and the cache as part of the input, each only when reported', () => {
    const result = (raw: Record<string, number>) =>
      ({ usage: { inputTokens: {}, outputTokens: {}, raw } }) as unknown as LanguageModelV4GenerateResult;
    expect(
      usageFromGoogleRaw(
        result({
          promptTokenCount: 100,
          cachedContentTokenCount: 40,
          candidatesTokenCount: 20,
          thoughtsTokenCount: 30,
          totalTokenCount: 150,
        }),
      ),
    ).toEqual({
      inputTokens: 100,
      outputTokens: 50,
      totalTokens: 150,
      cachedInputTokens: 40,
      reasoningTokens: 30,
    });
    expect(usageFromGoogleRaw(result({ promptTokenCount: 5 }))).toEqual({ inputTokens: 5 });
  });

  it('createActivities reads the google key from its env at each request', async () => {
    lp.script('m', [ok('fine')]);
    const { modelRequest } = createActivities({
      providers: createProviderRegistry(
        { gem: { type: 'google', apiKeyEnv: 'GEMINI_KEY' } },
        {
          env: { GEMINI_KEY, GOOGLE_GENERATIVE_AI_BASE_URL: lp.googleBaseURL },
        },
      ),
    });
    expect(await quietEnvironment().run(modelRequest, input('gem:m'))).toMatchObject({ text: 'fine' });
  });
});
