import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { convertRequest } from '../../../workflows/ai-sdk/prompt.js';

const user = (text: string) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] });
const request = (more: Partial<LanguageModelV4CallOptions> = {}): LanguageModelV4CallOptions => ({
  prompt: [user('hi')],
  ...more,
});

describe("the AI SDK's request as a call's input", () => {
  it('carries system, user, assistant tool calls and every kind of tool result, in order', () => {
    const converted = convertRequest(
      request({
        prompt: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Weather ' },
              { type: 'text', text: 'in Paris?' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'I should call the tool.' },
              { type: 'text', text: 'Looking.' },
              { type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: { city: 'Paris' } },
              { type: 'tool-call', toolCallId: 't2', toolName: 'clock', input: {} },
            ],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 't1',
                toolName: 'weather',
                output: { type: 'json', value: { c: 21 } },
              },
              {
                type: 'tool-result',
                toolCallId: 't2',
                toolName: 'clock',
                output: { type: 'error-text', value: 'down' },
              },
              { type: 'tool-approval-response', approvalId: 'a1', approved: true },
            ],
          },
        ],
      }),
    );
    expect(converted.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: 'Looking.',
        toolCalls: [
          { id: 't1', name: 'weather', args: '{"city":"Paris"}' },
          { id: 't2', name: 'clock', args: '{}' },
        ],
      },
      { role: 'tool', toolCallId: 't1', toolName: 'weather', content: '{"c":21}' },
      { role: 'tool', toolCallId: 't2', toolName: 'clock', content: 'down', isError: true },
    ]);
  });

  it('carries function tools, the settings a call has, and a JSON answer as `output` (generateObject)', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } } } as const;
    expect(
      convertRequest(
        request({
          tools: [{ type: 'function', name: 'weather', description: 'Weather', inputSchema: schema }],
          toolChoice: { type: 'auto' },
          maxOutputTokens: 100,
          temperature: 0.2,
          topP: 0.9,
          stopSequences: ['END'],
          seed: 7,
          responseFormat: { type: 'json', schema },
          headers: { 'user-agent': 'ai/7.0.0' },
        }),
      ),
    ).toEqual({
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'weather', description: 'Weather', inputSchema: schema }],
      settings: { maxOutputTokens: 100, temperature: 0.2, topP: 0.9, stopSequences: ['END'], seed: 7 },
      output: { schema },
    });
    expect(convertRequest(request({ responseFormat: { type: 'text' } }))).toEqual({
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  it.each([
    ['topK', request({ topK: 5 }), '`topK`'],
    ['a tool choice other than auto', request({ toolChoice: { type: 'required' } }), '`toolChoice`'],
    ['provider options', request({ providerOptions: { openai: { user: 'u' } } }), '`providerOptions`'],
    ['a header of the caller', request({ headers: { 'x-team': 'a' } }), '`headers.x-team`'],
    ['a reasoning effort', request({ reasoning: 'high' }), '`reasoning`'],
    ['a JSON answer without a schema', request({ responseFormat: { type: 'json' } }), '`responseFormat`'],
    [
      'a provider-defined tool',
      request({ tools: [{ type: 'provider', id: 'openai.web_search', name: 'search', args: {} }] }),
      '`tools.search`',
    ],
    [
      'a file',
      request({
        prompt: [
          {
            role: 'user',
            content: [
              {
                type: 'file',
                mediaType: 'image/png',
                data: { type: 'url', url: new URL('https://example.com/a.png') },
              },
            ],
          },
        ],
      }),
      '`prompt[0].content[0]`',
    ],
    [
      'a provider-executed tool call',
      request({
        prompt: [
          user('hi'),
          {
            role: 'assistant',
            content: [
              { type: 'tool-call', toolCallId: 't', toolName: 's', input: {}, providerExecuted: true },
            ],
          },
        ],
      }),
      '`prompt[1].content[0]`',
    ],
  ])('refuses %s, naming the field', (_what, options, field) => {
    expect(() => convertRequest(options)).toThrow(field);
  });
});
