import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeRequest } from '../../../activities/attempt/prompt.js';
import { successOf } from '../../../activities/attempt/result.js';
import { streamAnswer } from '../../../activities/attempt/stream-answer.js';
import type { DeltaPublisher } from '../../../activities/attempt/delta-publisher.js';
import { StreamContent } from '../../../activities/attempt/stream-content.js';
import { createProviderRegistry } from '../../../activities/providers/registry.js';
import type { ProviderRegistry } from '../../../activities/providers/registry.js';
import { ok, startLoopbackProvider } from '../../../loopback/index.js';
import type { LoopbackProvider, OkStep } from '../../../loopback/index.js';
import { builtinEnv, input } from './helpers.js';

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 7, text: 7, reasoning: undefined },
};
const finish = (over: Partial<Extract<LanguageModelV4StreamPart, { type: 'finish' }>> = {}) =>
  ({ type: 'finish', usage, finishReason: { unified: 'stop', raw: 'end_turn' }, ...over }) as const;

/** The parts of a stream, then the answer `doGenerate` would have returned for them. */
function added(parts: LanguageModelV4StreamPart[]): LanguageModelV4GenerateResult {
  const content = new StreamContent();
  for (const part of parts) content.add(part);
  const end = content.finish;
  if (end === undefined) throw new Error('no finish part');
  return content.result(end);
}

describe('a streamed answer adds up to what doGenerate returns, whole', () => {
  const signature = { anthropic: { signature: 'sig-abc' } };
  const rows: readonly (readonly [
    string,
    LanguageModelV4StreamPart[],
    Partial<LanguageModelV4GenerateResult>,
  ])[] = [
    [
      'text deltas joined per id, in the order the parts began',
      [
        { type: 'text-start', id: 'a' },
        { type: 'text-delta', id: 'a', delta: 'Hel' },
        { type: 'text-start', id: 'b' },
        { type: 'text-delta', id: 'b', delta: 'second' },
        { type: 'text-delta', id: 'a', delta: 'lo' },
        { type: 'text-end', id: 'a' },
        { type: 'text-end', id: 'b' },
        finish(),
      ],
      {
        content: [
          { type: 'text', text: 'Hello' },
          { type: 'text', text: 'second' },
        ],
      },
    ],
    [
      'reasoning with the signature that arrives on reasoning-end, before the text',
      [
        { type: 'reasoning-start', id: 'r', providerMetadata: { anthropic: { signature: '' } } },
        { type: 'reasoning-delta', id: 'r', delta: 'think ' },
        { type: 'reasoning-delta', id: 'r', delta: 'hard' },
        { type: 'reasoning-end', id: 'r', providerMetadata: signature },
        { type: 'text-delta', id: 't', delta: 'answer' },
        finish(),
      ],
      {
        content: [
          { type: 'reasoning', text: 'think hard', providerMetadata: signature },
          { type: 'text', text: 'answer' },
        ],
      },
    ],
    [
      'redacted reasoning: no text, its data in the metadata',
      [
        { type: 'reasoning-start', id: 'r', providerMetadata: { anthropic: { redactedData: 'xyz' } } },
        { type: 'reasoning-end', id: 'r' },
        { type: 'text-delta', id: 't', delta: 'ok' },
        finish(),
      ],
      {
        content: [
          { type: 'reasoning', text: '', providerMetadata: { anthropic: { redactedData: 'xyz' } } },
          { type: 'text', text: 'ok' },
        ],
      },
    ],
    [
      "a text's citations and provider metadata from its end",
      [
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'cited' },
        {
          type: 'text-end',
          id: 't',
          citations: [{ source: { type: 'source', sourceType: 'url', id: 's1', url: 'https://a.example' } }],
          providerMetadata: { p: { k: 1 } },
        },
        finish(),
      ],
      {
        content: [
          {
            type: 'text',
            text: 'cited',
            citations: [
              { source: { type: 'source', sourceType: 'url', id: 's1', url: 'https://a.example' } },
            ],
            providerMetadata: { p: { k: 1 } },
          },
        ],
      },
    ],
    [
      'tool calls (the input streamed, the call whole), provider-executed ones and their results',
      [
        { type: 'tool-input-start', id: 'c1', toolName: 'search', providerExecuted: true },
        { type: 'tool-input-delta', id: 'c1', delta: '{"q":"x"}' },
        { type: 'tool-input-end', id: 'c1' },
        {
          type: 'tool-call',
          toolCallId: 'c1',
          toolName: 'search',
          input: '{"q":"x"}',
          providerExecuted: true,
        },
        { type: 'tool-result', toolCallId: 'c1', toolName: 'search', result: { hits: 1 } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'add', input: '{"a":1}' },
        finish({ finishReason: { unified: 'tool-calls', raw: 'tool_use' } }),
      ],
      {
        content: [
          {
            type: 'tool-call',
            toolCallId: 'c1',
            toolName: 'search',
            input: '{"q":"x"}',
            providerExecuted: true,
          },
          { type: 'tool-result', toolCallId: 'c1', toolName: 'search', result: { hits: 1 } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'add', input: '{"a":1}' },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
      },
    ],
    [
      'files, sources and custom content as they came',
      [
        { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
        { type: 'source', sourceType: 'url', id: 's', url: 'https://b.example', title: 'B' },
        { type: 'custom', kind: 'provider.thing', providerMetadata: { p: { v: true } } },
        {
          type: 'reasoning-file',
          mediaType: 'image/png',
          data: { type: 'url', url: new URL('https://c.example/f.png') },
        },
        finish(),
      ],
      {
        content: [
          { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
          { type: 'source', sourceType: 'url', id: 's', url: 'https://b.example', title: 'B' },
          { type: 'custom', kind: 'provider.thing', providerMetadata: { p: { v: true } } },
          {
            type: 'reasoning-file',
            mediaType: 'image/png',
            data: { type: 'url', url: new URL('https://c.example/f.png') },
          },
        ],
      },
    ],
    [
      "the warnings of stream-start, the response metadata merged, the finish part's usage and metadata",
      [
        { type: 'stream-start', warnings: [{ type: 'unsupported', feature: 'topK' }] },
        { type: 'response-metadata', id: 'resp-1', modelId: 'm-2025', timestamp: new Date(0) },
        { type: 'response-metadata', id: undefined, modelId: 'm-2026' },
        { type: 'raw', rawValue: { anything: true } },
        { type: 'text-delta', id: 't', delta: 'x' },
        finish({ providerMetadata: { anthropic: { cacheCreationInputTokens: 3 } } }),
      ],
      {
        warnings: [{ type: 'unsupported', feature: 'topK' }],
        response: { id: 'resp-1', modelId: 'm-2026', timestamp: new Date(0) },
        usage,
        finishReason: { unified: 'stop', raw: 'end_turn' },
        providerMetadata: { anthropic: { cacheCreationInputTokens: 3 } },
      },
    ],
  ];

  it.each(rows)('%s', (_name, parts, expected) => {
    expect(added(parts)).toMatchObject(expected);
  });

  it('keeps the headers and request doStream returned beside its stream', () => {
    const content = new StreamContent();
    content.add(finish());
    const end = content.finish;
    expect(end).toBeDefined();
    if (end === undefined) return;
    const result = content.result(end, { body: { a: 1 } }, { 'x-request-id': 'r1' });
    expect(result.request).toEqual({ body: { a: 1 } });
    expect(result.response).toEqual({ headers: { 'x-request-id': 'r1' } });
  });
});

let lp: LoopbackProvider;
beforeAll(async () => {
  lp = await startLoopbackProvider();
});
afterEach(() => {
  lp.assertScriptsConsumed();
  lp.reset();
});
afterAll(async () => {
  await lp.close();
});

/** A publisher that keeps what it was given. */
function keepingPublisher(): DeltaPublisher & { deltas: string[] } {
  const deltas: string[] = [];
  return {
    deltas,
    add: (text) => void deltas.push(text),
    finish: () => Promise.resolve(),
    abandon: () => Promise.resolve(),
    get sent() {
      return deltas.length;
    },
  };
}

/** Every provider type, on the loopback provider's wire format of its family. */
function registry(): ProviderRegistry {
  return createProviderRegistry(
    {
      local: { type: 'openai-compatible', baseURL: lp.openaiBaseURL },
      gem: { type: 'google', baseURL: lp.googleBaseURL, apiKeyEnv: 'GEMINI_KEY' },
      resp: { type: 'openai-responses' },
    },
    { env: builtinEnv(lp, { GEMINI_KEY: 'gemini-test-key-0123456789' }) },
  );
}

/** The same answer asked once whole and once streamed, each as the attempt's result. */
async function bothWays(model: string, step: OkStep) {
  lp.script('m', [step, step]);
  const resolved = registry().resolve(model);
  const { prompt, ...rest } = decodeRequest(input(model).request);
  const options = { ...rest, prompt };
  const times = { startedAt: new Date(0).toISOString(), endedAt: new Date(1).toISOString() };
  const whole = successOf(await resolved.model.doGenerate(options), resolved, times);
  const publisher = keepingPublisher();
  const streamed = successOf(await streamAnswer(resolved.model, options, publisher), resolved, times);
  return { whole, streamed, deltas: publisher.deltas };
}

/** Ids that a provider (or the SDK) makes per request: two requests for the same answer differ only in them. */
const PER_REQUEST = new Set(['id', 'toolCallId', 'itemId', 'responseId']);

function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      PER_REQUEST.has(k) && typeof v === 'string' ? '<id>' : withoutIds(v),
    ]),
  );
}

/**
 * What the two results must share. `@ai-sdk/anthropic` streams one part more than it generates: a `custom` part
 * `anthropic.message_start` (the message's id, model and first usage), which the AI SDK's own `streamText` keeps
 * in its content as well; so does the attempt.
 */
const comparable = (r: Awaited<ReturnType<typeof bothWays>>['whole']) =>
  withoutIds({
    text: r.text,
    toolCalls: r.toolCalls,
    finishReason: r.finishReason,
    rawFinishReason: r.rawFinishReason,
    usage: r.usage,
    content: r.content?.filter((p) => !(p.type === 'custom' && p.kind === 'anthropic.message_start')),
    providerMetadata: r.providerMetadata,
    warnings: r.warnings,
  });

describe('streamed and whole, the same answer is the same result (each family on the loopback provider)', () => {
  const step = ok('The answer is 42.', {
    reasoning: { text: 'Let me think.', signature: 'sig-loopback' },
    toolCalls: [{ id: 'call_1', name: 'lookup', arguments: { q: 'answer' } }],
    usage: { inputTokens: 21, outputTokens: 13 },
  });
  it.each([
    ['openai-compatible', 'local:m'],
    ['openai (chat completions)', 'openai:m'],
    ['anthropic', 'anthropic:m'],
    ['google', 'gem:m'],
    ['openai-responses', 'resp:m'],
  ])('%s', async (_family, model) => {
    const { whole, streamed, deltas } = await bothWays(model, step);
    if (model === 'anthropic:m') {
      expect(streamed.content?.[0]).toMatchObject({ type: 'custom', kind: 'anthropic.message_start' });
    }
    expect(comparable(streamed)).toEqual(comparable(whole));
    expect(streamed.text).toBe('The answer is 42.');
    expect(deltas.join('')).toBe('The answer is 42.');
    expect(streamed.toolCalls.map((c) => c.name)).toEqual(['lookup']);
    // Chat completions' `reasoning_content` is read by `@ai-sdk/openai-compatible` only, streamed or not.
    if (model !== 'openai:m') {
      expect(streamed.content?.find((p) => p.type === 'reasoning')).toMatchObject({ text: 'Let me think.' });
    }
    expect(streamed.usage).toMatchObject({ inputTokens: 21, outputTokens: 13 });
    expect(streamed.response?.id).toBeDefined();
    expect(streamed.response?.id).toBe(streamed.responseId);
  });
});
