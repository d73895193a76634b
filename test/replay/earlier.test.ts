import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { installQuietRuntime } from '../harness/quiet.js';
import { bundleForReplay, readHistories, replayFailures, replayResults } from '../harness/replay.js';

const EARLIER = fileURLToPath(new URL('./earlier/', import.meta.url));

installQuietRuntime();

/**
 * Histories recorded by earlier workflow code that a change kept replaying on purpose (test/replay/earlier), kept
 * beside the current scenarios' (which `npm run replay:record` rewrites): `<scenario>-<what changed since>.json`.
 * - held-while-cooling-before-watch-list: the worker's config had no `healthWatchedLimits`, and the cooling check
 *   (a marker) ran before every attempt on a limit queue; its held attempt carried `held: true`.
 */
describe('histories of earlier workflow code (test/replay/earlier)', () => {
  it('replay against the current workflow code without nondeterminism', async () => {
    const histories = readHistories(EARLIER, 'earlier');
    expect(histories.length).toBeGreaterThan(0);
    const bundle = await bundleForReplay();
    expect(replayFailures(await replayResults({ workflowBundle: bundle }, histories))).toEqual([]);
  }, 180_000);
});
