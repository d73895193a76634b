import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { readRunMeta } from '../../../client/run-meta.js';

type History = temporal.api.history.v1.IHistory;

const t0 = Date.parse('2026-01-01T00:00:00Z');

/** A run's start event, with `input` as its first argument. */
function started(workflowType: string, input: unknown): History {
  return {
    events: [
      {
        // `seconds` is a Long in the proto types; the reader takes any number-like value.
        eventTime: { seconds: t0 / 1000, nanos: 0 },
        workflowExecutionStartedEventAttributes: {
          workflowId: 'w',
          workflowType: { name: workflowType },
          taskQueue: { name: 'q' },
          originalExecutionRunId: 'r1',
          input: { payloads: [defaultPayloadConverter.toPayload(input)] },
        },
      },
    ] as unknown as History['events'],
  };
}

describe('reading the deadline of a chain', () => {
  it("reads a call's deadline and reserve from its retry plan", () => {
    const meta = readRunMeta([
      started('modelCallWorkflow', { model: 'x:m', retry: { deadlineInMs: 5000, reserveMs: 1000 } }),
    ]);
    expect(meta).toMatchObject({ deadlineMs: t0 + 5000, reserveMs: 1000 });
  });

  it("reads an agent turn's top-level deadline and reserve, with or without a retry plan", () => {
    const inMs = readRunMeta([
      started('agentTurnWorkflow', {
        model: 'x:m',
        deadlineInMs: 7000,
        reserveMs: 500,
        retry: { maxAttempts: 3 },
      }),
    ]);
    expect(inMs).toMatchObject({ deadlineMs: t0 + 7000, reserveMs: 500 });
    const at = readRunMeta([
      started('agentTurnWorkflow', { model: 'x:m', deadline: '2026-01-01T00:01:00Z' }),
    ]);
    expect(at.deadlineMs).toBe(t0 + 60_000);
    expect(at.reserveMs).toBeTypeOf('number');
  });

  it('has no deadline when the input names none', () => {
    const meta = readRunMeta([started('agentTurnWorkflow', { model: 'x:m', retry: { maxAttempts: 2 } })]);
    expect(meta.deadlineMs).toBeUndefined();
    expect(meta.reserveMs).toBeUndefined();
  });
});
