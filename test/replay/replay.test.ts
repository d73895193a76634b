import { fileURLToPath } from 'node:url';
import type { WorkflowBundle } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { beforeAll, describe, expect, it } from 'vitest';
import { installQuietRuntime } from '../harness/quiet.js';
import { bundleForReplay, readHistories, replayFailures, replayResults } from '../harness/replay.js';
import { REPLAY_SCENARIOS, scenarioWorkflowId } from './scenarios.js';

const HISTORIES = fileURLToPath(new URL('./histories/', import.meta.url));
const CHANGED_WORKFLOWS = fileURLToPath(new URL('./changed-workflows.ts', import.meta.url));

// Replaying an incompatible history logs its failure; the test reads the results instead.
installQuietRuntime();

const recordedHistories = () => readHistories(HISTORIES, 'replay');
const replay = (bundle: WorkflowBundle) => replayResults({ workflowBundle: bundle }, recordedHistories());

describe('recorded histories of the integration scenarios (test/replay/histories, `npm run replay:record`)', () => {
  let current: WorkflowBundle;
  let changed: WorkflowBundle;
  beforeAll(async () => {
    [current, changed] = await Promise.all([
      bundleForReplay(),
      bundleForReplay({ workflowsPath: CHANGED_WORKFLOWS }),
    ]);
  }, 180_000);

  it('holds one history per scenario, and nothing else', () => {
    expect(recordedHistories().map((h) => h.workflowId)).toEqual(
      REPLAY_SCENARIOS.map(scenarioWorkflowId).sort(),
    );
  });

  it('replays every history against the current workflow code without nondeterminism', async () => {
    const results = await replay(current);
    expect(results.map((r) => r.workflowId)).toEqual(REPLAY_SCENARIOS.map(scenarioWorkflowId).sort());
    expect(
      replayFailures(results),
      'workflow code changed incompatibly: guard the change with patched(), or, before the first release, ' +
        'regenerate the histories with `npm run replay:record` if the change is intended',
    ).toEqual([]);
  }, 120_000);

  it('catches an incompatible change: a timer before the first attempt fails every replay', async () => {
    const results = await replay(changed);
    expect(results).toHaveLength(REPLAY_SCENARIOS.length);
    for (const r of results) {
      expect(r.error, r.workflowId).toBeInstanceOf(DeterminismViolationError);
    }
  }, 120_000);
});
