import { fileURLToPath } from 'node:url';
import type { WorkflowBundle } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { installQuietRuntime } from '../harness/quiet.js';
import { bundleForReplay, countOwnPromises, readHistory } from '../harness/replay.js';

const HISTORIES = fileURLToPath(new URL('./histories/', import.meta.url));

installQuietRuntime();

/**
 * Replays a recorded history and counts the promises created with the call's code (workflows/call/) nearest on
 * the stack (`countOwnPromises`).
 */
function callPromises(
  bundle: WorkflowBundle,
  name: string,
  dir = 'workflows/call/',
): Promise<Record<string, number>> {
  return countOwnPromises(bundle, readHistory(`${HISTORIES}${name}.json`, `replay-${name}`), dir);
}

const total = (byFile: Record<string, number>) => Object.values(byFile).reduce((a, b) => a + b, 0);

describe("a model call's own promises", () => {
  let bundle: WorkflowBundle;
  beforeAll(async () => {
    bundle = await bundleForReplay();
  }, 180_000);

  // What the code makes now, and what it made when every step of the attempt loop was an async function and
  // every call awaited the worker's config (50 and 45), and before the worker config's ask lost its `then` (29, 16).
  it.each([
    ['success-after-failures', 'three attempts and two waits in one call', 28],
    // A turn's calls: the awaits are the turn's own (it drives each call's steps), none is the call's.
    ['turn-tool-and-502', "an agent turn's two calls, one retried after a 502", 15],
  ])(
    'replaying %s (%s) makes at most %i: the activities, the timers, the worker config once per run',
    async (name, _what, most) => {
      const byFile = await callPromises(bundle, name);
      expect(total(byFile), JSON.stringify(byFile)).toBeLessThanOrEqual(most);
    },
    60_000,
  );

  it("a run's later calls ask nothing of the worker config: it is awaited once per run", async () => {
    const byFile = await callPromises(bundle, 'turn-tool-and-502');
    // The local activity's own promises (5 with SDK 1.23; 6 while a `then` was chained on the ask); none for the
    // second call, which would at least double it.
    expect(byFile['workflows/call/worker-config.ts']).toBeGreaterThan(0);
    expect(byFile['workflows/call/worker-config.ts']).toBeLessThanOrEqual(5);
    // The turn drives its calls' steps itself (`CallSteps`): no promise is made by the call's loop (7 when each
    // call was an async function awaiting the config, its three attempts and its wait; 12 before that).
    expect(byFile['workflows/call/model-call.ts'] ?? 0).toBe(0);
  }, 60_000);

  it("an agent turn's own promises: one await per thing it waits for, none for a call or a single tool call", async () => {
    const byFile = await callPromises(bundle, 'turn-tool-and-502', 'workflows/');
    // The turn's run, its tools' description, one await per thing it waits for (the config, three attempts, a
    // wait, the tool step), and the tool activity's own 2 that no `then` is chained on: 27 (31 while the loop was
    // an async function of its own, the tools' description had a `catch` and the config's ask a `then`; 37 when
    // each call was an async function awaited by the turn and a single tool call went through two `then`s).
    expect(byFile['workflows/turn/turn-tools.ts'], JSON.stringify(byFile)).toBeLessThanOrEqual(2);
    expect(total(byFile), JSON.stringify(byFile)).toBeLessThanOrEqual(27);
  }, 60_000);
});
