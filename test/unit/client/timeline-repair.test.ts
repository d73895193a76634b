import { describe, expect, it } from 'vitest';
import { formatTimeline } from '../../../client/timeline.js';
import type { AttemptRecord } from '../../../common/call.js';

const base = { callId: 'c1', backend: 0, model: 'local:fast', startedAt: '2026-01-01T00:00:00.000Z' };

describe('the timeline of a repaired call', () => {
  it("shows the action repair and the validator's first error, bounded", () => {
    const records: AttemptRecord[] = [
      {
        ...base,
        modelCallId: 'c1.1',
        attempt: 1,
        endedAt: '2026-01-01T00:00:00.020Z',
        outcome: 'failed',
        finishReason: 'stop',
        retryInMs: 0,
        failure: {
          class: 'SchemaMismatch',
          action: 'repair',
          status: 200,
          message: 'the answer does not match output.schema: /population: must be integer (and 1 more)',
        },
      },
      {
        ...base,
        modelCallId: 'c1.2',
        attempt: 2,
        endedAt: '2026-01-01T00:00:00.050Z',
        outcome: 'failed',
        failure: {
          class: 'SchemaMismatch',
          action: 'drop',
          status: 200,
          message: `the answer does not match output.schema: /: ${'x'.repeat(200)}`,
        },
      },
    ];
    const [first, second] = formatTimeline(records);
    expect(first).toMatch(
      /^c1\.1 +\[0\] local:fast +SchemaMismatch 200 \(\/population: must be integer \(and 1 more\)\) +20 ms +-> repair, next at once$/,
    );
    expect(second).toMatch(/SchemaMismatch 200 \(\/: x+…\)/);
    expect(second).toMatch(/-> drop, stopped$/);
  });
});
