import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogle } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidScriptError, ok, parseStep, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider, OkStep } from '../../../loopback/index.js';

let lp: LoopbackProvider;
beforeEach(async () => {
  lp = await startLoopbackProvider();
});
afterEach(async () => {
  lp.assertScriptsConsumed();
  await lp.close();
});

const call: LanguageModelV4CallOptions = {
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
};

const KEY = 'loopback-test-key';
const anthropic = (id: string) => createAnthropic({ baseURL: lp.anthropicBaseURL, apiKey: KEY }).messages(id);
const responses = (id: string) => createOpenAI({ baseURL: lp.openaiBaseURL, apiKey: KEY }).responses(id);
const gemini = (id: string) => createGoogle({ baseURL: lp.googleBaseURL, apiKey: KEY }).languageModel(id);
const compatible = (id: string) =>
  createOpenAICompatible({ name: 'lb', baseURL: lp.openaiBaseURL, apiKey: KEY }).chatModel(id);

/** What a reasoning answer looks like in the AI SDK's content, reasoning and text only, metadata kept. */
function reasoningAndText(content: readonly LanguageModelV4Content[]) {
  return content.flatMap((c) =>
    c.type === 'reasoning' || c.type === 'text'
      ? [
          {
            type: c.type,
            text: c.text,
            ...(c.providerMetadata ? { providerMetadata: c.providerMetadata } : {}),
          },
        ]
      : [],
  );
}

/** The content of a streamed answer, assembled as the AI SDK does: each block's deltas joined, metadata last wins. */
async function streamed(model: LanguageModelV4): Promise<Record<string, unknown>[]> {
  const { stream } = await model.doStream(call);
  const blocks = new Map<string, Record<string, unknown>>();
  const out: Record<string, unknown>[] = [];
  for await (const part of stream as AsyncIterable<LanguageModelV4StreamPart>) {
    if (part.type === 'reasoning-start' || part.type === 'text-start') {
      const block: Record<string, unknown> = { type: part.type.replace('-start', ''), text: '' };
      if (part.providerMetadata) block.providerMetadata = part.providerMetadata;
      blocks.set(part.id, block);
      out.push(block);
    } else if (part.type === 'reasoning-delta' || part.type === 'text-delta') {
      const block = blocks.get(part.id);
      if (block === undefined) throw new Error(`a delta of block ${part.id} before its start`);
      block.text = `${String(block.text)}${part.delta}`;
      if (part.providerMetadata) block.providerMetadata = part.providerMetadata;
    } else if (part.type === 'reasoning-end' || part.type === 'text-end') {
      const block = blocks.get(part.id);
      if (block && part.providerMetadata) block.providerMetadata = part.providerMetadata;
    } else if (part.type === 'tool-call') {
      out.push({ type: 'tool-call', toolName: part.toolName, input: part.input });
    } else if (part.type === 'error') {
      throw new Error(`stream error: ${JSON.stringify(part.error)}`);
    }
  }
  return out;
}

const THOUGHT = 'Let me think about this step by step.';
const step = (extra: Partial<OkStep> = {}): OkStep =>
  ok('The answer.', { reasoning: { text: THOUGHT, signature: 'sig-abc' }, ...extra });

describe('reasoning in answers of the loopback provider, as each AI SDK provider reads it', () => {
  it('Anthropic: a signed thinking block and a redacted one, in JSON and in the stream', async () => {
    const blocks = [{ text: THOUGHT, signature: 'sig-abc' }, { redactedData: 'redacted-xyz' }];
    lp.script('claude-r', [
      ok('The answer.', { reasoning: blocks }),
      ok('The answer.', { reasoning: blocks }),
    ]);
    const expected = [
      { type: 'reasoning', text: THOUGHT, providerMetadata: { anthropic: { signature: 'sig-abc' } } },
      { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: 'redacted-xyz' } } },
      { type: 'text', text: 'The answer.' },
    ];
    const generated = await anthropic('claude-r').doGenerate(call);
    expect(reasoningAndText(generated.content)).toEqual(expected);
    expect(await streamed(anthropic('claude-r'))).toMatchObject(expected);
    const body = lp.requests('claude-r')[0]?.step;
    expect(body).toMatchObject({ reasoning: blocks });
  });

  it('OpenAI Responses: a reasoning item with its id and encrypted content, in JSON and in the stream', async () => {
    lp.script('gpt-5-r', [
      step({ usage: { reasoningTokens: 7 } }),
      step({ reasoning: { text: THOUGHT, signature: 'enc-abc', id: 'rs_given' } }),
    ]);
    const generated = await responses('gpt-5-r').doGenerate(call);
    expect(reasoningAndText(generated.content)).toEqual([
      {
        type: 'reasoning',
        text: THOUGHT,
        providerMetadata: { openai: { itemId: 'rs_loopback_1_0', reasoningEncryptedContent: 'sig-abc' } },
      },
      { type: 'text', text: 'The answer.', providerMetadata: { openai: { itemId: 'msg_loopback_1' } } },
    ]);
    expect(generated.usage.outputTokens.reasoning).toBe(7);
    const parts = await streamed(responses('gpt-5-r'));
    expect(parts[0]).toEqual({
      type: 'reasoning',
      text: THOUGHT,
      providerMetadata: { openai: { itemId: 'rs_given', reasoningEncryptedContent: 'enc-abc' } },
    });
    expect(parts[1]).toMatchObject({ type: 'text', text: 'The answer.' });
  });

  it('Gemini: thought parts with a thoughtSignature, and a signed function call, in JSON and in the stream', async () => {
    const withCall = step({
      text: '',
      toolCalls: [{ name: 'lookup', arguments: { q: 'x' }, signature: 'call-sig' }],
    });
    lp.script('gemini-r', [step({ usage: { outputTokens: 9, reasoningTokens: 5 } }), step(), withCall]);
    const generated = await gemini('gemini-r').doGenerate(call);
    expect(reasoningAndText(generated.content)).toEqual([
      { type: 'reasoning', text: THOUGHT, providerMetadata: { google: { thoughtSignature: 'sig-abc' } } },
      { type: 'text', text: 'The answer.' },
    ]);
    // Gemini counts thoughts apart from the candidates; the step's output tokens are both.
    expect(generated.usage.outputTokens).toMatchObject({ total: 9, reasoning: 5 });
    expect(await streamed(gemini('gemini-r'))).toMatchObject([
      { type: 'reasoning', text: THOUGHT, providerMetadata: { google: { thoughtSignature: 'sig-abc' } } },
      { type: 'text', text: 'The answer.' },
    ]);
    const called = await gemini('gemini-r').doGenerate(call);
    expect(called.content.find((c) => c.type === 'tool-call')).toMatchObject({
      toolName: 'lookup',
      input: '{"q":"x"}',
      providerMetadata: { google: { thoughtSignature: 'call-sig' } },
    });
  });

  it('OpenAI-compatible chat completions: reasoning_content (no signature), in JSON and in the stream', async () => {
    lp.script('chat-r', [step(), step()]);
    const generated = await compatible('chat-r').doGenerate(call);
    expect(reasoningAndText(generated.content)).toEqual([
      { type: 'reasoning', text: THOUGHT },
      { type: 'text', text: 'The answer.' },
    ]);
    expect(await streamed(compatible('chat-r'))).toMatchObject([
      { type: 'reasoning', text: THOUGHT },
      { type: 'text', text: 'The answer.' },
    ]);
  });

  it('validates the reasoning of a JSON step, naming the field', () => {
    expect(parseStep({ kind: 'ok', reasoning: { text: 't', signature: 's' } })).toMatchObject({
      reasoning: {},
    });
    expect(
      parseStep({
        kind: 'ok',
        reasoning: [{ redactedData: 'd' }],
        toolCalls: [{ name: 'f', signature: 's' }],
      }),
    ).toBeDefined();
    expect(() => parseStep({ kind: 'ok', reasoning: { text: 1 } })).toThrow(InvalidScriptError);
    expect(() => parseStep({ kind: 'ok', reasoning: [{ sig: 's' }] })).toThrow(/step\.reasoning must be/);
    expect(() => parseStep({ kind: 'ok', usage: { reasoningTokens: -1 } })).toThrow(/step\.usage/);
  });
});
