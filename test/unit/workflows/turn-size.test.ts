import { describe, expect, it } from 'vitest';
import type { ModelCallFailedDetails } from '../../../common/call.js';
import type { AgentTurnPartial, TurnStep } from '../../../common/turn.js';
import { jsonBytes } from '../../../common/turn-input.js';
import { MAX_OUTCOME_BYTES, outcomeTooLarge, turnFailure } from '../../../workflows/turn/turn-size.js';

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

  it('leaves out the steps attempt records, then the steps, when even the last steps would not fit', () => {
    // 20 steps of 400 attempt records with long messages each: about 4 MB of records alone.
    const record = (n: number, k: number) =>
      ({
        modelCallId: `c${n}.${k}`,
        callId: `c${n}`,
        attempt: k,
        backend: 0,
        model: 'p:m',
        startedAt: '2026-12-03T00:00:00.000Z',
        endedAt: '2026-12-03T00:00:01.000Z',
        outcome: 'failed',
        failure: { class: 'ServerError', action: 'retry-same', message: 'x'.repeat(400) },
      }) as TurnStep['attempts'][number];
    const steps = Array.from({ length: 20 }, (_, i) => ({
      ...step(i + 1, 'short'),
      attempts: Array.from({ length: 400 }, (_, k) => record(i + 1, k + 1)),
    }));
    const f = turnFailure('ModelCallFailed', 'stopped', partial(steps), call);
    const turn = (f.details?.[0] as { turn: AgentTurnPartial }).turn;
    expect(size(f)).toBeLessThanOrEqual(MAX_OUTCOME_BYTES);
    expect(turn.omitted?.fields).toContain('steps[].attempts');
    expect(turn.steps).toHaveLength(20);
    expect(turn.steps.every((s) => s.attempts.length === 0)).toBe(true);
    expect((f.details?.[0] as ModelCallFailedDetails).stopReason).toBe('non-retryable');
  });

  it('with a payload store, measures what stays inline: long strings are references, many short ones are not', () => {
    const store = { payloadStore: true, payloadStoreThresholdBytes: 2048 } as Parameters<
      typeof outcomeTooLarge
    >[1];
    const long = ['x'.repeat(3_000_000)];
    const short = Array.from({ length: 40_000 }, () => 'y'.repeat(60));
    expect(outcomeTooLarge(jsonBytes(long), store, long)).toBe(false);
    expect(outcomeTooLarge(jsonBytes(short), store, short)).toBe(true);
    expect(outcomeTooLarge(jsonBytes(long), undefined, long)).toBe(true);
  });
});
