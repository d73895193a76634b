import { describe, expect, it } from 'vitest';
import {
  afterAttempt,
  beforeAttempt,
  failedAttempt,
  initialState,
  startDecision,
  timeoutFacts,
  timeoutTypeOf,
} from '../../../policy/index.js';
import type { AttemptDecision, AttemptEnd } from '../../../policy/index.js';
import { fail, fixedRandom, plan } from './harness.js';

const at = (cancelRequested: boolean, nowMs = 0) => ({ cancelRequested, nowMs, random: fixedRandom(0) });
const first = (p = plan({ waits: [100] })) => startDecision(p, initialState(2), 0) as AttemptDecision;

describe('afterAttempt: the stop reasons in the contract order', () => {
  const ends: [string, AttemptEnd][] = [
    ['an answer', { kind: 'answered' }],
    ['a 400', { kind: 'failed', failure: fail('BadRequest'), deadlineReached: false }],
    [
      'a rate limit (an immediate advance)',
      { kind: 'failed', failure: fail('RateLimited'), deadlineReached: false },
    ],
    ['a heartbeat timeout', { kind: 'failed', failure: fail('WorkerLost'), deadlineReached: false }],
    ['the deadline timeout', { kind: 'failed', failure: fail('ResponseTimeout'), deadlineReached: true }],
  ];
  it.each(ends)('is cancelled, with no action, when cancellation was requested before %s', (_, end) => {
    const p = plan({ waits: [100] });
    expect(afterAttempt(p, first(p).state, end, at(true))).toMatchObject({
      kind: 'stop',
      reason: 'cancelled',
    });
    expect(afterAttempt(p, first(p).state, end, at(true))).not.toHaveProperty('action');
  });

  it('is cancelled when the attempt reported its cancellation', () => {
    const p = plan({ waits: [100] });
    expect(afterAttempt(p, first(p).state, { kind: 'cancelled' }, at(false))).toMatchObject({
      reason: 'cancelled',
    });
  });

  it('is succeeded on an answer', () => {
    const p = plan({ waits: [100] });
    const d = afterAttempt(p, first(p).state, { kind: 'answered' }, at(false));
    expect(d).toMatchObject({ kind: 'stop', reason: 'succeeded' });
  });

  it('is stream-interrupted before the deadline when both apply', () => {
    const p = plan({ waits: [100] });
    const end: AttemptEnd = { kind: 'failed', failure: fail('StreamInterrupted'), deadlineReached: true };
    expect(afterAttempt(p, first(p).state, end, at(false))).toMatchObject({ reason: 'stream-interrupted' });
  });

  it('is attempts-exhausted, not deadline, when the deadline timeout ends the last allowed attempt', () => {
    const p = plan({ waits: [100], maxAttempts: 1 });
    const end: AttemptEnd = { kind: 'failed', failure: fail('ResponseTimeout'), deadlineReached: true };
    expect(afterAttempt(p, first(p).state, end, at(false))).toMatchObject({
      kind: 'stop',
      reason: 'attempts-exhausted',
    });
  });

  it('is non-retryable, not deadline, when the deadline timeout ends an attempt whose action is abort', () => {
    const p = plan({ waits: [100], actions: { ResponseTimeout: 'abort' } });
    const end: AttemptEnd = { kind: 'failed', failure: fail('ResponseTimeout'), deadlineReached: true };
    expect(afterAttempt(p, first(p).state, end, at(false))).toMatchObject({
      kind: 'stop',
      reason: 'non-retryable',
    });
  });

  it('stops deadline, with the action the failure asked for, when the deadline timeout ended the attempt', () => {
    const p = plan({ waits: [100] });
    const end: AttemptEnd = { kind: 'failed', failure: fail('ResponseTimeout'), deadlineReached: true };
    expect(afterAttempt(p, first(p).state, end, at(false))).toMatchObject({
      reason: 'deadline',
      action: 'advance',
    });
  });

  it("stops deadline when the deadline timeout fired under a deadline that is still the plan's", () => {
    const p = plan({ waits: [100], deadlineInMs: 10_000, reserveMs: 1000, minAttemptMs: 1000 });
    const end: AttemptEnd = { kind: 'failed', failure: fail('ResponseTimeout'), deadlineReached: true };
    expect(afterAttempt(p, first(p).state, end, at(false, 9000))).toMatchObject({
      kind: 'stop',
      reason: 'deadline',
    });
  });

  it('decides by the plan, as an attempt timeout, when the deadline timeout fired after the deadline moved later', () => {
    // Scheduled under a deadline at 10 s (less 1 s reserve: timeout at 9 s); the host moved it to 60 s meanwhile.
    const p = plan({ waits: [100], deadlineInMs: 10_000, reserveMs: 1000, minAttemptMs: 1000 });
    p.deadlineMs = 60_000;
    const end: AttemptEnd = { kind: 'failed', failure: fail('ResponseTimeout'), deadlineReached: true };
    expect(afterAttempt(p, first(p).state, end, at(false, 9000))).toMatchObject({
      kind: 'attempt',
      action: 'advance',
      backend: 1,
    });
    // The plan's own deadline rule still holds: moved only a little, too little for another attempt.
    p.deadlineMs = 10_500;
    expect(afterAttempt(p, first(p).state, end, at(false, 9000))).toMatchObject({
      kind: 'stop',
      reason: 'deadline',
    });
  });

  it('leaves every other failure to decide', () => {
    const p = plan({ waits: [100] });
    const end: AttemptEnd = { kind: 'failed', failure: fail('RateLimited'), deadlineReached: false };
    expect(afterAttempt(p, first(p).state, end, at(false))).toMatchObject({
      kind: 'attempt',
      backend: 1,
      waitMs: 0,
    });
  });
});

describe('beforeAttempt', () => {
  it('stops cancelled first: no attempt starts after a cancel', () => {
    expect(
      beforeAttempt(plan({ waits: [100] }), first(), { cancelRequested: true, nowMs: 0, waited: false }),
    ).toMatchObject({
      kind: 'stop',
      reason: 'cancelled',
    });
  });

  it('stops deadline when the timer fired too late for another attempt, keeping the action', () => {
    const p = plan({ waits: [100], deadlineInMs: 10_000, reserveMs: 1000, minAttemptMs: 1000 });
    const decision: AttemptDecision = { ...first(p), action: 'retry-same', waitMs: 100 };
    expect(beforeAttempt(p, decision, { cancelRequested: false, nowMs: 8500, waited: true })).toMatchObject({
      kind: 'stop',
      reason: 'deadline',
      action: 'retry-same',
    });
    expect(beforeAttempt(p, decision, { cancelRequested: false, nowMs: 1000, waited: true })).toBe(decision);
  });
});

describe('failedAttempt and timeoutFacts', () => {
  it('makes a failure after delivered deltas StreamInterrupted, naming what it was and keeping no retry-after', () => {
    const facts = { class: 'ServerError' as const, status: 503, retryAfterMs: 1000, message: 'overloaded' };
    expect(failedAttempt({ ...facts, deltasDelivered: 3 })).toEqual({
      failure: { class: 'StreamInterrupted' },
      record: {
        class: 'StreamInterrupted',
        status: 503,
        message: 'ServerError after 3 streamed deltas: overloaded',
      },
    });
    expect(failedAttempt({ ...facts, deltasDelivered: 0 })).toEqual({
      failure: { class: 'ServerError', retryAfterMs: 1000 },
      record: facts,
    });
  });

  it.each([
    ['ServerError', { status: 503, retryAfterMs: 1000 }],
    ['ConnectionLost', {}],
    ['WorkerLost', {}],
    ['RateLimited', { status: 429, retryAfterMs: 2000 }],
    ['BadRequest', { status: 400 }],
  ] as const)(
    'keeps a %s cut after delivered deltas as it is when the call continues cut streams',
    (cls, extra) => {
      const facts = { class: cls, ...extra, message: 'cut' };
      expect(failedAttempt({ ...facts, deltasDelivered: 7, continueOnCut: true })).toEqual({
        failure: { class: cls, ...('retryAfterMs' in extra ? { retryAfterMs: extra.retryAfterMs } : {}) },
        record: facts,
      });
      // Without `continueOnCut`, the same facts stop the call.
      expect(failedAttempt({ ...facts, deltasDelivered: 7 }).failure).toEqual({ class: 'StreamInterrupted' });
    },
  );

  it('reads a timeout type by name, by TIMEOUT_TYPE_ name and by proto number alike', () => {
    expect(timeoutTypeOf('HEARTBEAT')).toBe('HEARTBEAT');
    expect(timeoutTypeOf('TIMEOUT_TYPE_HEARTBEAT')).toBe('HEARTBEAT');
    expect(timeoutTypeOf(4)).toBe('HEARTBEAT');
    expect(timeoutTypeOf(0)).toBeUndefined();
    expect(timeoutFacts(4)).toMatchObject({ class: 'WorkerLost', deadlineReached: false });
    expect(timeoutFacts('SCHEDULE_TO_CLOSE')).toMatchObject({
      class: 'ResponseTimeout',
      deadlineReached: true,
    });
    expect(timeoutFacts(undefined)).toEqual({
      class: 'Unknown',
      message: 'timed out',
      deadlineReached: false,
    });
  });
});
