import { describe, expect, it } from 'vitest';
import { expectedOutcomes } from './expected.js';
import { checkActions } from './stop-oracle.js';
import type { Attempt } from './stop-oracle.js';
import type { Fault, Scenario } from './scenario.js';
import type { AttemptRecord } from '../../common/call.js';

/**
 * The outcome oracle where a request meets a loopback step built for the other kind of request (a neighbour's call
 * on the main call's scripts): the outcomes follow the step that was sent, read the way the request reads it.
 */
describe('expectedOutcomes for a step built for the other kind of request', () => {
  const T = 10_000;
  const cases: { fault: Fault; stream: boolean; scriptsStream: boolean; expected: string[] }[] = [
    // Built for a stream: `ok` with `cutAfterChunks`, which the loopback answers whole to a plain request.
    { fault: { kind: 'stream-cut', chunks: 3 }, stream: false, scriptsStream: true, expected: ['succeeded'] },
    // Built for a stream: an event-stream body where the plain request's parser wants JSON.
    { fault: { kind: 'clean-cut' }, stream: false, scriptsStream: true, expected: ['ParseFailed'] },
    // Built for a plain request (a body cut in the middle), met by a stream: a cut stream.
    {
      fault: { kind: 'stream-cut', chunks: 0 },
      stream: true,
      scriptsStream: false,
      expected: ['ConnectionLost', 'StreamInterrupted'],
    },
    {
      fault: { kind: 'clean-cut' },
      stream: true,
      scriptsStream: false,
      expected: ['ConnectionLost', 'StreamInterrupted'],
    },
    // Steps that do not depend on the request's kind are judged as before.
    { fault: { kind: 'cut' }, stream: false, scriptsStream: true, expected: ['ConnectionLost'] },
    { fault: { kind: 'ok', delayMs: 0 }, stream: true, scriptsStream: false, expected: ['succeeded'] },
  ];
  it.each(cases)('$fault.kind, request stream $stream, scripts stream $scriptsStream', (c) => {
    expect(new Set(expectedOutcomes(c.fault, c.stream, T, c.scriptsStream))).toEqual(new Set(c.expected));
  });

  it('without a scripts stream of its own, the request and its step agree (the main call)', () => {
    expect(expectedOutcomes({ kind: 'stream-cut', chunks: 3 }, false, T)).toEqual(['ConnectionLost']);
    expect(expectedOutcomes({ kind: 'stream-cut', chunks: 3 }, true, T)).toEqual([
      'StreamInterrupted',
      'ConnectionLost',
    ]);
  });
});

/**
 * The action oracle on a step that says `x-should-retry: false`: the header counts only when the worker read the
 * response (its status is on record); a worker killed while the 429 was on its way lost the attempt (`WorkerLost`).
 */
describe('checkActions and x-should-retry', () => {
  const scenario: Scenario = {
    chain: [{ kind: 'loopback', faults: [] }],
    plan: { waits: [10], maxAttempts: 3, attemptTimeoutMs: 2000 },
    stream: false,
  };
  const fault: Fault = { kind: 'status', status: 429, delayMs: 138, shouldRetry: false };
  const attempt = (n: number, failure?: AttemptRecord['failure']): Attempt => ({
    record: {
      modelCallId: `c1.${n}`,
      callId: 'c1',
      attempt: n,
      backend: 0,
      model: 'local:m',
      startedAt: '2026-12-02T00:00:00.000Z',
      outcome: failure ? 'failed' : 'succeeded',
      ...(failure ? { failure } : {}),
    },
    fault,
  });
  const failed = (cls: string, action: string, status?: number) =>
    ({
      class: cls,
      message: cls,
      action,
      ...(status !== undefined ? { status } : {}),
    }) as AttemptRecord['failure'];

  it('expects a drop when the worker read the status with the header', () => {
    const ok = [attempt(1, failed('RateLimited', 'drop', 429)), attempt(2)];
    expect(checkActions(scenario, ok)).toEqual([]);
    const wrong = [attempt(1, failed('RateLimited', 'retry-same', 429)), attempt(2)];
    expect(checkActions(scenario, wrong).map((v) => v.invariant)).toEqual(['action']);
  });

  it('expects the class default when the worker never read the response', () => {
    expect(checkActions(scenario, [attempt(1, failed('WorkerLost', 'retry-same')), attempt(2)])).toEqual([]);
  });
});
