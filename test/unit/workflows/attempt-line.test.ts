import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../../../common/call.js';
import { ATTEMPT_LINE_MESSAGE_MAX, attemptLine } from '../../../workflows/call/call-summary.js';

const record = (over: Partial<AttemptRecord>): AttemptRecord => ({
  modelCallId: 'c1.1',
  callId: 'c1',
  attempt: 1,
  backend: 0,
  model: 'local:fast',
  startedAt: '2026-01-01T00:00:00.000Z',
  outcome: 'failed',
  ...over,
});

describe("a ModelCallFailed line per attempt: backend, class, status, then the provider's own message", () => {
  const long = 'x'.repeat(500);
  it.each<[string, Partial<AttemptRecord>, string]>([
    [
      'a server error with its message',
      { failure: { class: 'ServerError', status: 502, message: 'Bad gateway from upstream' } },
      '[backend 0 local:fast] ServerError 502: Bad gateway from upstream',
    ],
    [
      'a cut stream the call continues: how much it delivered',
      {
        failure: { class: 'ConnectionLost', message: 'the stream ended without its finish event' },
        deliveredChars: 42,
      },
      '[backend 0 local:fast] ConnectionLost (cut after 42 characters delivered): the stream ended without its finish event',
    ],
    [
      'no status: the class, then the message',
      { failure: { class: 'ConnectFailed', message: 'connect ECONNREFUSED' } },
      '[backend 0 local:fast] ConnectFailed: connect ECONNREFUSED',
    ],
    [
      'an empty message: the line as it always was',
      { failure: { class: 'ServerError', status: 502, message: '' } },
      '[backend 0 local:fast] ServerError 502',
    ],
    [
      'a message on several lines becomes one',
      {
        backend: 1,
        model: 'openai:gpt',
        failure: { class: 'BadRequest', status: 400, message: 'bad\n  request\tbody ' },
      },
      '[backend 1 openai:gpt] BadRequest 400: bad request body',
    ],
    ['a success', { outcome: 'succeeded' }, '[backend 0 local:fast] succeeded'],
  ])('%s', (_name, over, line) => {
    expect(attemptLine(record(over))).toBe(line);
  });

  it(`cuts a long message at ${ATTEMPT_LINE_MESSAGE_MAX} characters`, () => {
    const line = attemptLine(record({ failure: { class: 'ServerError', status: 500, message: long } }));
    expect(line.startsWith('[backend 0 local:fast] ServerError 500: xxx')).toBe(true);
    const message = line.slice('[backend 0 local:fast] ServerError 500: '.length);
    expect(message).toHaveLength(ATTEMPT_LINE_MESSAGE_MAX);
    expect(message.endsWith('…')).toBe(true);
  });

  it('never cuts a surrogate pair in half', () => {
    const emoji = 'a'.repeat(ATTEMPT_LINE_MESSAGE_MAX - 2) + '😀'.repeat(5);
    const line = attemptLine(record({ failure: { class: 'ServerError', status: 500, message: emoji } }));
    expect(line).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it('keeps the start the tests and readers match', () => {
    const line = attemptLine(record({ failure: { class: 'ServerError', status: 502, message: 'upstream' } }));
    expect(line).toMatch(/^\[backend 0 local:\S+\] ServerError 502/);
  });
});
