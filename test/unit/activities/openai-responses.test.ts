import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptFailureDetails } from '../../../activities/index.js';
import { streamAnswer } from '../../../activities/attempt/stream-answer.js';
import { parseProvidersConfig } from '../../../activities/providers/config.js';
import { failedResponseCode, usageFromResponsesRaw } from '../../../activities/providers/openai-responses.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import {
  contextTooLong,
  fail,
  ok,
  startLoopbackProvider,
  streamError,
  toolCall,
} from '../../../loopback/index.js';
import type { LoopbackProvider, Step } from '../../../loopback/index.js';
import { SHARED_FAULTS } from './family-faults.js';
import type { FaultRow } from './family-faults.js';
import { OPENAI_KEY, attemptFailure, builtinEnv, input, runAttempt } from './helpers.js';

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

/** `resp:<model>`: an `openai-responses` provider with no base URL of its own (`OPENAI_BASE_URL`, `OPENAI_API_KEY`). */
const registry = () =>
  createProviderRegistry({ resp: { type: 'openai-responses' } }, { env: builtinEnv(lp) });

describe('the openai-responses provider type (the Responses API)', () => {
  it('answers through POST /v1/responses with its text, usage and response id, the key as a bearer token', async () => {
    lp.script('gpt-5', [ok('hello from responses', { usage: { inputTokens: 6, outputTokens: 3 } })]);
    const result = await runAttempt(registry(), input('resp:gpt-5')).done;
    expect(result).toMatchObject({
      text: 'hello from responses',
      finishReason: 'stop',
      usage: { inputTokens: 6, outputTokens: 3, totalTokens: 9, cachedInputTokens: 0, reasoningTokens: 0 },
      responseId: 'resp_loopback_1',
      provider: 'resp',
    });
    const [request] = lp.requests('gpt-5');
    expect(request?.path).toBe('/v1/responses');
    expect(request?.api).toBe('openai-responses');
    expect(request?.headers['authorization']).toBe(`Bearer ${OPENAI_KEY}`);
    expect(request?.headers['x-request-id']).toBe('wf-test/c1.1');
    expect(request?.body).toHaveProperty('input');
  });

  it('returns a function_call item as a tool call', async () => {
    lp.script('m', [toolCall('calculator', { expression: '2+2' })]);
    const result = await runAttempt(registry(), input('resp:m')).done;
    expect(result).toMatchObject({
      finishReason: 'tool-calls',
      toolCalls: [{ name: 'calculator', args: '{"expression":"2+2"}' }],
    });
  });

  it('streams its response.output_text.delta events, and a completed stream is a success', async () => {
    lp.script('m', [ok('one two three')]);
    const deltas: string[] = [];
    const publisher = {
      add: (d: string) => void deltas.push(d),
      finish: async () => {},
      abandon: async () => {},
      sent: 0,
    };
    const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'hi' }] }];
    const result = await streamAnswer(registry().resolve('resp:m').model, { prompt }, publisher);
    expect(deltas).toEqual(['one ', 'two ', 'three']);
    expect(result.finishReason.unified).toBe('stop');
    expect(lp.requests('m')[0]).toMatchObject({ path: '/v1/responses', stream: true });
  });

  it('an incomplete response (max_output_tokens) with text is a success with finishReason length', async () => {
    lp.script('m', [ok('half an ans', { finishReason: 'max_output_tokens' })]);
    expect(await runAttempt(registry(), input('resp:m')).done).toMatchObject({
      text: 'half an ans',
      finishReason: 'length',
    });
  });

  it('is validated like the other types', () => {
    expect(() => parseProvidersConfig({ r: { type: 'openai-responses', store: true } })).toThrow(
      /`r.store` is not a known field of a "openai-responses" provider/,
    );
    expect(() => parseProvidersConfig({ r: { type: 'openai-responses', apiKeyEnv: 'sk-abc def' } })).toThrow(
      /`r.apiKeyEnv` must name an environment variable/,
    );
  });
});

/** A complete Response object that failed. */
const failedResponse = (error: Record<string, string>) => ({
  id: 'resp_failed',
  object: 'response',
  status: 'failed',
  output: [],
  error,
});

/** The Responses API's own ways of saying what went wrong. */
const RESPONSES_FAULTS: readonly FaultRow[] = [
  [
    '400 context_length_exceeded -> ContextTooLong',
    contextTooLong(),
    { class: 'ContextTooLong', status: 400, code: 'context_length_exceeded' },
  ],
  [
    '429 rate_limit_exceeded -> RateLimited',
    fail(429, { code: 'rate_limit_exceeded' }),
    { class: 'RateLimited', code: 'rate_limit_exceeded' },
  ],
  [
    '500 server_error -> ServerError',
    fail(500, { code: 'server_error' }),
    { class: 'ServerError', code: 'server_error' },
  ],
  [
    'a 200 Response whose status is failed (server_error) -> ServerError, not a parse failure',
    fail(200, { body: failedResponse({ code: 'server_error', message: 'The model failed' }) }),
    { class: 'ServerError', status: 500, code: 'server_error' },
  ],
  [
    "a 200 failed Response whose error has a type (the SDK's 400) -> by its code: RateLimited",
    fail(200, {
      body: failedResponse({ type: 'requests', code: 'rate_limit_exceeded', message: 'Slow down' }),
    }),
    { class: 'RateLimited', status: 429, code: 'rate_limit_exceeded' },
  ],
  [
    'incomplete (max_output_tokens) with no output -> OutputLimit',
    ok('', { finishReason: 'max_output_tokens' }),
    { class: 'OutputLimit', status: 200 },
  ],
  [
    'incomplete (content_filter) -> ContentFiltered',
    ok('', { finishReason: 'content_filter' }),
    { class: 'ContentFiltered', status: 200 },
  ],
];

describe('Responses API classification, through the loopback provider speaking its wire format', () => {
  it.each([...SHARED_FAULTS, ...RESPONSES_FAULTS])('%s', async (_name, step, expected) => {
    lp.script('m', [step]);
    const { details } = await attemptFailure(runAttempt(registry(), input('resp:m')).done);
    expect(details).toMatchObject(expected);
    if (!('retryAfterMs' in expected)) expect(details.retryAfterMs).toBeUndefined();
    expect(details.message.length).toBeLessThanOrEqual(300);
  });
});

describe('Responses API errors inside a stream are classified by their own code', () => {
  const rows: readonly (readonly [string, Step, Partial<AttemptFailureDetails>])[] = [
    [
      'an error event (server_error) before any delta -> ServerError 500',
      streamError('server_error'),
      { class: 'ServerError', status: 500, code: 'server_error' },
    ],
    [
      'an error event (rate_limit_exceeded) after two deltas -> RateLimited 429',
      streamError('rate_limit_exceeded', { afterChunks: 2 }),
      { class: 'RateLimited', status: 429, code: 'rate_limit_exceeded' },
    ],
    [
      'response.failed (insufficient_quota) before any delta -> QuotaExhausted',
      streamError('insufficient_quota', { event: 'response.failed' }),
      { class: 'QuotaExhausted', status: 429, code: 'insufficient_quota' },
    ],
    [
      'response.failed (server_error) after a delta -> ServerError 500',
      streamError('server_error', { event: 'response.failed', afterChunks: 1 }),
      { class: 'ServerError', status: 500, code: 'server_error' },
    ],
    [
      'response.failed (context_length_exceeded) -> ContextTooLong',
      streamError('context_length_exceeded', { event: 'response.failed' }),
      { class: 'ContextTooLong', code: 'context_length_exceeded' },
    ],
    [
      'a stream that ends without response.completed -> ConnectionLost',
      ok('a partial answer', { endAfterChunks: 2 }),
      { class: 'ConnectionLost' },
    ],
    [
      'response.incomplete (max_output_tokens) with nothing streamed -> OutputLimit',
      ok('', { finishReason: 'max_output_tokens' }),
      { class: 'OutputLimit' },
    ],
  ];
  it.each(rows)('%s', async (_name, step, expected) => {
    lp.script('m', [step]);
    const attempt = input('resp:m', { stream: { batchMs: 60_000 } });
    const { details } = await attemptFailure(runAttempt(registry(), attempt).done);
    expect(details).toMatchObject(expected);
  });
});

describe('Responses API bodies, read by the adapter', () => {
  it.each([
    [
      'a response.failed event',
      { type: 'response.failed', response: { error: { code: 'server_error' } } },
      'server_error',
    ],
    [
      'a failed Response object',
      { object: 'response', status: 'failed', error: { code: 'rate_limit_exceeded' } },
      'rate_limit_exceeded',
    ],
    [
      'a failed Response with no code',
      { object: 'response', status: 'failed', error: { message: 'x' } },
      'response_failed',
    ],
    ['a completed Response', { object: 'response', status: 'completed', error: null }, undefined],
    ['a Chat Completions error body', { error: { code: 'server_error' } }, undefined],
  ] as const)('the failed-response code of %s', (_name, body, code) => {
    expect(failedResponseCode(body)).toBe(code);
  });

  it('reads usage from the raw body, cached and reasoning parts included, only what was reported', () => {
    const result = (raw: Record<string, unknown>) =>
      ({ usage: { inputTokens: {}, outputTokens: {}, raw } }) as unknown as LanguageModelV4GenerateResult;
    expect(
      usageFromResponsesRaw(
        result({
          input_tokens: 100,
          input_tokens_details: { cached_tokens: 60 },
          output_tokens: 30,
          output_tokens_details: { reasoning_tokens: 12 },
          total_tokens: 130,
        }),
      ),
    ).toEqual({
      inputTokens: 100,
      outputTokens: 30,
      totalTokens: 130,
      cachedInputTokens: 60,
      reasoningTokens: 12,
    });
    expect(usageFromResponsesRaw(result({ output_tokens: 2 }))).toEqual({ outputTokens: 2 });
  });
});
