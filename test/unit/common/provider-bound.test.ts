import { describe, expect, it } from 'vitest';
import { providerBoundProblem } from '../../../common/provider-bound.js';
import type { WireRequest } from '../../../common/request.js';

const KEYS = { claude: 'anthropic', resp: 'openai', local: 'local', gem: 'google' };
const webSearch = {
  type: 'provider' as const,
  id: 'anthropic.web_search_20250305' as const,
  name: 'web_search',
  args: {},
};
const weather = { type: 'function' as const, name: 'weather', inputSchema: { type: 'object' as const } };
const text = (t: string) => ({ type: 'text' as const, text: t });
const referenced = (reference: Record<string, string>): Pick<WireRequest, 'prompt'> => ({
  prompt: [
    { role: 'system', content: 'be brief' },
    {
      role: 'user',
      content: [
        text('summarise'),
        { type: 'file', mediaType: 'application/pdf', data: { type: 'reference', reference } },
      ],
    },
  ],
});

describe("what only one provider can take, against a call's chain", () => {
  it.each([
    [
      'a provider tool on a chain of its own provider',
      { prompt: [], tools: [webSearch] },
      ['claude:opus', 'claude:haiku'],
    ],
    ['function tools on any chain', { prompt: [], tools: [weather] }, ['claude:opus', 'local:fast']],
    ['a file reference a backend holds', referenced({ openai: 'file-1' }), ['resp:gpt-5']],
    [
      'a file reference every backend holds',
      referenced({ openai: 'f-1', anthropic: 'f-2' }),
      ['resp:gpt-5', 'claude:opus'],
    ],
    [
      'a backend whose provider the worker does not know',
      { prompt: [], tools: [webSearch] },
      ['mystery:model'],
    ],
  ])('lets through %s', (_name, request, chain) => {
    expect(providerBoundProblem(request, chain, KEYS)).toBeUndefined();
  });

  it("refuses another provider's tool, naming the tool and the backend", () => {
    const problem = providerBoundProblem(
      { prompt: [], tools: [weather, webSearch] },
      ['claude:opus', 'local:fast'],
      KEYS,
    );
    expect(problem?.field).toBe('tools[1]');
    expect(problem?.message).toContain('backend 1 (local:fast) cannot run');
    expect(problem?.message).toContain('anthropic.web_search_20250305');
  });

  it('refuses a file reference a backend of the chain does not hold, naming the part', () => {
    const problem = providerBoundProblem(referenced({ openai: 'file-1' }), ['resp:gpt-5', 'gem:flash'], KEYS);
    expect(problem).toEqual({
      field: 'prompt[1].content[1]',
      message: expect.stringContaining(
        'held by reference at openai, which backend 1 (gem:flash) cannot read',
      ) as string,
    });
  });

  it('checks nothing when the worker said no keys (an older worker, a registry built by hand)', () => {
    expect(
      providerBoundProblem({ prompt: [], tools: [webSearch] }, ['local:fast'], undefined),
    ).toBeUndefined();
  });
});
