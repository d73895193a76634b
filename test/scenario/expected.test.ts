import { describe, expect, it } from 'vitest';
import { expectedOutcomes } from './expected.js';
import type { Fault } from './scenario.js';

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
