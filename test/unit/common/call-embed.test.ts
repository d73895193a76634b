import { describe, expect, it } from 'vitest';
import { checkCallInput } from '../../../common/call-input/call-input.js';
import { checkEmbeddingChain } from '../../../common/call-input/call-embed.js';
import { estimateInputTokens } from '../../../common/token-estimate.js';
import { requestTexts } from '../../../activities/attempt/prompt.js';

const EMBED = { model: 'a:text-embedding-3-small', embed: { values: ['alpha', 'beta'] } };

describe('an embedding call input (`embed`)', () => {
  it('becomes a request with the texts and no conversation', () => {
    const checked = checkCallInput({
      ...EMBED,
      embed: { values: ['alpha', 'beta'], dimensions: 256 },
      providerOptions: { openai: { user: 'u1' } },
      headers: { 'x-trace': 't1' },
      budget: { maxTotalTokens: 100 },
    });
    expect(checked).toEqual({
      backends: ['a:text-embedding-3-small'],
      request: {
        spec: 1,
        prompt: [],
        embed: { values: ['alpha', 'beta'], dimensions: 256 },
        providerOptions: { openai: { user: 'u1' } },
        headers: { 'x-trace': 't1' },
      },
      stream: undefined,
      output: undefined,
    });
  });

  it('takes a chain of one model on several providers', () => {
    const checked = checkCallInput({
      ...EMBED,
      model: ['a:text-embedding-3-small', 'b:text-embedding-3-small'],
    });
    expect(checked.backends).toEqual(['a:text-embedding-3-small', 'b:text-embedding-3-small']);
  });

  it.each([
    ['a prompt', { prompt: 'hi' }, /`prompt`: not with `embed`/],
    ['a system prompt', { system: 'be brief' }, /`system`: not with `embed`/],
    ['messages', { messages: [{ role: 'user', content: 'hi' }] }, /`messages`: not with `embed`/],
    ['tools', { tools: [{ name: 't', inputSchema: { type: 'object' } }] }, /`tools`: not with `embed`/],
    ['a tool choice', { toolChoice: { type: 'auto' } }, /`toolChoice`: not with `embed`/],
    ['settings', { settings: { temperature: 0 } }, /`settings`: not with `embed`/],
    ['a response format', { responseFormat: { type: 'json' } }, /`responseFormat`: not with `embed`/],
    ['structured output', { output: { schema: { type: 'object' } } }, /`output`: not with `embed`/],
    ['a stream', { stream: true }, /`stream`: not with `embed`/],
    ['no values', { embed: { values: [] } }, /`embed.values`: must be a non-empty array/],
    ['values that are no array', { embed: { values: 'alpha' } }, /`embed.values`: must be a non-empty array/],
    ['an empty text', { embed: { values: ['a', ''] } }, /`embed.values\[1\]`: is empty/],
    ['a text that is no string', { embed: { values: [1] } }, /`embed.values\[0\]`: must be a string/],
    ['an unknown field of embed', { embed: { values: ['a'], input: 'x' } }, /`embed.input`: unknown field/],
    [
      'embed that is no object',
      { embed: ['a'] },
      /`embed`: must be `\{ values: string\[\], dimensions\? \}`/,
    ],
    [
      'zero dimensions',
      { embed: { values: ['a'], dimensions: 0 } },
      /`embed.dimensions`: must be a positive whole number/,
    ],
    ['fractional dimensions', { embed: { values: ['a'], dimensions: 1.5 } }, /`embed.dimensions`/],
    [
      'two models in the chain',
      { model: ['a:m1', 'b:m1', 'c:m2'] },
      /`model\[2\]`: "c:m2" is not the model of "a:m1"/,
    ],
    ['a credential header', { headers: { authorization: 'Bearer x' } }, /`headers.authorization`/],
    [
      'a key in provider options',
      { providerOptions: { openai: { apiKey: 'k' } } },
      /`providerOptions.openai.apiKey`/,
    ],
    [
      'a URL with a password in a text',
      { embed: { values: ['see https://u:p@example.com'] } },
      /`embed.values\[0\]`: holds a URL/,
    ],
    ['a bad budget', { budget: { maxTotalTokens: -1 } }, /`budget.maxTotalTokens`/],
  ])('refuses %s, naming the field', (_what, extra, error) => {
    expect(() => checkCallInput({ ...EMBED, ...extra })).toThrow(error);
  });

  it('refuses a chain of two models, naming the first that differs', () => {
    expect(() => checkEmbeddingChain(['a:x', 'b:x', 'b:y'])).toThrow(/`model\[2\]`.*same model/);
    expect(() => checkEmbeddingChain(['a:x', 'b:x'])).not.toThrow();
  });

  it('estimates the texts as input tokens (UTF-8 bytes / 4), and keeps them out of failure messages', () => {
    const { request } = checkCallInput({ ...EMBED, embed: { values: ['12345678', 'é'] } });
    expect(estimateInputTokens(request)).toBe(2 + 1);
    expect(requestTexts(request)).toEqual(['12345678', 'é']);
  });
});
