import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { WorkflowBundle } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { beforeAll, describe, expect, it } from 'vitest';
import { workflowsPath } from '../../worker/worker.js';
import { REPLAY_SCENARIOS, scenarioWorkflowId } from './scenarios.js';

const HISTORIES = fileURLToPath(new URL('./histories/', import.meta.url));
const CHANGED_WORKFLOWS = fileURLToPath(new URL('./changed-workflows.ts', import.meta.url));

try {
  // Replaying an incompatible history logs its failure; the test reads the results instead.
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
} catch {
  // Already installed in this process.
}

const noop = () => undefined;
const quiet = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };

function recordedHistories() {
  return readdirSync(HISTORIES)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      workflowId: `replay-${file.replace(/\.json$/, '')}`,
      history: JSON.parse(readFileSync(`${HISTORIES}${file}`, 'utf8')) as unknown,
    }));
}

async function replay(bundle: WorkflowBundle) {
  const results: { workflowId: string; error?: Error }[] = [];
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle }, recordedHistories())) {
    results.push({ workflowId: r.workflowId, ...(r.error ? { error: r.error } : {}) });
  }
  return results;
}

describe('recorded histories of the integration scenarios (test/replay/histories, `npm run replay:record`)', () => {
  let current: WorkflowBundle;
  let changed: WorkflowBundle;
  beforeAll(async () => {
    [current, changed] = await Promise.all([
      bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quiet }),
      bundleWorkflowCode({ workflowsPath: CHANGED_WORKFLOWS, logger: quiet }),
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
      results.filter((r) => r.error).map((r) => `${r.workflowId}: ${String(r.error)}`),
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
