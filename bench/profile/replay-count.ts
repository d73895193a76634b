/**
 * The child of `replay-instructions.ts`, run by plain Node (no TypeScript loader: its syntax is erasable, and under
 * valgrind every instruction of a loader would be counted too): replays saved histories `times` times with a
 * prebuilt workflow bundle, then exits. `MODEL_RETRY_HOOK_OFF=1` keeps Temporal's promise hook and stack-trace
 * rewriting from being installed (as `globalHandlers.install()` would at the replay worker's start), to count what
 * they cost.
 *
 *   node --single-threaded bench/profile/replay-count.ts <bundle.js> <histories.json> <times>
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { HistoryAndWorkflowId } from '@temporalio/client';

const [bundlePath, historiesPath, timesArg] = process.argv.slice(2);
if (process.env.MODEL_RETRY_HOOK_OFF === '1') {
  const shared = createRequire(import.meta.url)('@temporalio/worker/lib/workflow/vm-shared.js') as {
    globalHandlers: { installed: boolean };
  };
  shared.globalHandlers.installed = true;
}
Runtime.install({ logger: new DefaultLogger('ERROR') });
const code = readFileSync(bundlePath as string, 'utf8');
const histories = JSON.parse(readFileSync(historiesPath as string, 'utf8')) as HistoryAndWorkflowId[];
const collect = (globalThis as { gc?: () => void }).gc;
for (let i = 0; i < Number(timesArg); i++) {
  // Each replay starts from a collected heap (with --expose-gc), so that when the GC runs depends less on what ran before.
  collect?.();
  for await (const result of Worker.runReplayHistories({ workflowBundle: { code } }, histories)) {
    if (result.error) throw result.error;
  }
}
process.exit(0);
