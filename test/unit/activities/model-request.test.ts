import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AttemptHeartbeat } from '../../../activities/index.js';
import { createActivities } from '../../../activities/index.js';
import { always, ok, startLoopbackProvider, toolCall } from '../../../loopback/index.js';
import type { LoopbackProvider } from '../../../loopback/index.js';
import {
  LOCAL_KEY,
  builtinRegistry,
  input,
  loopbackRegistry,
  quietEnvironment,
  request,
  runAttempt,
} from './helpers.js';

let lp: LoopbackProvider;
beforeEach(async () => {
  lp = await startLoopbackProvider();
});
afterEach(async () => {
  await lp.close();
});

describe('modelRequest, a successful attempt', () => {
  it('returns the text, the finish reason, the usage as reported, the response id and the provider', async () => {
    lp.script('fast', [ok('hello from loopback', { usage: { inputTokens: 5, outputTokens: 4 } })]);
    const before = Date.now();
    const { done } = runAttempt(loopbackRegistry(lp), input('local:fast'));
    const result = await done;
    expect(result).toEqual({
      text: 'hello from loopback',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 5, outputTokens: 4, totalTokens: 9 },
      responseId: 'chatcmpl-loopback-1',
      responseModel: 'fast',
      provider: 'local',
      startedAt: expect.any(String) as unknown,
      endedAt: expect.any(String) as unknown,
      // The provider's answer whole: its content in order, its response and its metadata unchanged.
      content: [{ type: 'text', text: 'hello from loopback' }],
      rawFinishReason: 'stop',
      response: { id: 'chatcmpl-loopback-1', modelId: 'fast', timestamp: expect.any(String) as unknown },
      providerMetadata: { local: {} },
    });
    const { startedAt, endedAt, response } = result as {
      startedAt: string;
      endedAt: string;
      response: { timestamp: string };
    };
    expect(Date.parse(startedAt)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(endedAt)).toBeGreaterThanOrEqual(Date.parse(startedAt));
    // The provider's own time (whole seconds, as OpenAI's `created`), as an ISO string.
    expect(new Date(response.timestamp).toISOString()).toBe(response.timestamp);
    expect(Date.parse(response.timestamp)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Date.parse(response.timestamp)).toBeLessThanOrEqual(Date.parse(endedAt));
    lp.assertScriptsConsumed();
  });

  it('leaves out usage fields the provider did not report (never a 0), and reports no cost', async () => {
    lp.script('fast', [ok('hi')]);
    const result = (await runAttempt(loopbackRegistry(lp), input('local:fast')).done) as Record<
      string,
      unknown
    >;
    expect(result.usage).not.toHaveProperty('cachedInputTokens');
    expect(result.usage).not.toHaveProperty('reasoningTokens');
    expect(result).not.toHaveProperty('cost');
  });

  it('returns the tool calls with their id, name and JSON arguments', async () => {
    lp.script('fast', [toolCall('get_weather', { city: 'Paris' })]);
    const result = await runAttempt(loopbackRegistry(lp), input('local:fast')).done;
    expect(result).toMatchObject({
      text: '',
      toolCalls: [{ id: 'call_1_0', name: 'get_weather', args: '{"city":"Paris"}' }],
      finishReason: 'tool-calls',
    });
  });

  it('sends X-Request-Id <workflowId>/<modelCallId> and the key from the worker environment', async () => {
    lp.script('fast', [ok()]);
    const attempt = input('local:fast', {
      workflowId: 'wf-42',
      callId: 'c3',
      attempt: 2,
      modelCallId: 'c3.2',
    });
    await runAttempt(loopbackRegistry(lp), attempt).done;
    const [sent] = lp.requests('fast');
    expect(sent?.headers['x-request-id']).toBe('wf-42/c3.2');
    expect(sent?.headers['authorization']).toBe(`Bearer ${LOCAL_KEY}`);
  });

  it('sends the conversation, the tools and the settings in the provider format', async () => {
    lp.script('fast', [ok()]);
    const attempt = input('local:fast', {
      request: request(
        [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'weather in Paris and Rome?' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [
              { id: 't1', name: 'get_weather', args: '{"city":"Paris"}' },
              { id: 't2', name: 'get_weather', args: '{"city":"Rome"}' },
            ],
          },
          { role: 'tool', toolCallId: 't1', toolName: 'get_weather', content: 'sunny' },
          { role: 'tool', toolCallId: 't2', toolName: 'get_weather', content: 'no data', isError: true },
        ],
        {
          tools: [
            {
              type: 'function',
              name: 'get_weather',
              description: 'Weather in a city',
              inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
            },
          ],
          maxOutputTokens: 64,
          temperature: 0.2,
          topP: 0.9,
          stopSequences: ['END'],
          seed: 7,
        },
      ),
    });
    await runAttempt(loopbackRegistry(lp), attempt).done;
    const body = lp.requests('fast')[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      model: 'fast',
      max_tokens: 64,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END'],
      seed: 7,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'weather in Paris and Rome?' },
        {
          role: 'assistant',
          tool_calls: [
            { id: 't1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 't2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 't1', content: 'sunny' },
        { role: 'tool', tool_call_id: 't2', content: 'no data' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather in a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ],
    });
    expect(body).not.toHaveProperty('stream', true);
  });

  it("sends every option of the request: tool choice, penalties, reasoning, response format, provider options, the caller's headers", async () => {
    lp.script('fast', [ok()]);
    const attempt = input('local:fast', {
      request: request([{ role: 'user', content: 'hi' }], {
        tools: [{ type: 'function', name: 'w', inputSchema: { type: 'object' } }],
        toolChoice: { type: 'tool', toolName: 'w' },
        presencePenalty: 0.5,
        frequencyPenalty: -0.5,
        topK: 3,
        reasoning: 'low',
        responseFormat: { type: 'json' },
        headers: { 'x-request-tag': 'checkout' },
        providerOptions: { local: { user: 'u1' } },
      }),
    });
    const result = await runAttempt(loopbackRegistry(lp), attempt).done;
    const sent = lp.requests('fast')[0];
    expect(sent?.body).toMatchObject({
      user: 'u1',
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      reasoning_effort: 'low',
      response_format: { type: 'json_object' },
      tool_choice: { type: 'function', function: { name: 'w' } },
    });
    // The caller's headers go with the attempt's own.
    expect(sent?.headers).toMatchObject({ 'x-request-tag': 'checkout', 'x-request-id': 'wf-test/c1.1' });
    // What the provider could not use, it says in its warnings, which the answer carries.
    expect(result).toMatchObject({
      warnings: [{ type: 'unsupported', feature: 'topK' }],
      rawFinishReason: 'stop',
    });
  });

  it('sends a provider-defined tool and provider options to the provider they belong to', async () => {
    lp.script('claude', [ok()]);
    const attempt = input('anthropic:claude', {
      request: request([{ role: 'user', content: 'hi' }], {
        tools: [
          { type: 'provider', id: 'anthropic.web_search_20250305', name: 'web_search', args: { maxUses: 2 } },
        ],
        providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
      }),
    });
    await runAttempt(builtinRegistry(lp), attempt).done;
    expect(lp.requests('claude')[0]?.body).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 2 }],
    });
  });

  it("heartbeats { startedAt } at the worker's cadence while it waits", async () => {
    lp.script('slow', [ok('late', { delayMs: 1300 })]);
    const env = quietEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    const { modelRequest } = createActivities({ providers: loopbackRegistry(lp), heartbeatIntervalMs: 250 });
    const result = (await env.run(modelRequest, input('local:slow'))) as { startedAt: string };
    expect(beats.length).toBeGreaterThanOrEqual(2); // 1.3 s at one per 250 ms
    for (const beat of beats)
      expect(beat).toEqual({ startedAt: result.startedAt } satisfies AttemptHeartbeat);
  });

  it('makes no heartbeat when the answer comes before the first interval is over (no RPC the floor lacks)', async () => {
    lp.script('fast', [always(ok('at once'))]);
    const env = quietEnvironment();
    const beats: unknown[] = [];
    env.on('heartbeat', (details: unknown) => beats.push(details));
    // Fake timers only for the heartbeat's interval: the answer comes with the clock stopped, so however slow the
    // machine, the attempt ends before HEARTBEAT_INTERVAL_MS has passed on it.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const { done } = runAttempt(loopbackRegistry(lp), input('local:fast'), env);
      await done;
    } finally {
      vi.useRealTimers();
    }
    expect(beats).toEqual([]);
  });
});
