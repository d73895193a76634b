import { describe, expect, it } from 'vitest';
import type { ModelCallFailedDetails } from '../../../common/call.js';
import type { AgentTurnPartial, TurnStep } from '../../../common/turn.js';
import { jsonBytes } from '../../../workflows/turn/turn-input.js';
import { MAX_OUTCOME_BYTES, turnFailure } from '../../../workflows/turn/turn-size.js';

const step = (n: number, text: string): TurnStep => ({
  step: n,
  callId: `c${n}`,
  attempts: [],
  text,
  tools: [],
});

const partial = (steps: TurnStep[], text = ''): AgentTurnPartial => ({
  stopReason: 'non-retryable',
  text,
  messages: steps.map((s) => ({
    role: 'assistant' as const,
    content: [{ type: 'text' as const, text: s.text ?? '' }],
  })),
  steps,
  usage: {},
  billed: { attempts: steps.length } as AgentTurnPartial['billed'],
  why: 'the backend refused the conversation',
  runs: 1,
});

const call: ModelCallFailedDetails = {
  callId: 'c9',
  stopReason: 'non-retryable',
  attemptCount: 1,
  lastDecision: { reason: 'non-retryable', why: 'ContextTooLong on the last backend' },
  attempts: [],
  billed: { attempts: 1 } as ModelCallFailedDetails['billed'],
};

const size = (f: ReturnType<typeof turnFailure>) => jsonBytes(f.message) + jsonBytes(f.details);

describe("a turn's failure is bounded like its result", () => {
  it('is left whole when it fits', () => {
    const p = partial([step(1, 'short')], 'short');
    const f = turnFailure('ModelCallFailed', 'stopped', p, call);
    expect(f.details?.[0]).toEqual({ ...call, turn: p });
  });

  it('leaves out the conversation and the step texts first, and says so', () => {
    const p = partial([step(1, 'a'.repeat(700_000)), step(2, 'b'.repeat(700_000))], 'b'.repeat(700_000));
    const f = turnFailure('ModelCallFailed', 'stopped', p, call);
    const turn = (f.details?.[0] as { turn: AgentTurnPartial }).turn;
    expect(size(f)).toBeLessThanOrEqual(MAX_OUTCOME_BYTES);
    expect(turn.messages).toEqual([]);
    expect(turn.steps.map((s) => [s.step, s.text])).toEqual([
      [1, undefined],
      [2, undefined],
    ]);
    expect(turn.text).toHaveLength(700_000);
    expect(turn.omitted).toMatchObject({
      fields: ['messages', 'steps[].text'],
      bytes: jsonBytes('stopped') + jsonBytes([{ ...call, turn: p }]),
    });
    expect(turn.omitted?.readFrom).toMatch(/event history/);
    expect(f.message).toBe('stopped');
  });

  it('then the last text and the partial text, then all but the last steps, then the message', () => {
    const many = Array.from({ length: 5000 }, (_, i) => ({
      ...step(i + 1, 'x'),
      model: 'y'.repeat(400),
    }));
    const f = turnFailure(
      'ModelCallFailed',
      `stopped\n${'z'.repeat(2_100_000)}`,
      partial(many, 'w'.repeat(2_000_000)),
      { ...call, stopReason: 'stream-interrupted', partialText: 'v'.repeat(500_000) },
    );
    const details = f.details?.[0] as ModelCallFailedDetails & { turn: AgentTurnPartial };
    const turn = details.turn;
    expect(details.stopReason).toBe('stream-interrupted');
    expect(details).not.toHaveProperty('partialText');
    expect(size(f)).toBeLessThanOrEqual(MAX_OUTCOME_BYTES);
    expect(turn.stopReason).toBe('non-retryable');
    expect(turn.text).toBe('');
    expect(turn.steps.map((s) => s.step)).toEqual(Array.from({ length: 20 }, (_, i) => 4981 + i));
    expect(turn.billed.attempts).toBe(5000);
    expect(turn.omitted?.fields).toEqual([
      'messages',
      'steps[].text',
      'text',
      'partialText',
      'steps before the last 20',
      'message',
    ]);
    expect(f.message.startsWith('stopped\nzzz')).toBe(true);
    expect(f.message).toMatch(/cut: 2100008 characters/);
  });
});
