import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { groupByCall, orderRuns, runLinks } from '../../../client/history-chain.js';
import type { AttemptRecord } from '../../../common/call.js';

type History = temporal.api.history.v1.IHistory;

/** The two events of a run that the chain reader looks at: its start and, when it continued, its close. */
function run(runId: string, previous?: string, next?: string): History {
  return {
    events: [
      {
        workflowExecutionStartedEventAttributes: {
          originalExecutionRunId: runId,
          ...(previous ? { continuedExecutionRunId: previous } : {}),
        },
      },
      ...(next ? [{ workflowExecutionContinuedAsNewEventAttributes: { newExecutionRunId: next } }] : []),
    ],
  };
}

const record = (callId: string, attempt: number): AttemptRecord => ({
  modelCallId: `${callId}.${attempt}`,
  callId,
  attempt,
  backend: 0,
  model: 'local:m',
  startedAt: '2026-01-01T00:00:00.000Z',
  outcome: 'failed',
});

describe('reading a chain of runs', () => {
  it('groups attempts by call, calls in the order of their first attempt', () => {
    const groups = groupByCall([record('c2', 1), record('c1', 1), record('c2', 2), record('c3', 1)]);
    expect(groups.map((g) => [g.callId, g.attempts.map((a) => a.modelCallId)])).toEqual([
      ['c2', ['c2.1', 'c2.2']],
      ['c1', ['c1.1']],
      ['c3', ['c3.1']],
    ]);
  });

  it('puts exported runs in chain order by their continue-as-new links, whatever order the files came in', () => {
    const a = run('A', undefined, 'B');
    const b = run('B', 'A', 'C');
    const c = run('C', 'B');
    const { histories, gaps } = orderRuns([c, a, b]);
    expect(histories.map((h) => runLinks(h).runId)).toEqual(['A', 'B', 'C']);
    expect(gaps).toEqual([]);
  });

  it('names the runs missing before and after the files given', () => {
    const { histories, gaps } = orderRuns([run('B', 'A', 'C')]);
    expect(histories).toHaveLength(1);
    expect(gaps).toEqual([
      'run B continued from run A, which is not among the files',
      'run B continued as new as run C, which is not among the files',
    ]);
  });
});
