import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONTINUE_INSTRUCTION,
  MIN_OVERLAP,
  OVERLAP_WINDOW,
  asksForThinking,
  continuationForm,
  continuationPrompt,
  overlapToTrim,
  splitForPrefill,
} from '../../../activities/attempt/continuation.js';
import type { ContinuationForm } from '../../../activities/attempt/continuation.js';
import { StreamGate, continuedAnswer } from '../../../activities/attempt/stream-gate.js';
import type { GateOptions } from '../../../activities/attempt/stream-gate.js';
import { ProvidersConfigError, parseProvidersConfig } from '../../../activities/providers/config.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';

/** `n` characters that repeat nowhere inside (so an overlap is only where a test puts it). */
const distinct = (n: number, from = 0x4e00) =>
  Array.from({ length: n }, (_, i) => String.fromCharCode(from + i)).join('');

describe('the overlap an instructed continuation leaves out', () => {
  const before = distinct(300);
  const rows: readonly (readonly [string, string, string, number])[] = [
    ['no repeat', before, 'and then it went on.', 0],
    ['a repeat of 19 characters is kept (it may be a coincidence)', before, before.slice(-19) + ' next', 0],
    ['a repeat of exactly 20 characters is left out', before, before.slice(-20) + ' next', 20],
    ['a repeat of 120 characters is left out', before, before.slice(-120) + ' next', 120],
    ['a repeat of the whole 200-character window is left out', before, before.slice(-200) + ' next', 200],
    ['a repeat longer than the window: only the window is left out', before, before.slice(-250) + ' next', 0],
    ['a restart from the beginning (outside the window) is kept', before, before + ' next', 0],
    ['a preamble before the repeat is kept, repeat and all', before, 'Sure! ' + before.slice(-50), 0],
    ['delivered text shorter than the window, repeated whole', distinct(30), distinct(30) + '!', 30],
    ['a repeat that is a suffix, not any earlier piece', before, before.slice(-80, -40) + ' next', 0],
    ['a head shorter than 20 characters cannot be left out', before, before.slice(-10), 0],
  ];
  it.each(rows)('%s', (_name, delivered, head, expected) => {
    expect(overlapToTrim(delivered, head)).toBe(expected);
  });

  it('takes the longest repeat when several suffixes match', () => {
    const delivered = 'ab'.repeat(100);
    expect(overlapToTrim(delivered, 'ab'.repeat(60) + 'c')).toBe(120);
    // "b" + "ab" x 20 is also a suffix of "abab...ab": 41 characters.
    expect(overlapToTrim(delivered, 'b' + 'ab'.repeat(20))).toBe(41);
    expect(overlapToTrim(delivered, 'c' + 'ab'.repeat(20))).toBe(0);
  });

  it('property: what is left out is always a suffix of the window and a prefix of the head, at least 20 long', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), fc.string({ maxLength: 400 }), (delivered, head) => {
        const k = overlapToTrim(delivered, head);
        if (k === 0) return;
        expect(k).toBeGreaterThanOrEqual(MIN_OVERLAP);
        expect(k).toBeLessThanOrEqual(OVERLAP_WINDOW);
        expect(delivered.endsWith(head.slice(0, k))).toBe(true);
      }),
    );
  });

  it('property: a head that repeats the last n ≥ 20 characters (n ≤ 200) is trimmed by at least n', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 20, maxLength: 400 }),
        fc.integer({ min: 20, max: 200 }),
        fc.string(),
        (delivered, n, rest) => {
          fc.pre(n <= delivered.length);
          expect(overlapToTrim(delivered, delivered.slice(-n) + rest)).toBeGreaterThanOrEqual(n);
        },
      ),
    );
  });
});

describe('which form a continuation asks in', () => {
  const rows: readonly (readonly [
    string,
    boolean,
    Parameters<typeof continuationForm>[1],
    string,
    ContinuationForm,
  ])[] = [
    ['a model without prefill: instruction', false, {}, 'Hello', 'instruction'],
    ['a model with prefill: prefill', true, {}, 'Hello', 'prefill'],
    [
      'prefill, reasoning provider-default: prefill',
      true,
      { reasoning: 'provider-default' },
      'Hi',
      'prefill',
    ],
    ['prefill, reasoning none: prefill', true, { reasoning: 'none' }, 'Hi', 'prefill'],
    ['prefill, reasoning high: instruction', true, { reasoning: 'high' }, 'Hi', 'instruction'],
    ['prefill, reasoning minimal: instruction', true, { reasoning: 'minimal' }, 'Hi', 'instruction'],
    [
      'prefill, anthropic thinking enabled: instruction',
      true,
      { providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 2000 } } } },
      'Hi',
      'instruction',
    ],
    [
      'prefill, thinking adaptive under another provider key: instruction',
      true,
      { providerOptions: { claude: { thinking: { type: 'adaptive' } } } },
      'Hi',
      'instruction',
    ],
    [
      'prefill, thinking disabled: prefill',
      true,
      { providerOptions: { anthropic: { thinking: { type: 'disabled' } } } },
      'Hi',
      'prefill',
    ],
    ['prefill, delivered text all whitespace: instruction', true, {}, ' \n ', 'instruction'],
  ];
  it.each(rows)('%s', (_name, prefill, options, text, expected) => {
    expect(continuationForm(prefill, options, text)).toBe(expected);
  });

  it('asks for thinking only for enabled or adaptive thinking, or a reasoning effort', () => {
    expect(asksForThinking({})).toBe(false);
    expect(asksForThinking({ providerOptions: { anthropic: { thinking: null } } })).toBe(false);
    expect(asksForThinking({ reasoning: 'xhigh' })).toBe(true);
  });
});

describe('the continuation request', () => {
  const prompt = [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Tell a story.' }] }];

  it('prefill: the prompt, then the delivered text as the final assistant message, trailing whitespace moved out', () => {
    expect(continuationPrompt(prompt, 'Once upon a time \n', 'prefill')).toEqual([
      ...prompt,
      { role: 'assistant', content: [{ type: 'text', text: 'Once upon a time' }] },
    ]);
  });

  it('instruction: the prompt, the delivered text as the assistant answer, then the instruction', () => {
    expect(continuationPrompt(prompt, 'Once upon a time ', 'instruction')).toEqual([
      ...prompt,
      { role: 'assistant', content: [{ type: 'text', text: 'Once upon a time ' }] },
      { role: 'user', content: [{ type: 'text', text: CONTINUE_INSTRUCTION }] },
    ]);
  });

  it.each([
    ['Hello ', 'Hello', ' '],
    ['Hello\n\n', 'Hello', '\n\n'],
    ['Hello', 'Hello', ''],
    ['  Hello \t', '  Hello', ' \t'],
  ])('moves the trailing whitespace of %j out of the prefill', (text, prefill, movedOut) => {
    expect(splitForPrefill(text)).toEqual({ prefill, movedOut });
  });
});

/** The text a gate publishes for `deltas` (then `end` parts), and what it left out. */
function published(options: GateOptions, deltas: readonly string[], end: LanguageModelV4StreamPart[] = []) {
  const gate = new StreamGate(options);
  const out: LanguageModelV4StreamPart[] = [];
  out.push(...gate.push({ type: 'text-start', id: 't' }));
  for (const delta of deltas) out.push(...gate.push({ type: 'text-delta', id: 't', delta }));
  for (const part of end) out.push(...gate.push(part));
  const text = out.map((p) => (p.type === 'text-delta' ? p.delta : '')).join('');
  return { text, trimmed: gate.trimmed, parts: out };
}

const textEnd: LanguageModelV4StreamPart = { type: 'text-end', id: 't' };

describe('what a prefill continuation publishes', () => {
  const rows: readonly (readonly [string, string, string[], string, number])[] = [
    ['the moved-out space is not sent twice', 'Hello ', [' world'], 'world', 1],
    ['the model does not resend it: all is published', 'Hello ', ['world'], 'world', 0],
    ['only the common prefix is dropped', 'Hello\n\n', ['\n', 'World'], 'World', 1],
    ['the whole moved-out whitespace, across deltas', 'Hello\n\n', ['\n', '\n', 'World'], 'World', 2],
    ['more whitespace than was moved out: the rest is published', 'Hello ', ['  world'], ' world', 1],
    ['nothing moved out: all is published', 'Hello', [' world'], ' world', 0],
    ['a different whitespace is published', 'Hello ', ['\nworld'], '\nworld', 0],
    ['later whitespace is never dropped', 'Hello ', ['world', ' ', 'again'], 'world again', 0],
  ];
  it.each(rows)('%s', (_name, delivered, deltas, text, trimmed) => {
    const got = published({ continuation: { text: delivered, form: 'prefill' } }, deltas, [textEnd]);
    expect(got.text).toBe(text);
    expect(got.trimmed).toBe(trimmed);
  });
});

describe('what an instructed continuation publishes', () => {
  const delivered = distinct(250);
  const instruction = (text = delivered) => ({ continuation: { text, form: 'instruction' as const } });

  it('holds the head until it is as long as the window, then leaves the repeat out', () => {
    const gate = new StreamGate(instruction());
    gate.push({ type: 'text-start', id: 't' });
    const repeat = delivered.slice(-30);
    expect(gate.push({ type: 'text-delta', id: 't', delta: repeat })).toEqual([]);
    const rest = distinct(170, 0x3040);
    const out = gate.push({ type: 'text-delta', id: 't', delta: rest });
    expect(out).toEqual([{ type: 'text-delta', id: 't', delta: rest }]);
    expect(gate.trimmed).toBe(30);
    // Once decided, deltas pass as they come.
    expect(gate.push({ type: 'text-delta', id: 't', delta: delivered.slice(-30) })).toEqual([
      { type: 'text-delta', id: 't', delta: delivered.slice(-30) },
    ]);
  });

  it('decides a shorter head at the text end, and at the finish', () => {
    expect(published(instruction(), [delivered.slice(-25), ' end.'], [textEnd])).toMatchObject({
      text: ' end.',
      trimmed: 25,
    });
  });

  it('decides at a part other than text (a tool call begins)', () => {
    const got = published(
      instruction(),
      [delivered.slice(-22), '!'],
      [{ type: 'tool-input-start', id: 'c1', toolName: 'lookup' }],
    );
    expect(got.parts.map((p) => p.type)).toEqual(['text-start', 'text-delta', 'tool-input-start']);
    expect(got).toMatchObject({ text: '!', trimmed: 22 });
  });

  it('a delivered text shorter than the window: the head is decided once it is as long as that text', () => {
    const short = distinct(40);
    const gate = new StreamGate(instruction(short));
    expect(gate.push({ type: 'text-delta', id: 't', delta: short.slice(-25) })).toEqual([]);
    expect(gate.push({ type: 'text-delta', id: 't', delta: 'x'.repeat(15) })).toEqual([
      { type: 'text-delta', id: 't', delta: 'x'.repeat(15) },
    ]);
    expect(gate.trimmed).toBe(25);
  });

  it("a provider's part before any text (Anthropic's message start) passes and does not decide the head", () => {
    const gate = new StreamGate(instruction());
    const start: LanguageModelV4StreamPart = { type: 'custom', kind: 'anthropic.message_start' };
    expect(gate.push(start)).toEqual([start]);
    expect(gate.push({ type: 'text-delta', id: 't', delta: delivered.slice(-25) })).toEqual([]);
    expect(gate.push(textEnd)).toEqual([textEnd]);
    expect(gate.trimmed).toBe(25);
  });

  it('reasoning before the text passes at once and does not decide the head', () => {
    const gate = new StreamGate(instruction());
    expect(gate.push({ type: 'reasoning-delta', id: 'r', delta: 'hmm' })).toHaveLength(1);
    expect(gate.push({ type: 'text-delta', id: 't', delta: delivered.slice(-20) })).toEqual([]);
  });

  it.each([
    ['a preamble', 'Sure, here is the rest: ' + delivered.slice(-40)],
    ['a restart', delivered],
    ['a repeat of 19 characters', delivered.slice(-19) + ' and more'],
  ])('publishes %s as sent', (_name, head) => {
    expect(published(instruction(), [head], [textEnd])).toMatchObject({ text: head, trimmed: 0 });
  });

  it('an empty continuation publishes nothing', () => {
    expect(published(instruction(), [], [textEnd]).text).toBe('');
  });

  it('property: the published text is the model text less a prefix, and that prefix ends the delivered text', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 300 }),
        fc.array(fc.string({ maxLength: 40 }), { maxLength: 12 }),
        (text, deltas) => {
          const got = published(instruction(text), deltas, [textEnd]);
          const sent = deltas.join('');
          expect(sent.endsWith(got.text)).toBe(true);
          expect(got.text.length + got.trimmed).toBe(sent.length);
          expect(text.endsWith(sent.slice(0, got.trimmed))).toBe(true);
        },
      ),
    );
  });
});

describe('tool input under onCut continue', () => {
  const input: LanguageModelV4StreamPart[] = [
    { type: 'tool-input-start', id: 'c1', toolName: 'lookup' },
    { type: 'tool-input-delta', id: 'c1', delta: '{"q":' },
    { type: 'tool-input-delta', id: 'c1', delta: '"x"}' },
    { type: 'tool-input-end', id: 'c1' },
  ];
  const call: LanguageModelV4StreamPart = {
    type: 'tool-call',
    toolCallId: 'c1',
    toolName: 'lookup',
    input: '{"q":"x"}',
  };

  const finish: LanguageModelV4StreamPart = {
    type: 'finish',
    finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 1, text: 1, reasoning: undefined },
    },
  };

  it('text before the first tool part passes; from it on everything is held, in order, until the finish', () => {
    const gate = new StreamGate({ holdToolInput: true });
    const text: LanguageModelV4StreamPart = { type: 'text-delta', id: 't', delta: 'Let me look. ' };
    expect(gate.push(text)).toEqual([text]);
    for (const part of input) expect(gate.push(part)).toEqual([]);
    expect(gate.push(call)).toEqual([]);
    const after: LanguageModelV4StreamPart = { type: 'text-delta', id: 't2', delta: 'and more' };
    expect(gate.push(after)).toEqual([]);
    expect(gate.push(finish)).toEqual([...input, call, after, finish]);
  });

  it('a stream cut before its finish published nothing of its tool calls, complete ones included', () => {
    const gate = new StreamGate({ holdToolInput: true });
    expect([...input, call].flatMap((part) => gate.push(part))).toEqual([]);
    expect(input.slice(0, 2).flatMap((part) => new StreamGate({ holdToolInput: true }).push(part))).toEqual(
      [],
    );
  });

  it('without it, tool input passes as it comes', () => {
    const gate = new StreamGate();
    expect([...input, call].flatMap((part) => gate.push(part))).toEqual([...input, call]);
  });
});

describe('a whole (not streamed) continuation answer', () => {
  it('keeps its first text less the repeat', () => {
    const delivered = distinct(100);
    const gate = new StreamGate({ continuation: { text: delivered, form: 'instruction' } });
    const result = continuedAnswer(
      {
        content: [{ type: 'text', text: delivered.slice(-30) + ' the end.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
        warnings: [],
      },
      gate,
    );
    expect(result.content).toEqual([{ type: 'text', text: ' the end.' }]);
    expect(gate.trimmed).toBe(30);
  });
});

describe('prefill in the providers file', () => {
  /** The problems a config is refused with (none: accepted). */
  function problems(config: unknown): readonly string[] {
    try {
      parseProvidersConfig(config, 'test.json');
      return [];
    } catch (error) {
      if (error instanceof ProvidersConfigError) return error.problems;
      throw error;
    }
  }
  const url = 'http://127.0.0.1:8080/v1';

  it.each([
    ['anthropic', { type: 'anthropic' }],
    ['openai-compatible', { type: 'openai-compatible', baseURL: url }],
  ])('is accepted on a %s model, and the resolved model says so (off by default)', (_type, entry) => {
    const config = { p: { ...entry, models: { m: { prefill: true }, n: { prefill: false } } } };
    expect(problems(config)).toEqual([]);
    const registry = createProviderRegistry(config as never, {
      env: { ANTHROPIC_API_KEY: 'sk-ant-test-key-0123456789' },
    });
    expect(registry.resolve('p:m').prefill).toBe(true);
    expect(registry.resolve('p:n').prefill).toBeUndefined();
    expect(registry.resolve('p:other').prefill).toBeUndefined();
  });

  it.each([
    [{ type: 'anthropic', models: { m: { prefill: 'yes' } } }, '`p.models.m.prefill` must be true or false'],
    [
      { type: 'openai', models: { m: { prefill: true } } },
      '`p.models.m.prefill` is not possible on provider type "openai"',
    ],
    [
      { type: 'google', models: { m: { prefill: true } } },
      '`p.models.m.prefill` is not possible on provider type "google"',
    ],
    [
      { type: 'openai-responses', models: { m: { prefill: true } } },
      '`p.models.m.prefill` is not possible on provider type "openai-responses"',
    ],
  ])('refuses %j, naming the field', (entry, message) => {
    expect(problems({ p: entry }).join('\n')).toContain(message);
  });

  it('takes prefill: false on any type', () => {
    expect(problems({ p: { type: 'google', models: { m: { prefill: false } } } })).toEqual([]);
  });
});
