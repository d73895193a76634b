import { describe, expect, it } from 'vitest';
import { DeliveredText, sumUsage } from '../../../workflows/call/call-continuation.js';
import type { AttemptRecord, ModelCallResult } from '../../../common/call.js';

const record = (attempt: number, extra: Partial<AttemptRecord> = {}): AttemptRecord => ({
  modelCallId: `c1.${attempt}`,
  callId: 'c1',
  attempt,
  backend: 0,
  model: 'local:x',
  startedAt: '2026-12-04T00:00:00.000Z',
  outcome: 'failed',
  ...extra,
});

const answered = (text: string, attempts: AttemptRecord[]): ModelCallResult => ({
  callId: 'c1',
  stopReason: 'succeeded',
  output: { text, toolCalls: [], finishReason: 'stop', content: [{ type: 'text', text }] },
  model: 'local:x',
  backend: 0,
  usage: attempts.at(-1)?.usage ?? {},
  attempts,
  billed: { attempts: attempts.length },
  lastDecision: { reason: 'succeeded', why: 'answered' },
});

describe('the text a call continues', () => {
  it('is nothing until an attempt delivered text, and then every character of the cut attempts in order', () => {
    const cut = new DeliveredText();
    expect(cut.continuation('local:x')).toBeUndefined();
    cut.add(record(1), '');
    expect(cut.continuation('local:x')).toBeUndefined();
    cut.add(record(2), 'The quick ');
    expect(cut.continuation('local:x')).toEqual({ text: 'The quick ', continues: 'c1.2' });
    cut.add(record(3), 'brown ');
    expect(cut.continuation('local:x')).toEqual({ text: 'The quick brown ', continues: 'c1.3' });
    // An attempt that failed before delivering anything leaves what is continued as it was.
    cut.add(record(4), '');
    expect(cut.continuation('local:x')).toEqual({ text: 'The quick brown ', continues: 'c1.3' });
  });

  it('asks a backend that refused a prefill with an instruction, retrying it once at once', () => {
    const cut = new DeliveredText();
    cut.add(record(1), 'The quick ');
    const refused = { class: 'BadRequest' as const, status: 400, message: 'prefill not supported' };
    const prefill = { form: 'prefill' as const };
    // An instruction refused, or another class, is the plan's to decide.
    expect(cut.refusePrefill('local:x', { form: 'instruction' }, refused)).toBe(refused);
    expect(cut.refusePrefill('local:x', prefill, { class: 'ServerError', message: '' })).toEqual({
      class: 'ServerError',
      message: '',
    });
    expect(cut.refusePrefill('local:x', prefill, refused)).toEqual({ ...refused, shouldRetry: 'retry-same' });
    expect(cut.continuation('local:x')).toEqual({
      text: 'The quick ',
      continues: 'c1.1',
      form: 'instruction',
    });
    expect(cut.continuation('local:y')).toEqual({ text: 'The quick ', continues: 'c1.1' });
    // Once: a second refusal on the same backend is not retried by this rule.
    expect(cut.refusePrefill('local:x', prefill, refused)).toBe(refused);
  });

  it('joins the answer to the delivered text: its text, its first text part, and the usage of the attempts it holds', () => {
    const cut = new DeliveredText();
    const attempts = [
      record(1, { usage: { inputTokens: 10, outputTokens: 3 } }),
      record(2, { failure: { class: 'ServerError', message: '502' }, usage: { inputTokens: 5 } }),
      record(3, { usage: { inputTokens: 14, outputTokens: 4, totalTokens: 18 } }),
      record(4, { outcome: 'succeeded', usage: { inputTokens: 20, outputTokens: 2, totalTokens: 22 } }),
    ];
    cut.add(attempts[0] as AttemptRecord, 'The quick ');
    cut.add(attempts[2] as AttemptRecord, 'brown ');
    const joined = cut.joined(answered('fox.', attempts));
    expect(joined.output.text).toBe('The quick brown fox.');
    expect(joined.output.content).toEqual([{ type: 'text', text: 'The quick brown fox.' }]);
    // Attempt 2 delivered nothing of the answer: its usage is in `billed`, not in the answer's.
    expect(joined.usage).toEqual({ inputTokens: 44, outputTokens: 9, totalTokens: 40 });
  });

  it('puts the delivered text first when the answer has no text part (it only called a tool)', () => {
    const cut = new DeliveredText();
    cut.add(record(1), 'Let me check. ');
    const result = answered('', [record(1), record(2, { outcome: 'succeeded' })]);
    result.output.content = [{ type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: '{}' }];
    expect(cut.joined(result).output.content).toEqual([
      { type: 'text', text: 'Let me check. ' },
      { type: 'tool-call', toolCallId: 't1', toolName: 'weather', input: '{}' },
    ]);
  });

  it('leaves an answer that continued nothing unchanged', () => {
    const result = answered('Hello', [record(1, { outcome: 'succeeded' })]);
    expect(new DeliveredText().joined(result)).toBe(result);
  });

  it('sums usage field by field, leaving out what no attempt reported', () => {
    expect(sumUsage([record(1), record(2)])).toBeUndefined();
    expect(
      sumUsage([record(1, { usage: { outputTokens: 2 } }), record(2, { usage: { reasoningTokens: 1 } })]),
    ).toEqual({ outputTokens: 2, reasoningTokens: 1 });
  });
});
