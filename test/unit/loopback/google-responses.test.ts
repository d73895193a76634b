import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  fail,
  InvalidScriptError,
  ok,
  parseStep,
  quotaExhausted,
  startLoopbackProvider,
  streamError,
} from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { post, readSse } from './helpers.js';

let lp: LoopbackProvider;
beforeEach(async () => {
  lp = await startLoopbackProvider();
});
afterEach(async () => {
  await lp.close();
});

const gemini = (model: string, stream = false) =>
  post(lp, `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, {
    contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
  });
/** Gemini's server-sent events end each with CRLF CRLF: their data, parsed. */
async function geminiEvents(res: Response): Promise<unknown[]> {
  const blocks = (await res.text()).split('\r\n\r\n').filter((b) => b !== '');
  return blocks.map((b) => JSON.parse(b.replace(/^data: /, '')) as unknown);
}
const responses = (model: string, stream = false) =>
  post(lp, '/v1/responses', { model, input: 'hi', stream });

describe("Gemini's generateContent on the loopback provider", () => {
  it('gives the /v1beta base URL and reads the model and the streaming from the path', async () => {
    expect(lp.googleBaseURL).toBe(`${lp.url}/v1beta`);
    lp.script('g', [ok('hello'), ok('one two')]);
    expect(await (await gemini('g')).json()).toMatchObject({
      candidates: [{ content: { parts: [{ text: 'hello' }], role: 'model' }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
      responseId: 'gemini-loopback-1',
    });
    expect(await geminiEvents(await gemini('g', true))).toMatchObject([
      { candidates: [{ content: { parts: [{ text: 'one ' }] } }] },
      { candidates: [{ content: { parts: [{ text: 'two' }] } }] },
      { candidates: [{ finishReason: 'STOP' }], usageMetadata: { totalTokenCount: 12 } },
    ]);
    expect(lp.requests('g').map((r) => [r.api, r.model, r.stream])).toEqual([
      ['google', 'g', false],
      ['google', 'g', true],
    ]);
  });

  it('renders errors with a status name and typed details: RetryInfo from retryDelay, QuotaFailure for a quota', async () => {
    lp.script('g', [fail(429, { retryDelay: '30s' }), quotaExhausted(), fail(503)]);
    const limited = await gemini('g');
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({
      error: {
        code: 429,
        message: 'loopback provider: scripted 429 error',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' }],
      },
    });
    expect(await (await gemini('g')).json()).toMatchObject({
      error: {
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.QuotaFailure' }],
      },
    });
    expect(await (await gemini('g')).json()).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } });
  });

  it("says the shared finish reasons in Gemini's words, and blocks a prompt with no candidates", async () => {
    lp.script('g', [
      ok('x', { finishReason: 'content_filter' }),
      ok('', { finishReason: 'length' }),
      ok('', { blockReason: 'SAFETY' }),
    ]);
    expect(await (await gemini('g')).json()).toMatchObject({ candidates: [{ finishReason: 'SAFETY' }] });
    expect(await (await gemini('g')).json()).toMatchObject({ candidates: [{ finishReason: 'MAX_TOKENS' }] });
    const blocked = (await (await gemini('g')).json()) as Record<string, unknown>;
    expect(blocked).toMatchObject({ promptFeedback: { blockReason: 'SAFETY' } });
    expect(blocked).not.toHaveProperty('candidates');
  });

  it('sends an error inside a stream as an event of its own', async () => {
    lp.script('g', [streamError('overloaded_error', { afterChunks: 1 })]);
    const events = await geminiEvents(await gemini('g', true));
    expect(events).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } });
  });
});

describe("OpenAI's Responses API on the loopback provider", () => {
  it('answers with a Response object, incomplete when the step stopped at the limit', async () => {
    lp.script('r', [ok('hello'), ok('half', { finishReason: 'length' })]);
    expect(await (await responses('r')).json()).toMatchObject({
      id: 'resp_loopback_1',
      object: 'response',
      status: 'completed',
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] }],
      usage: { input_tokens: 10, output_tokens: 2, total_tokens: 12 },
    });
    expect(await (await responses('r')).json()).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
    });
    expect(lp.requests('r')[0]?.api).toBe('openai-responses');
  });

  it('streams named events from response.created to response.completed', async () => {
    lp.script('r', [ok('one two')]);
    const events = await readSse(await responses('r', true));
    const types = events.map((e) => (JSON.parse(e.data) as { type: string }).type);
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.event)).toEqual(types);
  });

  it('sends an error inside a stream as an error event, or as response.failed when the step says so', async () => {
    lp.script('r', [
      streamError('server_error'),
      streamError('insufficient_quota', { event: 'response.failed' }),
    ]);
    const error = await readSse(await responses('r', true));
    expect(JSON.parse(error.at(-1)?.data ?? '')).toMatchObject({ type: 'error', code: 'server_error' });
    const failed = await readSse(await responses('r', true));
    expect(JSON.parse(failed.at(-1)?.data ?? '')).toMatchObject({
      type: 'response.failed',
      response: { status: 'failed', error: { code: 'insufficient_quota' } },
    });
  });

  it('refuses a stream-error event the Responses API does not have, naming the field', () => {
    expect(() => parseStep({ kind: 'stream-error', type: 'x', event: 'boom' })).toThrow(InvalidScriptError);
    expect(() => parseStep({ kind: 'stream-error', type: 'x', event: 'boom' })).toThrow(
      /step.event must be one of/,
    );
  });
});
