import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError } from '@ai-sdk/provider';
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  cutMidBody,
  dropBeforeResponse,
  echoAuth,
  fail,
  malformed,
  ok,
  quotaExhausted,
  startLoopbackProvider,
  toolCall,
} from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { causes } from './helpers.js';

let lp: LoopbackProvider;
beforeEach(async () => {
  lp = await startLoopbackProvider();
});
afterEach(async () => {
  await lp.close();
});

const call: LanguageModelV4CallOptions = {
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
};

function model(id: string) {
  return createOpenAICompatible({
    name: 'loopback',
    baseURL: lp.openaiBaseURL,
    apiKey: 'sk-loopback-key',
  }).chatModel(id);
}

/** The APICallError a call rejects with (`doGenerate` returns a PromiseLike in spec v4). */
async function failure(promise: PromiseLike<unknown>): Promise<APICallError> {
  const error = await Promise.resolve(promise).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!APICallError.isInstance(error)) throw new Error(`expected an APICallError, got ${String(error)}`);
  return error;
}

async function collect(
  stream: ReadableStream<LanguageModelV4StreamPart>,
): Promise<LanguageModelV4StreamPart[]> {
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('through the AI SDK (@ai-sdk/openai-compatible)', () => {
  it('parses a success: text, finish reason, usage, response id; sends the key and our headers', async () => {
    lp.script('fast', [ok('hello from loopback', { usage: { inputTokens: 5, outputTokens: 4 } })]);
    const result = await model('fast').doGenerate({ ...call, headers: { 'X-Request-Id': 'wf/c1.1' } });
    expect(result.content).toEqual([{ type: 'text', text: 'hello from loopback' }]);
    expect(result.finishReason).toEqual({ unified: 'stop', raw: 'stop' });
    expect(result.usage.inputTokens.total).toBe(5);
    expect(result.usage.outputTokens.total).toBe(4);
    expect(result.response?.id).toBe('chatcmpl-loopback-1');
    expect(result.response?.modelId).toBe('fast');
    const [request] = lp.requests('fast');
    expect(request?.headers['authorization']).toBe('Bearer sk-loopback-key');
    expect(request?.headers['x-request-id']).toBe('wf/c1.1');
    lp.assertScriptsConsumed();
  });

  it('parses tool calls', async () => {
    lp.script('fast', [toolCall('get_weather', { city: 'Paris' })]);
    const result = await model('fast').doGenerate(call);
    expect(result.content).toEqual([
      { type: 'tool-call', toolCallId: 'call_1_0', toolName: 'get_weather', input: '{"city":"Paris"}' },
    ]);
    expect(result.finishReason.unified).toBe('tool-calls');
  });

  it('surfaces a 502 as an APICallError with statusCode 502, retryable', async () => {
    lp.script('fast', [fail(502, { message: 'bad gateway upstream' })]);
    const error = await failure(model('fast').doGenerate(call));
    expect(error.statusCode).toBe(502);
    expect(error.isRetryable).toBe(true);
    expect(error.message).toBe('bad gateway upstream');
  });

  it('keeps the error code and the retry headers of a 429', async () => {
    lp.script('fast', [quotaExhausted({ headers: { 'retry-after': '3', 'x-should-retry': 'false' } })]);
    const error = await failure(model('fast').doGenerate(call));
    expect(error.statusCode).toBe(429);
    expect(error.data).toMatchObject({ error: { code: 'insufficient_quota', type: 'insufficient_quota' } });
    expect(error.responseHeaders).toMatchObject({ 'retry-after': '3', 'x-should-retry': 'false' });
    // The SDK does not read x-should-retry: a 429 is retryable to it whatever the header says.
    expect(error.isRetryable).toBe(true);
  });

  it('turns a malformed 200 into an APICallError "Invalid JSON response" with statusCode 200', async () => {
    lp.script('fast', [malformed(), malformed('wrong-shape')]);
    for (const cause of ['JSONParseError', 'TypeValidationError']) {
      const error = await failure(model('fast').doGenerate(call));
      expect(error.message).toBe('Invalid JSON response');
      expect(error.statusCode).toBe(200);
      expect(error.isRetryable).toBe(false);
      expect((error.cause as Error).name).toBe(`AI_${cause}`);
    }
  });

  it('turns a dropped connection into a retryable APICallError without a status', async () => {
    lp.script('fast', [dropBeforeResponse()]);
    const error = await failure(model('fast').doGenerate(call));
    expect(error.message).toMatch(/^Cannot connect to API: /);
    expect(error.statusCode).toBeUndefined();
    expect(error.isRetryable).toBe(true);
  });

  it('turns a body cut mid-way into a retryable APICallError that still says statusCode 200', async () => {
    lp.script('fast', [cutMidBody()]);
    const error = await failure(model('fast').doGenerate(call));
    expect(error.message).toBe('Failed to process successful response');
    expect(error.statusCode).toBe(200);
    expect(error.isRetryable).toBe(true);
    expect(causes(error).join(' | ')).toMatch(/UND_ERR_SOCKET/);
  });

  it('puts the echoed Authorization header into the error message (what scrubbing must remove)', async () => {
    lp.script('fast', [echoAuth()]);
    const error = await failure(model('fast').doGenerate(call));
    expect(error.statusCode).toBe(401);
    expect(error.message).toBe('invalid api key: Bearer sk-loopback-key');
  });

  it('carries the loud message of a script that ran out', async () => {
    const error = await failure(model('unscripted').doGenerate(call));
    expect(error.statusCode).toBe(500);
    expect(error.message).toBe('loopback provider: script for model "unscripted" ran out after 0 requests');
  });

  it('parses a streamed answer', async () => {
    lp.script('fast', [ok('one two', { usage: { inputTokens: 3, outputTokens: 2 } })]);
    const { stream } = await model('fast').doStream(call);
    const parts = await collect(stream);
    const text = parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : [])).join('');
    expect(text).toBe('one two');
    const finish = parts.find((p) => p.type === 'finish');
    expect(finish).toMatchObject({ finishReason: { unified: 'stop' }, usage: { inputTokens: { total: 3 } } });
  });

  it('rejects the read of a stream cut after one delta (no error part)', async () => {
    lp.script('fast', [ok('one two three', { cutAfterChunks: 1 })]);
    const { stream } = await model('fast').doStream(call);
    const parts: LanguageModelV4StreamPart[] = [];
    const thrown = await (async () => {
      for await (const part of stream) parts.push(part);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(parts.flatMap((p) => (p.type === 'text-delta' ? [p.delta] : []))).toEqual(['one ']);
    expect(parts.map((p) => p.type)).not.toContain('error');
    expect(APICallError.isInstance(thrown) && thrown.message).toBe('Failed to process successful response');
  });

  it('reports a malformed event as an error part and finishes with reason error (no throw)', async () => {
    lp.script('fast', [malformed()]);
    const { stream } = await model('fast').doStream(call);
    const parts = await collect(stream);
    expect(parts.map((p) => p.type)).toEqual(['stream-start', 'error', 'finish']);
    expect(parts.find((p) => p.type === 'finish')?.finishReason.unified).toBe('error');
  });
});
