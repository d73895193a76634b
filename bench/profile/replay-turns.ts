/**
 * Replays saved turn histories (`PROFILE_TURNS_SAVE=<dir> tsx bench/profile/turns.ts ...` writes them) in
 * this thread (a replay worker runs workflows in the SDK's debug mode), so that a CPU profile (`node --cpu-prof`)
 * shows the workflow code alone. With `promises`, it also counts the promises the workflow code creates per turn
 * and where (the SDK's stack-trace hook captures a stack for every one of them: they are most of the cost), by
 * the first frame in the project's own sources.
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/profile/replay-turns.ts <dir> <side> [times=5]
 *   (with MODEL_RETRY_PROFILE_BUNDLE=/tmp/prof/bundle.js, then `cpu-split.ts <turns × (times + 1)> /tmp/prof ...`)
 *   tsx bench/profile/replay-turns.ts <dir> <side> 1 promises
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promiseHooks } from 'node:v8';
import { Worker } from '@temporalio/worker';
import type { HistoryAndWorkflowId } from '@temporalio/client';
import { bundleLab } from '../../test/harness/lab.js';
import { installQuietRuntime } from '../../test/harness/quiet.js';
import { PROFILE_BUNDLE_ENV } from './setup.js';

const [dir, side, timesArg, mode] = process.argv.slice(2);
const TIMES = Number(timesArg ?? 5);
const noop = () => undefined;
const OWN = /\/((?:workflows|policy|common|bench)\/[^):]+:\d+)/;

async function main(): Promise<void> {
  installQuietRuntime();
  const sides = (side as string).split(',');
  const saved = new Map(
    sides.map((s) => [
      s,
      JSON.parse(readFileSync(join(dir as string, `${s}.json`), 'utf8')) as HistoryAndWorkflowId[],
    ]),
  );
  // As the product bundles it (our modules concatenated into one).
  const bundle = await bundleLab();
  // For `cpu-split.ts`: the bundle whose lines the profile's workflow frames point into.
  const bundleFile = process.env[PROFILE_BUNDLE_ENV];
  if (bundleFile) writeFileSync(bundleFile, bundle.code);
  const sites = new Map<string, number>();
  let promises = 0;
  let counting = false;
  const stop =
    mode === 'promises'
      ? promiseHooks.onInit((promise: Promise<unknown>) => {
          if (!counting) return;
          // Only the workflow context's promises (their constructor is the context's Promise).
          if (promise.constructor === Promise) return;
          promises += 1;
          const stack = (new (promise.constructor.constructor('return Error')() as ErrorConstructor)()
            .stack ?? '') as string;
          const site =
            stack
              .split('\n')
              .slice(2)
              .map((l) => OWN.exec(l)?.[1])
              .find((s) => s) ?? '(SDK only)';
          sites.set(site, (sites.get(site) ?? 0) + 1);
        })
      : noop;
  // Sides interleaved, round after round; the first round warms up and is not counted in the totals.
  const totals = new Map<string, number>();
  const histories = saved.get(sides[0] as string) ?? [];
  for (let r = 0; r <= TIMES; r++) {
    counting = r === TIMES;
    const line: string[] = [];
    for (const s of sides) {
      const hs = saved.get(s) ?? [];
      const cpu0 = process.cpuUsage();
      const it = Worker.runReplayHistories({ workflowBundle: { code: bundle.code } }, hs);
      for await (const result of it) if (result.error) throw result.error;
      const cpu = process.cpuUsage(cpu0);
      const ms = (cpu.user + cpu.system) / 1000 / hs.length;
      if (r > 0) totals.set(s, (totals.get(s) ?? 0) + ms);
      line.push(`${s} ${ms.toFixed(2)}`);
    }
    console.log(`replay ${r} (ms CPU per turn): ${line.join(' | ')}`);
  }
  const [a, b] = sides.map((s) => totals.get(s) ?? 0);
  if (sides.length === 2 && a && b)
    console.log(`${sides[1]}/${sides[0]} over the counted rounds: ${(b / a).toFixed(3)}x`);
  stop();
  if (mode === 'promises') {
    console.log(`${side}: ${(promises / histories.length).toFixed(1)} promises per turn`);
    for (const [site, n] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, 40))
      console.log(`  ${(n / histories.length).toFixed(1)} ${site}`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
