import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ok, startLoopbackProvider, toolCall } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { chat, readSse, readUntilBroken, parseSse } from './helpers.js';

let lp: LoopbackProvider;
beforeEach(async () => {
  lp = await startLoopbackProvider();
});
afterEach(async () => {
  await lp.close();
});

describe('the OpenAI chat completions API', () => {
  it('listens on 127.0.0.1 with a random port and gives the /v1 base URL', () => {
    expect(lp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(lp.port).toBeGreaterThan(0);
    expect(lp.openaiBaseURL).toBe(`${lp.url}/v1`);
  });

  it('answers a scripted success as a chat completion', async () => {
    lp.script('fast', [ok('hello there', { usage: { inputTokens: 7, outputTokens: 3 } })]);
    const res = await chat(lp, 'fast');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toMatchObject({
      id: 'chatcmpl-loopback-1',
      object: 'chat.completion',
      model: 'fast',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hello there' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    });
    expect(lp.requests('fast')[0]?.deltasSentAt).toBeUndefined();
    lp.assertScriptsConsumed();
  });

  it('answers tool calls with arguments as a JSON string and finish reason tool_calls', async () => {
    lp.script('tools', [toolCall('get_weather', { city: 'Paris' }, { text: '' })]);
    const body = (await (await chat(lp, 'tools')).json()) as { choices: Array<Record<string, unknown>> };
    expect(body.choices[0]).toMatchObject({
      message: {
        content: null,
        tool_calls: [
          {
            id: 'call_1_0',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
          },
        ],
      },
      finish_reason: 'tool_calls',
    });
  });

  it('streams deltas as server-sent events ending with [DONE]', async () => {
    lp.script('fast', [ok('one two three')]);
    const res = await chat(lp, 'fast', { stream: true });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = await readSse(res);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data) as Record<string, unknown>);
    const text = chunks
      .flatMap((c) => c.choices as Array<{ delta: { content?: string } }>)
      .map((c) => c.delta.content ?? '')
      .join('');
    expect(text).toBe('one two three');
    expect(chunks.map((c) => c.object)).toEqual(Array(chunks.length).fill('chat.completion.chunk'));
    expect(chunks.find((c) => c.usage !== undefined)?.usage).toMatchObject({
      total_tokens: expect.any(Number),
    });
    const finish = chunks.flatMap((c) => c.choices as Array<{ finish_reason: string | null }>);
    expect(finish.map((c) => c.finish_reason).filter((r) => r !== null)).toEqual(['stop']);
  });

  it('streams the configured deltas with a pause before each', async () => {
    lp.script('slowstream', [ok(undefined, { chunks: ['a', 'b', 'c'], chunkDelayMs: 40 })]);
    const started = Date.now();
    const events = await readSse(await chat(lp, 'slowstream', { stream: true }));
    expect(Date.now() - started).toBeGreaterThanOrEqual(110);
    const deltas = events
      .filter((e) => e.data !== '[DONE]')
      .flatMap((e) => (JSON.parse(e.data) as { choices: Array<{ delta: { content?: string } }> }).choices)
      .map((c) => c.delta.content)
      .filter((t) => t !== undefined && t !== '');
    expect(deltas).toEqual(['a', 'b', 'c']);
    await lp.idle();
    const [request] = lp.requests('slowstream');
    const sent = request?.deltasSentAt ?? [];
    expect(sent).toHaveLength(3);
    expect([...sent].sort((x, y) => x - y)).toEqual(sent);
    expect(sent[0]).toBeGreaterThanOrEqual(request?.receivedAt ?? Number.NaN);
    expect(sent[2]).toBeLessThanOrEqual(request?.endedAt ?? Number.NaN);
  });

  it('cuts a stream after N deltas by dropping the connection', async () => {
    lp.script('flaky', [ok(undefined, { chunks: ['a', 'b', 'c', 'd'], cutAfterChunks: 2 })]);
    const res = await chat(lp, 'flaky', { stream: true });
    expect(res.status).toBe(200);
    const { text, error } = await readUntilBroken(res);
    expect(error).toBeInstanceOf(Error);
    const deltas = parseSse(text)
      .flatMap((e) => (JSON.parse(e.data) as { choices: Array<{ delta: { content?: string } }> }).choices)
      .map((c) => c.delta.content)
      .filter((t) => t !== '');
    expect(deltas).toEqual(['a', 'b']);
    expect(text).not.toContain('[DONE]');
    await lp.idle();
    expect(lp.requests('flaky')[0]?.outcome).toBe('cut');
    expect(lp.requests('flaky')[0]?.deltasSentAt).toHaveLength(2);
  });

  it('cuts a stream before the finish when N is at least the number of deltas', async () => {
    lp.script('flaky', [ok('a b', { cutAfterChunks: 5 })]);
    const { text, error } = await readUntilBroken(await chat(lp, 'flaky', { stream: true }));
    expect(error).toBeInstanceOf(Error);
    expect(text).toContain('"content":"b"');
    expect(text).not.toContain('"finish_reason":"stop"');
  });

  it('lists the scripted models on GET /v1/models', async () => {
    lp.script('fast', [ok()]).script('*', [ok()]);
    const res = await fetch(`${lp.openaiBaseURL}/models`);
    expect(await res.json()).toEqual({
      object: 'list',
      data: [{ id: 'fast', object: 'model', created: 0, owned_by: 'loopback' }],
    });
  });
});
