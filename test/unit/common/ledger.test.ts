import { describe, expect, it } from 'vitest';
import { attemptRecords, Ledger } from '../../../common/ledger/ledger.js';
import type { LedgerEvent } from '../../../common/ledger/ledger.js';
import type { AttemptRecord } from '../../../common/call.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:00:01.000Z';
const T2 = '2026-01-01T00:00:02.000Z';

/** Attempt `n` of call c1 on backend `backend`, scheduled at T0. */
const opened = (n: number, backend = 0, extra: Partial<LedgerEvent> = {}): LedgerEvent =>
  ({
    kind: 'opened',
    modelCallId: `c1.${n}`,
    callId: 'c1',
    attempt: n,
    backend,
    model: backend === 0 ? 'local:a' : 'local:b',
    startedAt: T0,
    ...extra,
  }) as LedgerEvent;

/** The record attempt `n` opens with. */
const running = (n: number, backend = 0): AttemptRecord => ({
  modelCallId: `c1.${n}`,
  callId: 'c1',
  attempt: n,
  backend,
  model: backend === 0 ? 'local:a' : 'local:b',
  startedAt: T0,
  outcome: 'running',
});

const serverError = (n: number): LedgerEvent => ({
  kind: 'failed',
  modelCallId: `c1.${n}`,
  facts: { class: 'ServerError', status: 502, message: 'bad gateway' },
  endedAt: T1,
});

const ROWS: { name: string; events: LedgerEvent[]; records: AttemptRecord[] }[] = [
  { name: 'an attempt scheduled and not yet ended is running', events: [opened(1)], records: [running(1)] },
  {
    name: 'an answer takes its times, finish reason, usage, cost and ids from the result',
    events: [
      opened(1),
      {
        kind: 'answered',
        modelCallId: 'c1.1',
        result: {
          text: 'hi',
          finishReason: 'stop',
          startedAt: T1,
          endedAt: T2,
          usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
          responseId: 'r1',
          provider: 'openai',
          cost: 0.5,
        } as never,
      },
    ],
    records: [
      {
        ...running(1),
        outcome: 'succeeded',
        startedAt: T1,
        endedAt: T2,
        finishReason: 'stop',
        usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
        responseId: 'r1',
        provider: 'openai',
        cost: 0.5,
      },
    ],
  },
  {
    name: 'an answer whose result the history cannot read is still succeeded',
    events: [opened(1), { kind: 'answered', modelCallId: 'c1.1' }],
    records: [{ ...running(1), outcome: 'succeeded' }],
  },
  {
    name: 'a failure followed by a wait names the action and the wait',
    events: [
      opened(1),
      serverError(1),
      { kind: 'decided', modelCallId: 'c1.1', action: 'retry-same', retryInMs: 30 },
      opened(2),
    ],
    records: [
      {
        ...running(1),
        outcome: 'failed',
        endedAt: T1,
        failure: { class: 'ServerError', status: 502, message: 'bad gateway', action: 'retry-same' },
        retryInMs: 30,
      },
      running(2),
    ],
  },
  {
    name: 'a failure that stopped the call takes the last decision’s action',
    events: [opened(1), serverError(1), { kind: 'stopped', action: 'abort' }],
    records: [
      {
        ...running(1),
        outcome: 'failed',
        endedAt: T1,
        failure: { class: 'ServerError', status: 502, message: 'bad gateway', action: 'abort' },
      },
    ],
  },
  {
    name: 'the last decision does not replace an action already decided',
    events: [
      opened(1),
      serverError(1),
      { kind: 'decided', modelCallId: 'c1.1', action: 'advance' },
      { kind: 'stopped', action: 'abort' },
    ],
    records: [
      {
        ...running(1),
        outcome: 'failed',
        endedAt: T1,
        failure: { class: 'ServerError', status: 502, message: 'bad gateway', action: 'advance' },
      },
    ],
  },
  {
    name: 'a decision after an attempt that did not fail changes nothing',
    events: [
      opened(1),
      { kind: 'cancelled', modelCallId: 'c1.1', endedAt: T1 },
      { kind: 'decided', modelCallId: 'c1.1', action: 'advance', retryInMs: 0 },
      { kind: 'stopped', action: 'abort' },
    ],
    records: [{ ...running(1), outcome: 'cancelled', endedAt: T1 }],
  },
  {
    name: 'a cancelled attempt takes the times it says',
    events: [opened(1), { kind: 'cancelled', modelCallId: 'c1.1', startedAt: T1, endedAt: T2 }],
    records: [{ ...running(1), outcome: 'cancelled', startedAt: T1, endedAt: T2 }],
  },
  {
    name: 'a failed streamed attempt that delivered deltas is StreamInterrupted (and keeps no retry-after)',
    events: [
      opened(1),
      { kind: 'delivered', modelCallId: 'c1.1', deltas: 3, chars: 12, continueOnCut: false },
      {
        kind: 'failed',
        modelCallId: 'c1.1',
        facts: { class: 'RateLimited', status: 429, retryAfterMs: 500, message: 'slow down' },
        endedAt: T1,
      },
    ],
    records: [
      {
        ...running(1),
        outcome: 'failed',
        endedAt: T1,
        failure: {
          class: 'StreamInterrupted',
          status: 429,
          message: 'RateLimited after 3 streamed deltas: slow down',
        },
        streamedDeltas: 3,
      },
    ],
  },
  {
    name: 'a failed streamed attempt that delivered nothing keeps its class',
    events: [
      opened(1),
      { kind: 'delivered', modelCallId: 'c1.1', deltas: 0, chars: 0, continueOnCut: false },
      serverError(1),
    ],
    records: [
      {
        ...running(1),
        outcome: 'failed',
        endedAt: T1,
        failure: { class: 'ServerError', status: 502, message: 'bad gateway' },
        streamedDeltas: 0,
      },
    ],
  },
  {
    name: 'a cut attempt of a call that continues cut streams keeps its class and counts what it delivered',
    events: [
      opened(1),
      { kind: 'delivered', modelCallId: 'c1.1', deltas: 2, chars: 11, continueOnCut: true },
      serverError(1),
      { kind: 'decided', modelCallId: 'c1.1', action: 'retry-same', retryInMs: 0 },
      opened(2, 0, { continues: 'c1.1' } as Partial<LedgerEvent>),
    ],
    records: [
      {
        ...running(1),
        outcome: 'failed',
        endedAt: T1,
        deliveredChars: 11,
        failure: { class: 'ServerError', status: 502, message: 'bad gateway', action: 'retry-same' },
        streamedDeltas: 2,
        retryInMs: 0,
      },
      { ...running(2), continues: 'c1.1' },
    ],
  },
  {
    name: 'an answer that still failed keeps its usage, finish reason and the time it says it started',
    events: [
      opened(1),
      {
        kind: 'failed',
        modelCallId: 'c1.1',
        facts: { class: 'SchemaMismatch', status: 200, message: 'the answer does not match output.schema' },
        startedAt: T1,
        endedAt: T2,
        usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
        finishReason: 'stop',
      },
      { kind: 'decided', modelCallId: 'c1.1', action: 'repair', retryInMs: 0 },
    ],
    records: [
      {
        ...running(1),
        outcome: 'failed',
        startedAt: T1,
        endedAt: T2,
        failure: {
          class: 'SchemaMismatch',
          status: 200,
          message: 'the answer does not match output.schema',
          action: 'repair',
        },
        usage: { inputTokens: 5, outputTokens: 2, totalTokens: 7 },
        finishReason: 'stop',
        retryInMs: 0,
      },
    ],
  },
  {
    name: 'events about an attempt never opened change nothing',
    events: [serverError(7), { kind: 'decided', modelCallId: 'c1.7', action: 'abort' }, { kind: 'stopped' }],
    records: [],
  },
  {
    name: 'an advance to the next backend after a timeout',
    events: [
      opened(1),
      {
        kind: 'failed',
        modelCallId: 'c1.1',
        facts: { class: 'ResponseTimeout', message: 'the attempt timed out' },
        endedAt: T1,
      },
      { kind: 'decided', modelCallId: 'c1.1', action: 'advance', retryInMs: 0 },
      opened(2, 1),
      { kind: 'answered', modelCallId: 'c1.2' },
    ],
    records: [
      {
        ...running(1),
        outcome: 'failed',
        endedAt: T1,
        failure: { class: 'ResponseTimeout', message: 'the attempt timed out', action: 'advance' },
        retryInMs: 0,
      },
      { ...running(2, 1), outcome: 'succeeded' },
    ],
  },
];

describe('the attempt ledger', () => {
  it.each(ROWS)('$name', ({ events, records }) => {
    expect(attemptRecords(events)).toEqual(records);
  });

  it.each(ROWS)(
    'folded one event at a time, updates the records it handed out: $name',
    ({ events, records }) => {
      const ledger = new Ledger();
      const handedOut = events.map((event) => ledger.note(event));
      expect(ledger.records).toEqual(records);
      for (const record of handedOut) if (record) expect(ledger.records).toContain(record);
    },
  );

  it('keeps its records in the array it is given (the workflow’s, read by its query)', () => {
    const records: AttemptRecord[] = [];
    const ledger = new Ledger(records);
    ledger.note(opened(1));
    expect(records).toEqual([running(1)]);
  });

  it('tells the policy the failure the record shows: StreamInterrupted after delivered deltas', () => {
    const ledger = new Ledger();
    ledger.note(opened(1));
    ledger.note({ kind: 'delivered', modelCallId: 'c1.1', deltas: 1, chars: 2, continueOnCut: false });
    expect(ledger.fail(serverError(1) as Extract<LedgerEvent, { kind: 'failed' }>)).toEqual({
      class: 'StreamInterrupted',
    });
    expect(ledger.records[0]?.failure?.class).toBe('StreamInterrupted');
  });

  it('tells the policy the class and retry-after of a plain failure', () => {
    const ledger = new Ledger();
    ledger.note(opened(1));
    const failure = ledger.fail({
      kind: 'failed',
      modelCallId: 'c1.1',
      facts: { class: 'RateLimited', status: 429, retryAfterMs: 500, message: 'slow down' },
      endedAt: T1,
    });
    expect(failure).toEqual({ class: 'RateLimited', retryAfterMs: 500 });
  });
});
