import type { DataConverter } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { expect, inject } from 'vitest';

/**
 * Replays recorded histories against the current workflow bundle: any nondeterminism fails the test run.
 * Encrypted histories need the `dataConverter` (and the bundle) their workers had.
 */
export async function replayAll(
  histories: { workflowId: string; history: temporal.api.history.v1.IHistory }[],
  options: { dataConverter?: DataConverter; workflowBundlePath?: string } = {},
) {
  const results = Worker.runReplayHistories(
    {
      workflowBundle: { codePath: options.workflowBundlePath ?? inject('workflowBundlePath') },
      ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    },
    histories,
  );
  const errors: string[] = [];
  for await (const result of results) {
    if (result.error) errors.push(`${result.workflowId}: ${String(result.error)}`);
  }
  expect(errors).toEqual([]);
}
