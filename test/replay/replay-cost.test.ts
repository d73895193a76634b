import { promiseHooks } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { Worker } from '@temporalio/worker';
import type { WorkflowBundle } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { modelRetryWebpackConfigHook } from '../../plugin/index.js';
import { installQuietRuntime } from '../harness/quiet.js';
import {
  bundleForReplay,
  readHistories,
  readHistory,
  replayFailures,
  replayResults,
} from '../harness/replay.js';

const HISTORIES = fileURLToPath(new URL('./histories/', import.meta.url));

installQuietRuntime();

/**
 * Replays one history and counts the promises made inside the sandbox meanwhile (a promise of the sandbox's
 * realm has the sandbox's `Promise` as its constructor). Temporal's worker captures and formats a stack trace
 * for each of them (its stack-trace query), so they are a large part of what a replay costs per activation.
 */
async function sandboxPromises(bundle: WorkflowBundle, name: string): Promise<number> {
  let count = 0;
  const stop = promiseHooks.onInit((promise) => {
    if (promise.constructor !== Promise) count += 1;
  });
  try {
    for await (const r of Worker.runReplayHistories({ workflowBundle: bundle }, [
      readHistory(`${HISTORIES}${name}.json`, `replay-${name}`),
    ])) {
      if (r.error) throw r.error;
    }
  } finally {
    stop();
  }
  return count;
}

describe('replay cost of the bundle as the product builds it (ModelRetryPlugin, createModelRetryWorker)', () => {
  let product: WorkflowBundle;
  beforeAll(async () => {
    product = await bundleForReplay({ webpackConfigHook: modelRetryWebpackConfigHook() });
  }, 180_000);

  it('replays every recorded history with our modules concatenated, without nondeterminism', async () => {
    const histories = readHistories(HISTORIES, 'replay');
    expect(histories.length).toBeGreaterThan(0);
    expect(replayFailures(await replayResults({ workflowBundle: product }, histories))).toEqual([]);
  }, 120_000);

  // Bounds with a little room over what the code makes now (21 and 37; 29 and 53 before the attempt loop's
  // synchronous fast paths, 51 and 88 before the promises nobody needed were taken out): a change that adds
  // per-attempt promises shows here first.
  it.each([
    ['no-plan', 'a call answered at once, 13 events', 24],
    ['success-after-failures', 'a call answered after two failures, 36 events', 42],
  ])(
    'replaying %s (%s) makes at most %i promises in the sandbox',
    async (name, _what, most) => {
      expect(await sandboxPromises(product, name)).toBeLessThanOrEqual(most);
    },
    60_000,
  );
});
