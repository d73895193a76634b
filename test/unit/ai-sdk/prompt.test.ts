import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { convertRequest } from '../../../workflows/ai-sdk/prompt.js';
import { checkCallInput } from '../../../common/call-input/call-input.js';

const user = (text: string) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] });
const request = (more: Partial<LanguageModelV4CallOptions> = {}): LanguageModelV4CallOptions => ({
  prompt: [user('hi')],
  ...more,
});
/** What the call's attempts send: the converted request as `checkCallInput` makes it. */
const sent = (options: LanguageModelV4CallOptions) =>
  checkCallInput({ model: 'local:fast', ...convertRequest(options) }).request;

const schema = { type: 'object', properties: { city: { type: 'string' } } } as const;

describe("the AI SDK's request as a call's input, whole", () => {
  it('carries the prompt as it is, in wire form: system messages, every part kind, provider options', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const prompt: LanguageModelV4CallOptions['prompt'] = [
      {
        role: 'system',
        content: 'Be brief.',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'file', mediaType: 'image/png', data: { type: 'data', data: bytes } },
          {
            type: 'file',
            mediaType: 'application/pdf',
            data: { type: 'url', url: new URL('https://example.com/a.pdf') },
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Look first.', providerOptions: { anthropic: { signature: 'sig' } } },
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: { city: 'Paris' } },
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
        ],
      },
    ];
    const converted = convertRequest(request({ prompt }));
    expect(converted.messages).toEqual([
      {
        role: 'system',
        content: 'Be brief.',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in these?' },
          { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'AQID' } },
          {
            type: 'file',
            mediaType: 'application/pdf',
            data: { type: 'url', url: 'https://example.com/a.pdf' },
          },
        ],
      },
      prompt[2],
      prompt[3],
    ]);
    // JSON-safe: what history keeps is what the call was given.
    expect(JSON.parse(JSON.stringify(converted.messages))).toEqual(converted.messages);
    expect(sent(request({ prompt })).prompt).toEqual(converted.messages);
  });

  const functionTool = {
    type: 'function' as const,
    name: 'weather',
    description: 'Weather',
    inputSchema: schema,
    strict: true,
    providerOptions: { openai: { x: 1 } },
  };
  const providerTool = {
    type: 'provider' as const,
    id: 'openai.web_search' as const,
    name: 'search',
    args: { size: 'low' },
  };

  it.each<[string, Partial<LanguageModelV4CallOptions>, Record<string, unknown>]>([
    ['function tools', { tools: [functionTool] }, { tools: [functionTool] }],
    ['provider-defined tools', { tools: [providerTool] }, { tools: [providerTool] }],
    [
      'tool choice auto',
      { tools: [functionTool], toolChoice: { type: 'auto' } },
      { toolChoice: { type: 'auto' } },
    ],
    [
      'tool choice required',
      { tools: [functionTool], toolChoice: { type: 'required' } },
      { toolChoice: { type: 'required' } },
    ],
    [
      'tool choice none',
      { tools: [functionTool], toolChoice: { type: 'none' } },
      { toolChoice: { type: 'none' } },
    ],
    [
      'tool choice of one tool',
      { tools: [functionTool], toolChoice: { type: 'tool', toolName: 'weather' } },
      { toolChoice: { type: 'tool', toolName: 'weather' } },
    ],
    ['maxOutputTokens', { maxOutputTokens: 100 }, { maxOutputTokens: 100 }],
    ['temperature', { temperature: 0.2 }, { temperature: 0.2 }],
    ['topP', { topP: 0.9 }, { topP: 0.9 }],
    ['topK', { topK: 5 }, { topK: 5 }],
    ['presencePenalty', { presencePenalty: 0.5 }, { presencePenalty: 0.5 }],
    ['frequencyPenalty', { frequencyPenalty: -0.5 }, { frequencyPenalty: -0.5 }],
    ['stopSequences', { stopSequences: ['END'] }, { stopSequences: ['END'] }],
    ['seed', { seed: 7 }, { seed: 7 }],
    ['a reasoning effort', { reasoning: 'high' }, { reasoning: 'high' }],
    [
      'provider options',
      {
        providerOptions: {
          openai: { user: 'u', serviceTier: 'flex' },
          anthropic: { thinking: { type: 'enabled' } },
        },
      },
      {
        providerOptions: {
          openai: { user: 'u', serviceTier: 'flex' },
          anthropic: { thinking: { type: 'enabled' } },
        },
      },
    ],
    [
      "request headers, without the unset ones and the AI SDK's own user agent",
      { headers: { 'x-team': 'a', 'user-agent': 'ai/7.0.0', 'x-unset': undefined } },
      { headers: { 'x-team': 'a' } },
    ],
    [
      'a JSON answer without a schema as the response format',
      { responseFormat: { type: 'json', name: 'answer' } },
      { responseFormat: { type: 'json', name: 'answer' } },
    ],
  ])('carries %s to the provider', (_what, options, expected) => {
    expect(sent(request(options))).toMatchObject(expected);
  });

  it('makes a JSON answer with a schema the structured output (generateObject), and leaves text alone', () => {
    const converted = convertRequest(request({ responseFormat: { type: 'json', schema } }));
    expect(converted.output).toEqual({ schema });
    expect(converted.responseFormat).toBeUndefined();
    expect(convertRequest(request({ responseFormat: { type: 'text' } }))).toEqual({
      messages: [user('hi')],
    });
  });

  it('leaves out what the AI SDK did not set', () => {
    expect(
      convertRequest(
        request({
          tools: [],
          providerOptions: {},
          headers: { 'x-unset': undefined },
          abortSignal: new AbortController().signal,
        }),
      ),
    ).toEqual({ messages: [user('hi')] });
  });

  it.each([
    ['a credential header', request({ headers: { authorization: 'Bearer abc' } }), '`headers.authorization`'],
    [
      'a header that looks like a key',
      request({ headers: { 'x-team': 'sk-abcdefghijklmnop' } }),
      '`headers.x-team`',
    ],
    [
      'an API key in provider options',
      request({ providerOptions: { openai: { apiKey: 'k' } } }),
      '`providerOptions.openai.apiKey`',
    ],
    [
      'a URL with userinfo',
      request({
        prompt: [
          {
            role: 'user',
            content: [
              {
                type: 'file',
                mediaType: 'image/png',
                data: { type: 'url', url: new URL('https://u:p@example.com/a.png') },
              },
            ],
          },
        ],
      }),
      'user name or password',
    ],
  ])('refuses %s as any call does, naming the field', (_what, options, field) => {
    expect(() => sent(options)).toThrow(field);
  });
});
