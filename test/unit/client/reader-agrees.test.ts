import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { HistoryIndex } from '../../../client/history-events.js';
import { readCallHistory } from '../../../client/history-reader.js';
import { failedAttempt, FAILURE_CLASSES } from '../../../policy/index.js';
import type { ModelRequestInput } from '../../../common/attempt.js';
import { outcomeOf } from '../../../workflows/call/attempt-outcome.js';
import { failedEvent } from '../../../workflows/call/attempt-record.js';
import { historyLedgerEvents } from '../../../client/history-ledger.js';

/** Events as plain JSON (ids and times as numbers, as the reader accepts them). */
type Event = Record<string, unknown>;
type History = temporal.api.history.v1.IHistory;
const asHistory = (events: Event[]) => ({ events }) as unknown as History;

const payloads = (value: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(value)] });

const INPUT: ModelRequestInput = {
  workflowId: 'w',
  callId: 'c1',
  attempt: 1,
  modelCallId: 'c1.1',
  backend: 0,
  model: 'local:m',
  request: { spec: 1, prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
  timeoutMs: 1000,
};

/** A history in which the attempt `c1.1` is scheduled and then ends with `end` (event 8). */
function historyEndingWith(end: Event): History {
  const at = { seconds: 1_700_000_000, nanos: 0 };
  return asHistory([
    { eventId: 3, eventTime: at, workflowTaskStartedEventAttributes: {} },
    { eventId: 4, eventTime: at, workflowTaskCompletedEventAttributes: { startedEventId: 3 } },
    {
      eventId: 5,
      activityTaskScheduledEventAttributes: {
        activityType: { name: 'modelRequest' },
        input: payloads(INPUT),
        workflowTaskCompletedEventId: 4,
      },
    },
    { eventId: 8, ...end },
    { eventId: 9, eventTime: at, workflowTaskStartedEventAttributes: {} },
    { eventId: 10, eventTime: at, workflowTaskCompletedEventAttributes: { startedEventId: 9 } },
  ]);
}

/** The failure part of the record the workflow makes of `error` (the steps of `CallRun.record`). */
function workflowFailure(error: unknown) {
  const outcome = outcomeOf(error, false);
  if (outcome.kind !== 'failed') throw new Error('expected a failed attempt');
  return failedAttempt(outcome.facts).record;
}

/** The ledger event the workflow notes for the failed attempt that threw `error`. */
function workflowFailedEvent(error: unknown) {
  const outcome = outcomeOf(error, false);
  if (outcome.kind !== 'failed') throw new Error('expected a failed attempt');
  return failedEvent('c1.1', outcome);
}

/** The ledger event the history reader reads for the attempt's end. */
function readFailedEvent(history: History) {
  const failed = historyLedgerEvents(new HistoryIndex(history.events ?? [])).find((e) => e.kind === 'failed');
  if (failed?.kind !== 'failed') throw new Error('expected a failed attempt');
  return failed;
}

describe('the history reader and the workflow build the same record from the same facts', () => {
  const TIMEOUTS = [
    ['START_TO_CLOSE', 1],
    ['SCHEDULE_TO_START', 2],
    ['SCHEDULE_TO_CLOSE', 3],
    ['HEARTBEAT', 4],
  ] as const;
  it.each(TIMEOUTS)('a %s timeout', (name, protoNumber) => {
    const error = new ActivityFailure(
      'activity timed out',
      'modelRequest',
      'c1.1',
      RetryState.TIMEOUT,
      undefined,
      new TimeoutFailure('timed out', undefined, name),
    );
    const history = historyEndingWith({
      activityTaskTimedOutEventAttributes: {
        scheduledEventId: 5,
        failure: { message: 'timed out', timeoutFailureInfo: { timeoutType: protoNumber } },
      },
    });
    const read = readCallHistory(history).attempts[0];
    expect(read?.outcome).toBe('failed');
    expect(read?.failure).toEqual(workflowFailure(error));
    expect(readFailedEvent(history).facts).toEqual(workflowFailedEvent(error).facts);
  });

  it.each([...FAILURE_CLASSES, 'NotAClass'])('an attempt that raised %s', (type) => {
    const details = {
      class: type,
      status: 503,
      code: 'overloaded',
      retryAfterMs: 1500,
      message: 'the provider said no',
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:00:01.000Z',
    };
    const failure = ApplicationFailure.create({
      type,
      message: 'raised',
      nonRetryable: true,
      details: [details],
    });
    const error = new ActivityFailure(
      'failed',
      'modelRequest',
      'c1.1',
      RetryState.NON_RETRYABLE_FAILURE,
      undefined,
      failure,
    );
    const history = historyEndingWith({
      activityTaskFailedEventAttributes: {
        scheduledEventId: 5,
        failure: {
          message: 'raised',
          applicationFailureInfo: { type, nonRetryable: true, details: payloads(details) },
        },
      },
    });
    const read = readCallHistory(history).attempts[0];
    expect(read?.failure).toEqual(workflowFailure(error));
    // The same ledger event, times included (the attempt says them), so the ledger makes the same record.
    expect(readFailedEvent(history)).toEqual(workflowFailedEvent(error));
  });
});

describe('a repaired attempt, read from history', () => {
  it("shows the action repair (from the next attempt's input), the first validator error and the finish reason", () => {
    const details = {
      class: 'SchemaMismatch',
      status: 200,
      message: 'the answer does not match output.schema: /population: must be integer (and 1 more)',
      finishReason: 'stop',
      mismatch: {
        answer: '{"population":"many"}',
        errors: ['/population: must be integer', "/: must have required property 'city'"],
      },
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:00:01.000Z',
    };
    const error = new ActivityFailure(
      'failed',
      'modelRequest',
      'c1.1',
      RetryState.NON_RETRYABLE_FAILURE,
      undefined,
      ApplicationFailure.create({
        type: 'SchemaMismatch',
        message: details.message,
        nonRetryable: true,
        details: [details],
      }),
    );
    const events = (historyEndingWith({
      activityTaskFailedEventAttributes: {
        scheduledEventId: 5,
        failure: {
          message: details.message,
          applicationFailureInfo: { type: 'SchemaMismatch', nonRetryable: true, details: payloads(details) },
        },
      },
    }).events ?? []) as Event[];
    const repairInput: ModelRequestInput = {
      ...INPUT,
      attempt: 2,
      modelCallId: 'c1.2',
      after: { action: 'repair', retryInMs: 0 },
    };
    events.push({
      eventId: 11,
      activityTaskScheduledEventAttributes: {
        activityType: { name: 'modelRequest' },
        input: payloads(repairInput),
        workflowTaskCompletedEventId: 10,
      },
    });
    const [first, second] = readCallHistory(asHistory(events)).attempts;
    const outcome = outcomeOf(error, false);
    expect(outcome.kind === 'failed' && outcome.finishReason).toBe('stop');
    expect(first?.failure).toEqual({ ...workflowFailure(error), action: 'repair' });
    expect(first).toMatchObject({ finishReason: 'stop', retryInMs: 0, outcome: 'failed' });
    expect(first?.failure?.message).toMatch(
      /^the answer does not match output\.schema: \/population: must be integer/,
    );
    expect(second).toMatchObject({ modelCallId: 'c1.2', outcome: 'running' });
  });
});

describe('HistoryIndex.taskStartedAfter', () => {
  it('names the first workflow task after an event that completed, skipping tasks that failed or timed out', () => {
    const index = new HistoryIndex(
      asHistory([
        { eventId: 7, activityTaskFailedEventAttributes: { scheduledEventId: 5 } },
        { eventId: 8, workflowTaskScheduledEventAttributes: {} },
        { eventId: 9, workflowTaskStartedEventAttributes: {} },
        { eventId: 10, workflowTaskFailedEventAttributes: { startedEventId: 9 } },
        { eventId: 11, workflowExecutionSignaledEventAttributes: {} },
        { eventId: 12, workflowTaskScheduledEventAttributes: {} },
        { eventId: 13, workflowTaskStartedEventAttributes: {} },
        { eventId: 14, workflowTaskTimedOutEventAttributes: { startedEventId: 13 } },
        { eventId: 15, workflowTaskScheduledEventAttributes: {} },
        { eventId: 16, workflowTaskStartedEventAttributes: {} },
        { eventId: 17, workflowTaskCompletedEventAttributes: { startedEventId: 16 } },
      ]).events ?? [],
    );
    expect(index.taskStartedAfter(7)).toBe(16);
  });

  it('is undefined while the task that handles the event has not completed', () => {
    const index = new HistoryIndex(
      asHistory([
        { eventId: 7, activityTaskFailedEventAttributes: { scheduledEventId: 5 } },
        { eventId: 8, workflowTaskScheduledEventAttributes: {} },
        { eventId: 9, workflowTaskStartedEventAttributes: {} },
      ]).events ?? [],
    );
    expect(index.taskStartedAfter(7)).toBeUndefined();
  });
});
