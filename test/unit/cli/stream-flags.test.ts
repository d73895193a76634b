import { describe, expect, it } from 'vitest';
import { streamFromFlags } from '../../../cli/call.js';

describe('the stream flags of `call` and `turn`', () => {
  it.each([
    [false, undefined, undefined, undefined],
    [true, undefined, undefined, true],
    [true, '100', undefined, { batchMs: 100 }],
    [false, '100', undefined, { batchMs: 100 }],
    [true, undefined, 'stop', {}],
    [false, undefined, 'continue', { onCut: 'continue' }],
    [true, '20', 'continue', { batchMs: 20, onCut: 'continue' }],
  ])('--stream %s --stream-batch-ms %s --on-cut %s is %j', (stream, batchMs, onCut, expected) => {
    expect(streamFromFlags(stream, batchMs, onCut)).toEqual(expected);
  });

  it('refuses an --on-cut that is neither stop nor continue, naming both', () => {
    expect(() => streamFromFlags(true, undefined, 'resume')).toThrow(
      /`--on-cut` must be `stop` .* or `continue` .*, not "resume"/,
    );
  });
});
