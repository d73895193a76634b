import { APICallError } from '@ai-sdk/provider';
import type { JSONObject, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ANTHROPIC_PROMPT_TOO_LONG,
  anthropicBaseURL,
  refineAnthropicObservation,
} from '../../../activities/providers/anthropic.js';
import type { AttemptFailureDetails } from '../../../activities/index.js';
import { usageFromAnthropicRaw } from '../../../activities/providers/usage.js';
import { classify } from '../../../policy/index.js';
import type { Observation } from '../../../policy/index.js';
import { fail, ok, overloaded, startLoopbackProvider, toolCall } from '../../../loopback/index.js';
import type { LoopbackProvider, Step } from '../../../loopback/index.js';
import { attemptFailure, builtinRegistry, input, request, runAttempt } from './helpers.js';

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

/** Anthropic's message for a prompt over the context window, as its API sends it. */
const PROMPT_TOO_LONG = 'prompt is too long: 209353 tokens > 199999 maximum';

/** One row: an Anthropic answer, the class it must map to, and the facts the details must carry. */
type Row = readonly [name: string, step: Step, expected: Partial<AttemptFailureDetails>];

const ROWS: readonly Row[] = [
  [
    'anthropic 529 overloaded -> ServerError',
    overloaded(),
    { class: 'ServerError', status: 529, code: 'overloaded_error' },
  ],
  [
    'anthropic prompt is too long -> ContextTooLong',
    fail(400, { message: PROMPT_TOO_LONG }),
    { class: 'ContextTooLong', status: 400, code: 'invalid_request_error' },
  ],
  [
    'anthropic 400 with any other message stays BadRequest',
    fail(400, { message: 'messages: roles must alternate between "user" and "assistant"' }),
    { class: 'BadRequest', status: 400, code: 'invalid_request_error' },
  ],
  [
    'anthropic 413 request_too_large -> BadRequest, even when its message says the prompt is too long',
    fail(413, { message: PROMPT_TOO_LONG }),
    { class: 'BadRequest', status: 413, code: 'request_too_large' },
  ],
  [
    'anthropic 429 rate_limit_error with retry-after -> RateLimited, retryAfterMs',
    fail(429, { headers: { 'retry-after': '7' } }),
    { class: 'RateLimited', status: 429, code: 'rate_limit_error', retryAfterMs: 7000 },
  ],
  [
    'anthropic 429 saying the prompt is too long stays RateLimited',
    fail(429, { message: PROMPT_TOO_LONG }),
    { class: 'RateLimited', status: 429, code: 'rate_limit_error' },
  ],
  [
    'anthropic 402 billing_error -> QuotaExhausted',
    fail(402, { type: 'billing_error', message: 'Your credit balance is too low.' }),
    { class: 'QuotaExhausted', status: 402, code: 'billing_error' },
  ],
  [
    'anthropic 401 authentication_error -> AuthFailed',
    fail(401),
    { class: 'AuthFailed', status: 401, code: 'authentication_error' },
  ],
  [
    'anthropic 403 permission_error -> AuthFailed',
    fail(403),
    { class: 'AuthFailed', status: 403, code: 'permission_error' },
  ],
  [
    'anthropic 404 not_found_error -> ModelNotFound',
    fail(404),
    { class: 'ModelNotFound', status: 404, code: 'not_found_error' },
  ],
  [
    'anthropic 500 api_error -> ServerError',
    fail(500),
    { class: 'ServerError', status: 500, code: 'api_error' },
  ],
  [
    'anthropic 529 with x-should-retry: false -> ServerError, shouldRetry drop',
    overloaded({ headers: { 'x-should-retry': 'false' } }),
    { class: 'ServerError', status: 529, shouldRetry: 'drop' },
  ],
  [
    'anthropic stop reason refusal -> ContentFiltered',
    ok('I will not', { finishReason: 'refusal' }),
    { class: 'ContentFiltered', status: 200 },
  ],
];

describe('anthropic:<model>, each fault of the loopback provider', () => {
  it.each(ROWS)('%s', async (_name, step, expected) => {
    lp.script('claude', [step]);
    const { details } = await attemptFailure(runAttempt(builtinRegistry(lp), input('anthropic:claude')).done);
    expect(details).toMatchObject(expected);
    for (const key of ['retryAfterMs', 'shouldRetry'] as const) {
      if (!(key in expected)) expect(details[key]).toBeUndefined();
    }
  });
});

describe('anthropic:<model>, answers', () => {
  it('returns the tool calls of a tool_use answer', async () => {
    lp.script('claude', [toolCall('get_weather', { city: 'Paris' })]);
    const result = await runAttempt(builtinRegistry(lp), input('anthropic:claude')).done;
    expect(result).toMatchObject({
      text: '',
      toolCalls: [{ name: 'get_weather', args: '{"city":"Paris"}' }],
      finishReason: 'tool-calls',
    });
  });

  it('sends the system prompt and settings in the messages format', async () => {
    lp.script('claude', [ok()]);
    const attempt = input('anthropic:claude', {
      request: request(
        [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
        { maxOutputTokens: 64, temperature: 0 },
      ),
    });
    await runAttempt(builtinRegistry(lp), attempt).done;
    expect(lp.requests('claude')[0]?.body).toMatchObject({
      model: 'claude',
      system: [{ type: 'text', text: 'be brief' }],
      max_tokens: 64,
      temperature: 0,
    });
  });
});

describe('the Anthropic base URL', () => {
  it("takes ANTHROPIC_BASE_URL without /v1 as Anthropic's own SDKs do", async () => {
    lp.script('claude', [ok('via the bare host')]);
    const registry = builtinRegistry(lp, { ANTHROPIC_BASE_URL: `${lp.url}/` });
    await expect(runAttempt(registry, input('anthropic:claude')).done).resolves.toMatchObject({
      text: 'via the bare host',
    });
    expect(lp.requests('claude')[0]?.path).toBe('/v1/messages');
  });

  it.each([
    ['https://gateway.example', 'https://gateway.example/v1'],
    ['https://gateway.example/', 'https://gateway.example/v1'],
    ['https://api.anthropic.com/v1', 'https://api.anthropic.com/v1'],
    ['https://gateway.example/anthropic/v1', 'https://gateway.example/anthropic/v1'],
    ['https://gateway.example/anthropic', 'https://gateway.example/anthropic'],
  ])('%s -> %s', (given, used) => {
    expect(anthropicBaseURL(given)).toBe(used);
  });
});

describe("the Anthropic adapter's prompt-too-long pattern", () => {
  /** What `doGenerate` throws for an Anthropic error answer, and the observation the classifier made of it. */
  const anthropicError = (status: number, type: string | undefined, responseBody: string) => ({
    error: new APICallError({
      message: 'what the SDK made of the body',
      url: 'http://anthropic.test/v1/messages',
      requestBodyValues: {},
      statusCode: status,
      responseBody,
    }),
    observation: {
      status,
      phase: 'body',
      ...(type === undefined ? {} : { providerType: type }),
    } as Observation,
  });
  const body = (type: string, message: string): string =>
    JSON.stringify({ type: 'error', error: { type, message } });

  it.each([
    PROMPT_TOO_LONG,
    'Prompt is too long',
    'prompt is too long: 1 tokens > 0 maximum (including cached tokens)',
  ])('matches %j on a 400 invalid_request_error', (message) => {
    expect(ANTHROPIC_PROMPT_TOO_LONG.test(message)).toBe(true);
    const { error, observation } = anthropicError(
      400,
      'invalid_request_error',
      body('invalid_request_error', message),
    );
    const refined = refineAnthropicObservation(error, observation);
    expect(refined).toEqual({ ...observation, contextTooLong: true });
    expect(classify(refined)).toBe('ContextTooLong');
  });

  it.each([
    [
      'another 400 message',
      400,
      'invalid_request_error',
      body('invalid_request_error', 'max_tokens: must be at least 1'),
    ],
    [
      'the words inside a longer word',
      400,
      'invalid_request_error',
      body('invalid_request_error', 'prompt is too longwinded'),
    ],
    ['another error type', 400, 'api_error', body('api_error', PROMPT_TOO_LONG)],
    ['another status', 413, 'request_too_large', body('request_too_large', PROMPT_TOO_LONG)],
    ['a body that is not Anthropic JSON', 400, undefined, PROMPT_TOO_LONG],
  ] as const)('leaves %s alone', (_name, status, type, responseBody) => {
    const { error, observation } = anthropicError(status, type, responseBody);
    expect(refineAnthropicObservation(error, observation)).toEqual(observation);
  });

  it('reads only an APICallError (nothing else carries Anthropic error bodies)', () => {
    const observed: Observation = { status: 400, providerType: 'invalid_request_error' };
    expect(refineAnthropicObservation(new Error(PROMPT_TOO_LONG), observed)).toEqual(observed);
  });
});

describe('Anthropic usage', () => {
  const answer = (raw: JSONObject): LanguageModelV4GenerateResult => ({
    content: [{ type: 'text', text: 'ok' }],
    finishReason: { unified: 'stop', raw: 'end_turn' },
    usage: {
      inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 0, text: 0, reasoning: undefined },
      raw,
    },
    warnings: [],
  });

  it('counts cache reads and writes as input, and cache reads as cachedInputTokens', () => {
    const usage = usageFromAnthropicRaw(
      answer({
        input_tokens: 20,
        cache_creation_input_tokens: 100,
        cache_read_input_tokens: 1000,
        output_tokens: 5,
      }),
    );
    expect(usage).toEqual({ inputTokens: 1120, outputTokens: 5, totalTokens: 1125, cachedInputTokens: 1000 });
  });

  it('leaves out what Anthropic did not report (never a 0 the SDK made up)', () => {
    expect(usageFromAnthropicRaw(answer({ input_tokens: 12, output_tokens: 3 }))).toEqual({
      inputTokens: 12,
      outputTokens: 3,
      totalTokens: 15,
    });
    expect(usageFromAnthropicRaw(answer({ output_tokens: 3 }))).toEqual({ outputTokens: 3 });
    expect(usageFromAnthropicRaw(answer({}))).toBeUndefined();
  });

  it('reports thinking tokens as reasoningTokens when Anthropic gives them', () => {
    const usage = usageFromAnthropicRaw(
      answer({ input_tokens: 1, output_tokens: 9, output_tokens_details: { thinking_tokens: 6 } }),
    );
    expect(usage).toMatchObject({ reasoningTokens: 6 });
  });
});
