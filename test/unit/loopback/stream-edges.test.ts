import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidScriptError,
  ok,
  parseStep,
  startLoopbackProvider,
  streamError,
} from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { chat, messages, post, readSse, readUntilBroken } from './helpers.js';

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

describe('a stream that ends cleanly after some deltas (endAfterChunks)', () => {
  it('OpenAI: the deltas, then the end of the response: no finish chunk, no [DONE]', async () => {
    lp.script('m', [ok(undefined, { chunks: ['a ', 'b ', 'c'], endAfterChunks: 2 })]);
    const events = await readSse(await chat(lp, 'm', { stream: true }));
    const data = events.map((e) => e.data);
    expect(data).not.toContain('[DONE]');
    const chunks = data.map(
      (d) => JSON.parse(d) as { choices: { delta: { content?: string }; finish_reason: unknown }[] },
    );
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('a b ');
    expect(chunks.every((c) => c.choices[0]?.finish_reason === null)).toBe(true);
    expect(lp.requests('m')[0]?.outcome).toBe('completed');
  });

  it('Anthropic: no message_delta, no message_stop', async () => {
    lp.script('m', [ok(undefined, { chunks: ['a ', 'b'], endAfterChunks: 1 })]);
    const events = await readSse(await messages(lp, 'm', { stream: true }));
    const names = events.map((e) => e.event);
    expect(names).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta']);
  });
});

describe("the provider's error inside a stream (stream-error)", () => {
  it('OpenAI: an error chunk after the deltas', async () => {
    lp.script('m', [streamError('server_error', { afterChunks: 1, text: 'one two' })]);
    const res = await chat(lp, 'm', { stream: true });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(JSON.parse(events.at(-1)?.data ?? '{}')).toMatchObject({
      error: { type: 'server_error', code: null },
    });
    expect(events.filter((e) => e.data.includes('"content":"one "'))).toHaveLength(1);
  });

  it("Anthropic: an `error` event with the error's type", async () => {
    lp.script('m', [streamError('overloaded_error')]);
    const events = await readSse(await messages(lp, 'm', { stream: true }));
    expect(events.at(-1)).toMatchObject({ event: 'error' });
    expect(JSON.parse(events.at(-1)?.data ?? '{}')).toMatchObject({
      type: 'error',
      error: { type: 'overloaded_error' },
    });
  });

  it('refuses a request that is not streamed with a 400, and a step without its type', async () => {
    lp.script('m', [streamError('server_error')]);
    expect((await chat(lp, 'm')).status).toBe(400);
    expect(() => parseStep({ kind: 'stream-error' })).toThrow(InvalidScriptError);
    expect(() => parseStep({ kind: 'stream-error' })).toThrow('step.type is required');
  });
});

describe('a stream that stalls before its cut (cutPauseMs)', () => {
  it('holds the connection open after the last delta, then drops it', async () => {
    lp.script('m', [
      ok('a b c', { cutAfterChunks: 1, cutPauseMs: 60_000 }),
      ok('a b c', { cutAfterChunks: 1, cutPauseMs: 1 }),
    ]);
    const client = new AbortController();
    const res = await post(
      lp,
      '/v1/chat/completions',
      {
        model: 'm',
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      },
      {},
      client.signal,
    );
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('"content":"a "')) text += decoder.decode((await reader.read()).value);
    // The delta arrived and the connection is still open: the provider is stalling.
    expect(lp.requests('m')[0]?.outcome).toBe('pending');
    client.abort();
    await lp.idle();
    expect(lp.requests('m')[0]?.outcome).toBe('client-aborted');

    const { error } = await readUntilBroken(await chat(lp, 'm', { stream: true }));
    expect(error).toBeInstanceOf(Error);
    await lp.idle();
    expect(lp.requests('m')[1]?.outcome).toBe('cut');
    expect(() => parseStep({ kind: 'ok', cutPauseMs: -1 })).toThrow(
      'step.cutPauseMs must be a finite number >= 0',
    );
  });
});
