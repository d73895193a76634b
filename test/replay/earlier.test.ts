import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowsPath } from '../../worker/worker.js';

const EARLIER = fileURLToPath(new URL('./earlier/', import.meta.url));

try {
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
  });
} catch {
  // Already installed in this process.
}

const noop = () => undefined;
const quiet = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };

/**
 * Histories recorded by earlier workflow code that a change kept replaying on purpose (test/replay/earlier), kept
 * beside the current scenarios' (which `npm run replay:record` rewrites): `<scenario>-<what changed since>.json`.
 * - held-while-cooling-before-watch-list: the worker's config had no `healthWatchedLimits`, and the cooling check
 *   (a marker) ran before every attempt on a limit queue; its held attempt carried `held: true`.
 */
describe('histories of earlier workflow code (test/replay/earlier)', () => {
  it('replay against the current workflow code without nondeterminism', async () => {
    const histories = readdirSync(EARLIER)
      .filter((file) => file.endsWith('.json'))
      .map((file) => ({
        workflowId: `earlier-${file.replace(/\.json$/, '')}`,
        history: JSON.parse(readFileSync(`${EARLIER}${file}`, 'utf8')) as unknown,
      }));
    expect(histories.length).toBeGreaterThan(0);
    const bundle = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quiet });
    const failed: string[] = [];
    for await (const r of Worker.runReplayHistories({ workflowBundle: bundle }, histories)) {
      if (r.error) failed.push(`${r.workflowId}: ${String(r.error)}`);
    }
    expect(failed).toEqual([]);
  }, 180_000);
});
