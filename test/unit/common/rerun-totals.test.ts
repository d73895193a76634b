import { describe, expect, it } from 'vitest';
import { rerunTotals } from '../../../common/rerun-totals.js';
import type { RerunAnswer, RerunPair } from '../../../common/rerun.js';
import { canonicalToolArgs, sameToolCalls } from '../../../common/tool-call-compare.js';

const answer = (model: string, extra: Partial<RerunAnswer> = {}): RerunAnswer => ({
  model,
  workflowId: `wf-${model}`,
  outcome: 'succeeded',
  text: 'Paris.',
  toolCalls: [],
  finishReason: 'stop',
  ...extra,
});
const pair = (callId: string, original: RerunAnswer, ...candidates: RerunAnswer[]): RerunPair => ({
  source: { workflowId: 'orig', runId: 'r1', callId },
  original,
  candidates,
});
const weather = (args: string, id = 't1') => ({ id, name: 'weather', args });

describe('comparing tool calls', () => {
  it.each<[string, string, string, boolean]>([
    [
      'the same arguments with keys in another order',
      '{"city":"Paris","unit":"C"}',
      '{ "unit": "C", "city": "Paris" }',
      true,
    ],
    ['numbers written differently', '{"days":1}', '{"days":1.0}', true],
    [
      'nested keys in another order',
      '{"a":{"x":1,"y":[1,{"p":1,"q":2}]}}',
      '{"a":{"y":[1,{"q":2,"p":1}],"x":1}}',
      true,
    ],
    ['no arguments as "" and as {}', '', '{}', true],
    ['another value', '{"city":"Paris"}', '{"city":"Lyon"}', false],
    ['an array in another order', '{"days":[1,2]}', '{"days":[2,1]}', false],
    ['an extra argument', '{"city":"Paris"}', '{"city":"Paris","unit":"C"}', false],
    ['arguments that are not JSON, the same but for spaces around', ' city=Paris ', 'city=Paris', true],
  ])('%s: %s vs %s -> %s', (_name, a, b, same) => {
    expect(sameToolCalls([weather(a)], [weather(b, 'other-id')])).toBe(same);
  });

  it('ignores the ids and the order of one answer’s calls, never their names or number', () => {
    const search = { id: 's1', name: 'search', args: '{"q":"x"}' };
    expect(sameToolCalls([weather('{}'), search], [{ ...search, id: 'zz' }, weather('{}', 'yy')])).toBe(true);
    expect(sameToolCalls([weather('{}')], [{ ...weather('{}'), name: 'forecast' }])).toBe(false);
    expect(sameToolCalls([weather('{}')], [weather('{}'), weather('{}')])).toBe(false);
    expect(sameToolCalls([weather('{}'), search], [weather('{}'), weather('{}')])).toBe(false);
    expect(sameToolCalls([], [])).toBe(true);
    expect(canonicalToolArgs('{"b":1,"a":2}')).toBe('{"a":2,"b":1}');
  });
});

describe('rerunTotals', () => {
  it('counts requests, outcomes, tokens, cost and latency per model, the originals first', () => {
    const pairs = [
      pair(
        'c1',
        answer('openai:gpt', { usage: { inputTokens: 10, outputTokens: 5 }, costUsd: 0.01, latencyMs: 100 }),
        answer('anthropic:claude', {
          usage: { inputTokens: 12, outputTokens: 7 },
          costUsd: 0.02,
          latencyMs: 300,
        }),
      ),
      pair(
        'c2',
        answer('openai:gpt', { usage: { inputTokens: 20, outputTokens: 6 }, costUsd: 0.03, latencyMs: 200 }),
        answer('anthropic:claude', {
          outcome: 'failed',
          text: '',
          finishReason: undefined,
          usage: { inputTokens: 3 },
          latencyMs: 9000,
          stopReason: 'attempts-exhausted',
          failureClass: 'ServerError',
        }),
      ),
      pair(
        'c3',
        answer('openai:gpt', { latencyMs: 600 }),
        answer('anthropic:claude', { latencyMs: 100, usage: { inputTokens: 1, outputTokens: 1 } }),
      ),
      pair('c4', answer('openai:gpt', { latencyMs: 700 }), answer('anthropic:claude', { latencyMs: 500 })),
    ];
    expect(rerunTotals(pairs, ['anthropic:claude'])).toEqual([
      {
        model: 'original',
        requests: 4,
        succeeded: 4,
        failed: 0,
        inputTokens: 30,
        outputTokens: 11,
        costUsd: 0.04,
        meanLatencyMs: 400,
        medianLatencyMs: 400,
        sameText: 4,
        sameToolCalls: 4,
      },
      {
        model: 'anthropic:claude',
        requests: 4,
        succeeded: 3,
        failed: 1,
        inputTokens: 16,
        outputTokens: 8,
        costUsd: 0.02,
        meanLatencyMs: 300,
        medianLatencyMs: 300,
        sameText: 3,
        sameToolCalls: 3,
      },
    ]);
  });

  it('leaves tokens, cost and latency out when no answer reported them, and gives the odd median its middle', () => {
    const pairs = [1, 5, 2].map((ms, i) => pair(`c${i}`, answer('o:m'), answer('x:y', { latencyMs: ms })));
    const [original, candidate] = rerunTotals(pairs, ['x:y']);
    expect(original).toEqual({
      model: 'original',
      requests: 3,
      succeeded: 3,
      failed: 0,
      sameText: 3,
      sameToolCalls: 3,
    });
    expect(candidate?.medianLatencyMs).toBe(2);
    expect(candidate?.meanLatencyMs).toBeCloseTo(8 / 3);
    expect(candidate).not.toHaveProperty('costUsd');
  });

  it('counts the same text and the same tool calls only where both answered, comparing tools by parsed arguments', () => {
    const asked = answer('o:m', { text: '', toolCalls: [weather('{"city":"Paris","unit":"C"}')] });
    const pairs = [
      pair(
        'c1',
        asked,
        answer('a:1', { text: '', toolCalls: [weather('{"unit":"C","city":"Paris"}', 'x')] }),
      ),
      pair('c2', asked, answer('a:1', { text: '', toolCalls: [weather('{"city":"Lyon"}')] })),
      pair('c3', asked, answer('a:1', { text: 'It is sunny.' })),
      // Both failed: neither text nor tools are "the same" (there is nothing to compare).
      pair(
        'c4',
        answer('o:m', { outcome: 'failed', text: '' }),
        answer('a:1', { outcome: 'failed', text: '' }),
      ),
    ];
    const [original, candidate] = rerunTotals(pairs, ['a:1']);
    expect(candidate).toMatchObject({ requests: 4, succeeded: 3, failed: 1, sameText: 2, sameToolCalls: 1 });
    expect(original).toMatchObject({ requests: 4, succeeded: 3, failed: 1, sameText: 3, sameToolCalls: 3 });
  });

  it('finds each model’s answer by name whatever its place, and counts only the pairs that hold one', () => {
    const pairs = [
      pair('c1', answer('o:m'), answer('b:2', { text: 'B' }), answer('a:1')),
      pair('c2', answer('o:m'), answer('a:1', { text: 'A' })),
    ];
    const rows = rerunTotals(pairs, ['a:1', 'b:2']);
    expect(rows.map((r) => [r.model, r.requests, r.sameText])).toEqual([
      ['original', 2, 2],
      ['a:1', 2, 1],
      ['b:2', 1, 0],
    ]);
    expect(rerunTotals([], ['a:1'])).toEqual([
      { model: 'original', requests: 0, succeeded: 0, failed: 0, sameText: 0, sameToolCalls: 0 },
      { model: 'a:1', requests: 0, succeeded: 0, failed: 0, sameText: 0, sameToolCalls: 0 },
    ]);
  });
});
