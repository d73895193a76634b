import { describe, expect, it } from 'vitest';
import {
  generateResult,
  modelOf,
  providerOf,
  streamParts,
  usageOf,
} from '../../../workflows/ai-sdk/result.js';
import type { ModelCallResult } from '../../../common/call.js';
import type { WireContent } from '../../../common/request.js';

const result: ModelCallResult = {
  callId: 'c2',
  stopReason: 'succeeded',
  output: {
    text: 'Sunny.',
    toolCalls: [{ id: 't1', name: 'weather', args: '{"city":"Paris"}' }],
    finishReason: 'tool-calls',
  },
  model: 'local:b',
  backend: 1,
  usage: { inputTokens: 10, outputTokens: 4 },
  responseId: 'r1',
  attempts: [],
  billed: { attempts: 2 },
  lastDecision: { reason: 'succeeded', why: 'answered' },
};

const withOutput = (output: Partial<ModelCallResult['output']>): ModelCallResult => ({
  ...result,
  output: { ...result.output, ...output },
});

const signed = { anthropic: { signature: 'sig-1' } };

/** One of each content kind an answer may hold, in wire form. */
const KINDS: [string, WireContent, unknown][] = [
  ['text', { type: 'text', text: 'Hello.', providerMetadata: { openai: { itemId: 'i1' } } }, undefined],
  [
    'reasoning with its signature',
    { type: 'reasoning', text: 'Think.', providerMetadata: signed },
    undefined,
  ],
  [
    'a tool call',
    { type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: '{"city":"Paris"}' },
    undefined,
  ],
  [
    'a provider-executed tool call',
    { type: 'tool-call', toolCallId: 't2', toolName: 'web_search', input: '{}', providerExecuted: true },
    undefined,
  ],
  [
    'a tool result',
    { type: 'tool-result', toolCallId: 't2', toolName: 'web_search', result: { hits: 3 } },
    undefined,
  ],
  [
    'a file as base64',
    { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'AQID' } },
    undefined,
  ],
  [
    'a file at a URL',
    { type: 'file', mediaType: 'image/png', data: { type: 'url', url: 'https://example.com/a.png' } },
    {
      type: 'file',
      mediaType: 'image/png',
      data: { type: 'url', url: new URL('https://example.com/a.png') },
    },
  ],
  [
    'a reasoning file',
    { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: 'AQID' } },
    undefined,
  ],
  [
    'a URL source',
    { type: 'source', sourceType: 'url', id: 's1', url: 'https://example.com', title: 'Ex' },
    undefined,
  ],
  [
    'a document source',
    { type: 'source', sourceType: 'document', id: 's2', mediaType: 'application/pdf', title: 'Doc' },
    undefined,
  ],
  ['an approval request', { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 't2' }, undefined],
  [
    'custom content',
    { type: 'custom', kind: 'openai.compaction', providerMetadata: { openai: { x: 1 } } },
    undefined,
  ],
];

describe("a call's result as the AI SDK's answer, whole", () => {
  it.each(KINDS)('returns %s as the provider gave it', (_what, part, decoded) => {
    expect(generateResult(withOutput({ content: [part] })).content).toEqual([decoded ?? part]);
  });

  it('keeps the order of the content', () => {
    const content = KINDS.map(([, part]) => part);
    expect(generateResult(withOutput({ content })).content.map((c) => c.type)).toEqual(
      content.map((c) => c.type),
    );
  });

  it('falls back to the text and the tool calls when the result has no content (a streamed attempt)', () => {
    expect(generateResult(result)).toMatchObject({
      content: [
        { type: 'text', text: 'Sunny.' },
        { type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: '{"city":"Paris"}' },
      ],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage: { inputTokens: { total: 10 }, outputTokens: { total: 4 } },
      providerMetadata: {
        modelRetry: { callId: 'c2', model: 'local:b', backend: 1, attempts: 0, tried: [] },
      },
      response: { id: 'r1', modelId: 'b' },
      warnings: [],
    });
  });

  it('gives a structured answer as the validated object, in place of the text, other parts kept', () => {
    const answer = withOutput({
      text: '```json\n{"city":"Paris"}\n```',
      object: { city: 'Paris' },
      content: [
        { type: 'reasoning', text: 'Think.' },
        { type: 'text', text: '```json\n{"city":"Paris"}\n```' },
      ],
    });
    expect(generateResult(answer).content).toEqual([
      { type: 'reasoning', text: 'Think.' },
      { type: 'text', text: '{"city":"Paris"}' },
    ]);
    expect(generateResult(withOutput({ object: { a: 1 }, toolCalls: [] })).content).toEqual([
      { type: 'text', text: '{"a":1}' },
    ]);
  });

  it("gives the warnings, the raw finish reason, the response's metadata and the provider's metadata", () => {
    const answer = generateResult(
      withOutput({
        finishReason: 'stop',
        rawFinishReason: 'end_turn',
        warnings: [{ type: 'unsupported', feature: 'topK' }],
        response: {
          id: 'msg_1',
          modelId: 'claude-haiku-4-5-20251001',
          timestamp: '2026-01-02T03:04:05.000Z',
          headers: { 'x-request-id': 'req-1' },
        },
        providerMetadata: { anthropic: { cacheCreationInputTokens: 7 } },
      }),
    );
    expect(answer.finishReason).toEqual({ unified: 'stop', raw: 'end_turn' });
    expect(answer.warnings).toEqual([{ type: 'unsupported', feature: 'topK' }]);
    expect(answer.response).toEqual({
      id: 'msg_1',
      modelId: 'claude-haiku-4-5-20251001',
      timestamp: new Date('2026-01-02T03:04:05.000Z'),
      headers: { 'x-request-id': 'req-1' },
    });
    expect(answer.providerMetadata).toEqual({
      anthropic: { cacheCreationInputTokens: 7 },
      modelRetry: { callId: 'c2', model: 'local:b', backend: 1, attempts: 0, tried: [] },
    });
    // A provider's own reason the unified ones do not know is `other`, its raw reason as the provider gave it.
    expect(
      generateResult(withOutput({ finishReason: 'other', rawFinishReason: 'weird' })).finishReason,
    ).toEqual({ unified: 'other', raw: 'weird' });
    expect(generateResult(withOutput({ finishReason: 'stop' })).finishReason).toEqual({
      unified: 'stop',
      raw: undefined,
    });
  });

  it('replays the answer as stream parts, each content part once, then the finish', () => {
    const content = KINDS.map(([, part]) => part);
    const parts = streamParts(withOutput({ content, warnings: [{ type: 'other', message: 'w' }] }));
    expect(parts.map((p) => p.type)).toEqual([
      'stream-start',
      'response-metadata',
      'text-start',
      'text-delta',
      'text-end',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
      'tool-result',
      'file',
      'file',
      'reasoning-file',
      'source',
      'source',
      'tool-approval-request',
      'custom',
      'finish',
    ]);
    expect(parts[0]).toEqual({ type: 'stream-start', warnings: [{ type: 'other', message: 'w' }] });
    expect(parts[1]).toMatchObject({ type: 'response-metadata', id: 'r1', modelId: 'b' });
    expect(parts.slice(5, 8)).toEqual([
      { type: 'reasoning-start', id: 'reasoning-1', providerMetadata: signed },
      { type: 'reasoning-delta', id: 'reasoning-1', delta: 'Think.' },
      { type: 'reasoning-end', id: 'reasoning-1', providerMetadata: signed },
    ]);
    expect(parts.slice(12, 16)).toEqual([
      { type: 'tool-input-start', id: 't2', toolName: 'web_search', providerExecuted: true },
      { type: 'tool-input-delta', id: 't2', delta: '{}' },
      { type: 'tool-input-end', id: 't2' },
      content[3],
    ]);
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: { unified: 'tool-calls' },
      providerMetadata: { modelRetry: { callId: 'c2' } },
    });
  });

  it('replays a result without content as its text and tool calls', () => {
    expect(streamParts(result).map((p) => p.type)).toEqual([
      'stream-start',
      'response-metadata',
      'text-start',
      'text-delta',
      'text-end',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
      'finish',
    ]);
  });

  it('gives every usage field, leaving what the provider did not report undefined, never 0', () => {
    expect(usageOf(undefined)).toEqual({
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    });
    expect(
      usageOf({
        inputTokens: 20,
        cachedInputTokens: 4,
        cacheWriteInputTokens: 6,
        outputTokens: 8,
        reasoningTokens: 3,
      }),
    ).toEqual({
      inputTokens: { total: 20, noCache: 10, cacheRead: 4, cacheWrite: 6 },
      outputTokens: { total: 8, text: 5, reasoning: 3 },
    });
    expect(usageOf({ inputTokens: 10, cachedInputTokens: 4 }).inputTokens).toEqual({
      total: 10,
      noCache: 6,
      cacheRead: 4,
      cacheWrite: undefined,
    });
  });

  it.each([
    ['local:fast', 'fast', 'local'],
    ['openai:gpt-4o-mini', 'gpt-4o-mini', 'openai'],
    ['openrouter:meta/llama:free', 'meta/llama:free', 'openrouter'],
  ])('names %s as the model %s of the provider %s', (backend, model, provider) => {
    expect([modelOf(backend), providerOf(backend)]).toEqual([model, provider]);
  });
});

describe("model-retry's own metadata of an answer", () => {
  it('names the chain and each attempt', () => {
    const { providerMetadata } = generateResult(
      {
        callId: 'c1',
        stopReason: 'succeeded',
        output: { text: 'hi', toolCalls: [], finishReason: 'stop' },
        model: 'local:b',
        backend: 1,
        attempts: [
          {
            modelCallId: 'c1.1',
            callId: 'c1',
            attempt: 1,
            backend: 0,
            model: 'local:a',
            startedAt: '2026-01-01T00:00:00.000Z',
            outcome: 'failed',
            failure: { class: 'ServerError', message: '502' },
          },
          {
            modelCallId: 'c1.2',
            callId: 'c1',
            attempt: 2,
            backend: 1,
            model: 'local:b',
            startedAt: '2026-01-01T00:00:01.000Z',
            outcome: 'succeeded',
          },
        ],
        billed: { attempts: 2 },
        lastDecision: { reason: 'succeeded', why: 'answered' },
      },
      ['local:a', 'local:b'],
    );
    expect(providerMetadata?.modelRetry).toEqual({
      callId: 'c1',
      model: 'local:b',
      backend: 1,
      chain: ['local:a', 'local:b'],
      attempts: 2,
      tried: [
        { modelCallId: 'c1.1', model: 'local:a', outcome: 'failed', class: 'ServerError' },
        { modelCallId: 'c1.2', model: 'local:b', outcome: 'succeeded' },
      ],
    });
  });
});
