/**
 * Counts the promises workflow code makes in Temporal's sandbox while replaying recorded histories:
 * every one costs a captured stack trace (the sandbox's promise hook). For each history: the total, and by the
 * nearest frame of the project's own workflow code (source-mapped), so a cut is measured, not guessed.
 *
 *   tsx bench/profile/count-promises.ts [history names, default every one in test/replay/histories] [--where]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { promiseHooks } from 'node:v8';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { workflowsPath } from '../../worker/worker.js';

const HISTORIES = fileURLToPath(new URL('../../test/replay/histories/', import.meta.url));
const OWN = /\/((?:workflows|policy|common)\/[^):]+:\d+)/;
const noop = () => undefined;
const quiet = { trace: noop, debug: noop, info: noop, warn: noop, error: console.error, log: noop };

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const args = process.argv.slice(2);
  const where = args.includes('--where');
  const given = args.filter((a) => !a.startsWith('--'));
  const names =
    given.length > 0
      ? given
      : readdirSync(HISTORIES)
          .filter((f) => f.endsWith('.json'))
          .map((f) => f.replace(/\.json$/, ''));
  const bundle = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quiet });
  let all = 0;
  for (const name of names) {
    const history = JSON.parse(readFileSync(`${HISTORIES}${name}.json`, 'utf8')) as { events: unknown[] };
    let count = 0;
    const byFrame = new Map<string, number>();
    const stop = promiseHooks.onInit((promise: Promise<unknown>) => {
      if (promise.constructor === Promise) return;
      count += 1;
      if (!where) return;
      const ContextError = promise.constructor.constructor('return Error')() as ErrorConstructor;
      const stack = new ContextError().stack ?? '';
      const frame =
        stack
          .split('\n')
          .slice(2)
          .map((line) => OWN.exec(line)?.[1])
          .find((f) => f !== undefined) ?? '(sdk only)';
      byFrame.set(frame, (byFrame.get(frame) ?? 0) + 1);
    });
    try {
      await Worker.runReplayHistory({ workflowBundle: bundle }, history, `replay-${name}`);
    } finally {
      stop();
    }
    all += count;
    console.log(`${name}: ${count} promises, ${history.events.length} events`);
    if (where) {
      for (const [frame, n] of [...byFrame].sort((a, b) => b[1] - a[1])) console.log(`  ${n}\t${frame}`);
    }
  }
  console.log(`total: ${all}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
