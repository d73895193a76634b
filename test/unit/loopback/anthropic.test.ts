import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok, overloaded, startLoopbackProvider, toolCall } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import { messages, readSse, readUntilBroken } from './helpers.js';

let lp: LoopbackProvider;
beforeEach(async () => {
  lp = await startLoopbackProvider();
});
afterEach(async () => {
  await lp.close();
});

describe('the Anthropic messages API', () => {
  it('answers a scripted success as a message', async () => {
    lp.script('claude', [ok('hello', { usage: { inputTokens: 12, outputTokens: 2 } })]);
    const res = await messages(lp, 'claude');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      id: 'msg_loopback_1',
      type: 'message',
      role: 'assistant',
      model: 'claude',
      content: [{ type: 'text', text: 'hello' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 2 },
    });
  });

  it('answers a tool call as a tool_use block with an object input', async () => {
    lp.script('claude', [toolCall('lookup', { q: 'x' }, { text: 'let me look' })]);
    const body = (await (await messages(lp, 'claude')).json()) as Record<string, unknown>;
    expect(body.content).toEqual([
      { type: 'text', text: 'let me look' },
      { type: 'tool_use', id: 'call_1_0', name: 'lookup', input: { q: 'x' } },
    ]);
    expect(body.stop_reason).toBe('tool_use');
  });

  it('answers errors in Anthropic format with the type derived from the status', async () => {
    lp.script('claude', [
      overloaded(),
      fail(400, { message: 'prompt is too long: 300000 tokens > 200000 maximum' }),
    ]);
    const first = await messages(lp, 'claude');
    expect(first.status).toBe(529);
    expect(await first.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
    });
    const second = await messages(lp, 'claude');
    expect(await second.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 300000 tokens > 200000 maximum' },
    });
  });

  it('streams named events in Anthropic order', async () => {
    lp.script('claude', [ok('hi there')]);
    const events = await readSse(await messages(lp, 'claude', { stream: true }));
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of events) expect((JSON.parse(e.data) as { type: string }).type).toBe(e.event);
    const text = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => (JSON.parse(e.data) as { delta: { text: string } }).delta.text)
      .join('');
    expect(text).toBe('hi there');
    expect(JSON.parse(events.at(-2)?.data ?? '')).toMatchObject({
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 2 },
    });
  });

  it('streams a tool call as a tool_use block with an input_json_delta', async () => {
    lp.script('claude', [toolCall('lookup', { q: 'x' })]);
    const events = await readSse(await messages(lp, 'claude', { stream: true }));
    const data = events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
    expect(data).toContainEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'call_1_0', name: 'lookup', input: {} },
    });
    expect(data).toContainEqual({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: '{"q":"x"}' },
    });
  });

  it('cuts an Anthropic stream after the first delta', async () => {
    lp.script('claude', [ok('a b c', { cutAfterChunks: 1 })]);
    const { text, error } = await readUntilBroken(await messages(lp, 'claude', { stream: true }));
    expect(error).toBeInstanceOf(Error);
    expect(text).toContain('"text":"a "');
    expect(text).not.toContain('message_stop');
  });
});
