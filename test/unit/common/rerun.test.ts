import { describe, expect, it } from 'vitest';
import { answerOf, costOf } from '../../../common/rerun-answer.js';
import { rerunTotals } from '../../../common/rerun-totals.js';
import { sameToolCalls } from '../../../common/tool-call-compare.js';
import type { RerunAnswer, RerunPair } from '../../../common/rerun.js';

const PRICE = { inputPerMTok: 1, outputPerMTok: 2 };

describe("an answer's cost", () => {
  it("is the provider's reported cost, else the model's price on the usage, summed over the attempts", () => {
    const attempts = [
      { model: 'a:x', outcome: 'failed', usage: { inputTokens: 1_000_000, outputTokens: 0 } },
      { model: 'a:x', outcome: 'succeeded', usage: { inputTokens: 10, outputTokens: 10 }, cost: 0.5 },
    ];
    expect(costOf(attempts, { 'a:x': PRICE })).toBe(1.5);
  });

  it('is unknown when an attempt that reported usage has neither a cost nor a price', () => {
    expect(
      costOf([{ model: 'b:y', outcome: 'succeeded', usage: { inputTokens: 5 } }], { 'a:x': PRICE }),
    ).toBe(undefined);
    expect(costOf([{ model: 'b:y', outcome: 'failed' }], {})).toBe(undefined);
  });
});

describe('an answer', () => {
  it('sums usage over the attempts and measures from the first start to the last end', () => {
    const answer = answerOf({
      workflowId: 'w',
      attempts: [
        {
          model: 'a:x',
          outcome: 'failed',
          startedAt: '2026-12-01T10:00:00.000Z',
          endedAt: '2026-12-01T10:00:01.000Z',
          usage: { inputTokens: 3 },
          failure: { class: 'ServerError' },
        },
        {
          model: 'a:y',
          outcome: 'succeeded',
          startedAt: '2026-12-01T10:00:02.000Z',
          endedAt: '2026-12-01T10:00:02.500Z',
          usage: { inputTokens: 4, outputTokens: 6 },
        },
      ],
      output: { text: 'hi', toolCalls: [], finishReason: 'stop' },
      pricing: { 'a:x': PRICE, 'a:y': PRICE },
    });
    expect(answer).toEqual({
      model: 'a:y',
      workflowId: 'w',
      outcome: 'succeeded',
      text: 'hi',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 7, outputTokens: 6 },
      costUsd: (7 * 1 + 6 * 2) / 1e6,
      latencyMs: 2500,
    });
  });

  it('refused before any attempt names the model it was for and why', () => {
    expect(
      answerOf({ workflowId: 'w', attempts: [], model: 'b:z', stopReason: 'non-retryable', message: 'no' }),
    ).toEqual({
      model: 'b:z',
      workflowId: 'w',
      outcome: 'failed',
      text: '',
      toolCalls: [],
      stopReason: 'non-retryable',
      message: 'no',
    });
  });
});

const answer = (model: string, over: Partial<RerunAnswer> = {}): RerunAnswer => ({
  model,
  workflowId: 'w',
  outcome: 'succeeded',
  text: 'same',
  toolCalls: [],
  ...over,
});

describe("a rerun's totals", () => {
  it('count per model, the originals first, with mean and median latency over the answers that succeeded', () => {
    const pairs: RerunPair[] = [
      {
        source: { workflowId: 'w', runId: 'r', callId: 'c1' },
        original: answer('a:x', {
          latencyMs: 100,
          usage: { inputTokens: 10, outputTokens: 2 },
          costUsd: 0.1,
        }),
        candidates: [
          answer('b:y', { latencyMs: 50, usage: { inputTokens: 12, outputTokens: 3 } }),
          answer('c:z', { outcome: 'failed', text: '', failureClass: 'ServerError', latencyMs: 5 }),
        ],
      },
      {
        source: { workflowId: 'w', runId: 'r', callId: 'c2' },
        original: answer('a:x', { latencyMs: 300 }),
        candidates: [answer('b:y', { latencyMs: 150, text: 'other' }), answer('c:z', { latencyMs: 10 })],
      },
    ];
    expect(rerunTotals(pairs, ['b:y', 'c:z'])).toEqual([
      {
        model: 'original',
        requests: 2,
        succeeded: 2,
        failed: 0,
        inputTokens: 10,
        outputTokens: 2,
        costUsd: 0.1,
        meanLatencyMs: 200,
        medianLatencyMs: 200,
        sameText: 2,
        sameToolCalls: 2,
      },
      {
        model: 'b:y',
        requests: 2,
        succeeded: 2,
        failed: 0,
        inputTokens: 12,
        outputTokens: 3,
        meanLatencyMs: 100,
        medianLatencyMs: 100,
        sameText: 1,
        sameToolCalls: 2,
      },
      {
        model: 'c:z',
        requests: 2,
        succeeded: 1,
        failed: 1,
        meanLatencyMs: 10,
        medianLatencyMs: 10,
        sameText: 1,
        // A failed answer is neither the same text nor the same tool calls.
        sameToolCalls: 1,
      },
    ]);
  });

  it('take tool calls as the same by name and parsed arguments, whatever their ids and key order', () => {
    expect(
      sameToolCalls(
        [{ id: '1', name: 'f', args: '{"a":1,"b":[2,{"c":3,"d":4}]}' }],
        [{ id: '2', name: 'f', args: '{ "b": [2, {"d":4,"c":3}], "a": 1 }' }],
      ),
    ).toBe(true);
    expect(
      sameToolCalls([{ id: '1', name: 'f', args: '{"a":1}' }], [{ id: '1', name: 'g', args: '{"a":1}' }]),
    ).toBe(false);
    expect(sameToolCalls([], [{ id: '1', name: 'f', args: '{}' }])).toBe(false);
  });
});
