import { describe, expect, it } from 'vitest';
import type { StopReason } from '../../../policy/index.js';
import {
  ACTIONS,
  DEFAULT_ACTIONS,
  FAILURE_CLASSES,
  STOP_REASON_PRECEDENCE,
  firstStopReason,
  isAction,
  isFailureClass,
  isStopReason,
} from '../../../policy/index.js';

describe('failure classes', () => {
  it("are the contract's classes, in its evaluation order", () => {
    expect(FAILURE_CLASSES).toEqual([
      'StreamInterrupted',
      'CoolingDown',
      'Misconfigured',
      'ContentFiltered',
      'ContextTooLong',
      'QuotaExhausted',
      'AuthFailed',
      'ModelNotFound',
      'RateLimited',
      'BadRequest',
      'RequestTimeout',
      'ServerError',
      'ConnectFailed',
      'ConnectionLost',
      'OutputLimit',
      'SchemaMismatch',
      'ParseFailed',
      'ResponseTimeout',
      'WorkerLost',
      'Unknown',
    ]);
  });

  it('each has the default action of the contract (StreamInterrupted has none: it always stops)', () => {
    expect(DEFAULT_ACTIONS).toEqual({
      CoolingDown: 'advance',
      Misconfigured: 'drop',
      ContentFiltered: 'drop',
      ContextTooLong: 'drop',
      QuotaExhausted: 'drop',
      AuthFailed: 'drop',
      ModelNotFound: 'drop',
      RateLimited: 'advance',
      BadRequest: 'abort',
      RequestTimeout: 'retry-same',
      ServerError: 'retry-same',
      ConnectFailed: 'retry-same',
      ConnectionLost: 'retry-same',
      OutputLimit: 'drop',
      SchemaMismatch: 'repair',
      ParseFailed: 'advance',
      ResponseTimeout: 'advance',
      WorkerLost: 'retry-same',
      Unknown: 'retry-same',
    });
    expect(Object.hasOwn(DEFAULT_ACTIONS, 'StreamInterrupted')).toBe(false);
  });

  it('are recognised by name, and nothing else is', () => {
    expect(FAILURE_CLASSES.every(isFailureClass)).toBe(true);
    expect(isFailureClass('Overloaded')).toBe(false);
    expect(isFailureClass('toString')).toBe(false);
    expect(isFailureClass(429)).toBe(false);
  });
});

describe('actions', () => {
  it('are abort, retry-same, advance, drop and repair', () => {
    expect(ACTIONS).toEqual(['abort', 'retry-same', 'advance', 'drop', 'repair']);
    expect(isAction('retry-same')).toBe(true);
    expect(isAction('retry')).toBe(false);
  });
});

describe('stop reasons', () => {
  it('rank in the order of the contract', () => {
    expect(STOP_REASON_PRECEDENCE).toEqual([
      'cancelled',
      'succeeded',
      'stream-interrupted',
      'non-retryable',
      'budget',
      'attempts-exhausted',
      'history-limit',
      'retry-after-exceeded',
      'deadline',
      'max-steps',
    ]);
    expect(STOP_REASON_PRECEDENCE.every(isStopReason)).toBe(true);
    expect(isStopReason('timeout')).toBe(false);
  });

  it.each([
    [['attempts-exhausted', 'non-retryable'], 'non-retryable'],
    [['deadline', 'retry-after-exceeded'], 'retry-after-exceeded'],
    // The contract: a cancellation requested before the call ended wins over an answer that came afterwards.
    [['deadline', 'cancelled', 'succeeded'], 'cancelled'],
    [['deadline', 'history-limit', 'budget'], 'budget'],
    [['retry-after-exceeded', 'history-limit', 'attempts-exhausted'], 'attempts-exhausted'],
    [['non-retryable', 'stream-interrupted'], 'stream-interrupted'],
    [['max-steps', 'deadline'], 'deadline'],
    [['stream-interrupted', 'attempts-exhausted'], 'stream-interrupted'],
    [[undefined, 'max-steps', undefined], 'max-steps'],
    [[], undefined],
    [[undefined], undefined],
  ] as const)('the first of %j is %s', (reasons, expected) => {
    expect(firstStopReason(...(reasons as readonly (StopReason | undefined)[]))).toBe(expected);
  });
});
