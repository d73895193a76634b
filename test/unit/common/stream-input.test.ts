import { describe, expect, it } from 'vitest';
import { checkOnCutPlan, streamOf, validateCallInput } from '../../../common/call-input/call-input.js';
import { checkModelCall } from '../../../client/model-call-client.js';
import { checkAgentTurn } from '../../../client/agent-turn-client.js';
import { validateTurnInput } from '../../../common/turn-input.js';
import { StreamedText } from '../../../client/call-stream.js';
import type { CallStreamItem } from '../../../client/call-stream.js';

describe('the stream setting of a call', () => {
  it('is off unless asked for, and batches every 500 ms by default', () => {
    expect(streamOf({})).toBeUndefined();
    expect(streamOf({ stream: false })).toBeUndefined();
    expect(streamOf({ stream: true })).toEqual({ batchMs: 500 });
    expect(streamOf({ stream: {} })).toEqual({ batchMs: 500 });
    expect(streamOf({ stream: { batchMs: 10 } })).toEqual({ batchMs: 10 });
    expect(streamOf({ stream: { batchMs: 60_000 } })).toEqual({ batchMs: 60_000 });
  });

  it("stops a cut stream by default, and continues it with `onCut: 'continue'`", () => {
    expect(streamOf({ stream: { onCut: 'stop' } })).toEqual({ batchMs: 500 });
    expect(streamOf({ stream: { onCut: 'continue' } })).toEqual({ batchMs: 500, onCut: 'continue' });
    expect(streamOf({ stream: { batchMs: 20, onCut: 'continue' } })).toEqual({
      batchMs: 20,
      onCut: 'continue',
    });
  });

  it.each([
    [{ batchMs: 9 }, /`stream\.batchMs`: must be a whole number of milliseconds from 10 to 60000 \(got 9\)/],
    [{ batchMs: 60_001 }, /`stream\.batchMs`/],
    [{ batchMs: 12.5 }, /`stream\.batchMs`/],
    [{ batchMs: '100' }, /`stream\.batchMs`/],
    [{ batch: 100 }, /`stream\.batch`: unknown field; the fields are `batchMs` and `onCut`/],
    [{ onCut: 'retry' }, /`stream\.onCut`: must be 'stop' .* or 'continue' .*; got "retry"/],
    [{ onCut: true }, /`stream\.onCut`/],
    ['yes', /`stream`: must be `true`, `false` or `\{ batchMs, onCut \}`/],
    [[true], /`stream`: must be/],
  ])('refuses %j, naming the field and the fix', (stream, message) => {
    expect(() => validateCallInput({ model: 'local:x', prompt: 'hi', stream })).toThrow(message);
  });

  it("refuses `onCut: 'continue'` with a plan of one attempt, on a call and on a turn, before anything starts", () => {
    const input = { model: 'local:x', prompt: 'hi', stream: { onCut: 'continue' as const } };
    const refusal = /`stream\.onCut`: `'continue'` needs a retry plan of more than one attempt \(`retry`/;
    expect(() => checkModelCall(input)).toThrow(refusal);
    expect(() => checkModelCall({ ...input, retry: false })).toThrow(refusal);
    expect(() => checkModelCall({ ...input, retry: { waits: [10] } })).not.toThrow();
    expect(() => checkAgentTurn(input)).toThrow(refusal);
    expect(() => checkAgentTurn({ ...input, retry: { waits: [10] } })).not.toThrow();
    expect(() => checkOnCutPlan({ batchMs: 500 }, 1)).not.toThrow();
  });

  it('refuses an `onCut` of null rather than taking it for the default', () => {
    expect(() => validateCallInput({ model: 'local:x', prompt: 'hi', stream: { onCut: null } })).toThrow(
      /`stream\.onCut`/,
    );
  });

  it('is checked the same way on an agent turn', () => {
    expect(() => validateTurnInput({ model: 'local:x', prompt: 'hi', stream: { batchMs: 1 } })).toThrow(
      /`stream\.batchMs`/,
    );
    expect(() => validateTurnInput({ model: 'local:x', prompt: 'hi', stream: true })).not.toThrow();
    expect(() =>
      validateTurnInput({
        model: 'local:x',
        prompt: 'hi',
        stream: { onCut: 'continue' },
        retry: { waits: [1] },
      }),
    ).not.toThrow();
    expect(() =>
      validateTurnInput({ model: 'local:x', prompt: 'hi', stream: { onCut: 'resume' } as never }),
    ).toThrow(/`stream\.onCut`/);
  });
});

describe('the streamed text a reader shows', () => {
  const attempt = (modelCallId: string, offset: number): CallStreamItem => ({
    kind: 'event',
    offset,
    event: {
      type: 'attempt',
      callId: 'c1',
      modelCallId,
      attempt: Number(modelCallId.slice(3)),
      model: 'local:x',
    },
  });
  const delta = (modelCallId: string, text: string, offset: number | undefined): CallStreamItem => ({
    kind: 'delta',
    offset,
    delta: { modelCallId, text },
  });

  it('is the deltas of the latest attempt that started, in order', () => {
    const shown = new StreamedText();
    const appended = [
      attempt('c1.1', 0),
      delta('c1.1', 'Hel', 1),
      delta('c1.1', 'lo', 2),
      attempt('c1.2', 3),
      // A late delta of an attempt that was already replaced is not shown.
      delta('c1.1', ' stale', 4),
      delta('c1.2', '!', undefined),
    ].map((item) => shown.take(item));
    expect(appended).toEqual([undefined, 'Hel', 'lo', undefined, undefined, '!']);
    expect(shown.text).toBe('Hello!');
  });
});
