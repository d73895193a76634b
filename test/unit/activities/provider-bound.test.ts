import { describe, expect, it } from 'vitest';
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { forProvider, providerKeyOf } from '../../../activities/attempt/provider-bound.js';

const signed: LanguageModelV4Prompt = [
  { role: 'user', content: [{ type: 'text', text: 'weather in Paris?' }] },
  {
    role: 'assistant',
    content: [
      {
        type: 'reasoning',
        text: 'I should call the tool',
        providerOptions: { anthropic: { signature: 'sig-1' } },
      },
      { type: 'reasoning', text: 'plain reasoning' },
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
        output: { type: 'text', value: 'sunny' },
      },
    ],
  },
];

describe('provider-bound content in a chain across provider families', () => {
  it.each([
    ['anthropic.messages', 'anthropic'],
    ['openai.responses', 'openai'],
    ['google.generative-ai', 'google'],
    ['local.chat', 'local'],
  ])('files options of %s under %s', (provider, key) => {
    expect(providerKeyOf(provider)).toBe(key);
  });

  it.each([
    ['claude.messages', 'anthropic', 'anthropic'],
    ['resp.responses', 'openai-responses', 'openai'],
    ['gpt.chat', 'openai', 'openai'],
    ['gem.generative-ai', 'google', 'google'],
    ['local.chat', 'openai-compatible', 'local'],
  ])('files options of a providers-file entry %s of type %s under %s', (provider, type, key) => {
    expect(providerKeyOf(provider, type)).toBe(key);
  });

  it('sends a signed thinking block to its own provider unchanged', () => {
    const out = forProvider(signed, 'anthropic');
    expect(out).toEqual({ prompt: signed });
    expect('prompt' in out && out.prompt).toBe(signed);
  });

  it("leaves another provider's signed reasoning out, and keeps reasoning bound to none", () => {
    const out = forProvider(signed, 'openai');
    if (!('prompt' in out)) throw new Error('expected a prompt');
    const assistant = out.prompt[1];
    expect(assistant?.role).toBe('assistant');
    expect(assistant?.content).toEqual([
      { type: 'reasoning', text: 'plain reasoning' },
      { type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: { city: 'Paris' } },
    ]);
    expect(out.prompt[0]).toBe(signed[0]);
    expect(out.prompt[2]).toBe(signed[2]);
  });

  it('names a file held by reference at another provider, which cannot be sent', () => {
    const prompt: LanguageModelV4Prompt = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'summarise' },
          {
            type: 'file',
            mediaType: 'application/pdf',
            data: { type: 'reference', reference: { openai: 'file-abc' } },
          },
        ],
      },
    ];
    expect(forProvider(prompt, 'openai')).toEqual({ prompt });
    expect(forProvider(prompt, 'anthropic')).toEqual({
      unreachable: expect.stringContaining(
        'prompt[0].content[1] is a file held by reference at openai',
      ) as string,
    });
  });
});
