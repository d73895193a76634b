import { describe, expect, it } from 'vitest';
import { generateResult, streamParts, usageOf } from '../../../workflows/ai-sdk/result.js';
import type { ModelCallResult } from '../../../common/call.js';

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

describe("a call's result as the AI SDK's answer", () => {
  it('gives the text, the tool calls, the finish reason, the usage and which call answered', () => {
    expect(generateResult(result)).toMatchObject({
      content: [
        { type: 'text', text: 'Sunny.' },
        { type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: '{"city":"Paris"}' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool-calls' },
      usage: { inputTokens: { total: 10 }, outputTokens: { total: 4 } },
      providerMetadata: { modelRetry: { callId: 'c2', model: 'local:b', backend: 1, attempts: 0 } },
      response: { id: 'r1', modelId: 'local:b' },
    });
  });

  it('replays the answer as stream parts once the attempt has ended', () => {
    expect(streamParts(result).map((p) => p.type)).toEqual([
      'stream-start',
      'response-metadata',
      'text-start',
      'text-delta',
      'text-end',
      'tool-call',
      'finish',
    ]);
  });

  it('leaves what the provider did not report undefined, never 0', () => {
    expect(usageOf(undefined)).toEqual({
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    });
    expect(
      usageOf({ inputTokens: 10, cachedInputTokens: 4, outputTokens: 8, reasoningTokens: 3 }),
    ).toMatchObject({
      inputTokens: { total: 10, noCache: 6, cacheRead: 4 },
      outputTokens: { total: 8, text: 5, reasoning: 3 },
    });
    expect(
      generateResult({ ...result, output: { ...result.output, finishReason: 'weird' } }).finishReason,
    ).toEqual({
      unified: 'other',
      raw: 'weird',
    });
  });
});
