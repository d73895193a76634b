/**
 * Counts the CPU instructions a replay costs per history, side by side: valgrind's cachegrind (`I refs`)
 * over a plain-Node child (`replay-count.ts`) that replays one side's saved histories with the workflow bundle as
 * shipped, V8 single-threaded (its compiler and GC then run in the counted thread) and a full collection before each
 * replay. Once with one replay and once with three: the difference over two replays is the warm cost, without the
 * process's start. Counted instructions do not depend on the machine's load (CPU time here moves ±15 % between
 * rounds of the same code), but they are not exact either: without the collections, when the GC ran decided up to
 * 14 % of a count (one side counted 52 M and 60 M per turn in two harnesses); with them, the same side counted
 * within 3 % in most runs and 6 % apart at worst (Temporal's core runs on threads of its own, and how often the
 * worker polls it depends on timing even under valgrind). Compare sides counted in one run, and read differences of
 * several percent, not one.
 *
 *   tsx bench/profile/replay-instructions.ts <dir> [sides=floor,contract,ours]
 *   (the histories: `PROFILE_TURNS_SAVE=<dir> tsx bench/profile/turns.ts 60 1 4 floor,ours,contract`; with
 *   `MODEL_RETRY_HOOK_OFF=1`, without Temporal's promise hook, to count what it costs)
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundleWorkflowCode } from '@temporalio/worker';
import { modelRetryWebpackConfigHook } from '../../plugin/index.js';
import { quietBundleLogger } from '../../test/harness/quiet.js';

const run = promisify(execFile);
const [dir, sidesArg] = process.argv.slice(2);
const SIDES = (sidesArg ?? 'floor,contract,ours').split(',');
const CHILD = fileURLToPath(new URL('./replay-count.ts', import.meta.url));

/** The instructions of one child replaying `file`'s histories `times` times. */
async function instructions(bundle: string, file: string, times: number): Promise<number> {
  const { stderr } = await run(
    'valgrind',
    [
      '--tool=cachegrind',
      '--cache-sim=no',
      '--cachegrind-out-file=/dev/null',
      process.execPath,
      '--single-threaded',
      '--expose-gc',
      CHILD,
      bundle,
      file,
      String(times),
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  const refs = /I\s+refs:\s+([\d,]+)/.exec(stderr)?.[1];
  if (refs === undefined) throw new Error(`no instruction count from valgrind:\n${stderr.slice(-2000)}`);
  return Number(refs.replaceAll(',', ''));
}

async function main(): Promise<void> {
  if (dir === undefined)
    throw new Error('usage: replay-instructions.ts <dir of <side>.json histories> [sides]');
  await run('valgrind', ['--version']).catch(() => {
    throw new Error(
      'valgrind is not installed: install it (e.g. `apt-get install valgrind`) to count instructions',
    );
  });
  const work = mkdtempSync(join(tmpdir(), 'replay-instructions-'));
  try {
    const bundle = join(work, 'bundle.js');
    const built = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('../../test/harness/bundle/index.ts', import.meta.url)),
      logger: quietBundleLogger,
      webpackConfigHook: modelRetryWebpackConfigHook(),
    });
    writeFileSync(bundle, built.code);
    const perHistory = new Map<string, number>();
    // Two children at a time (one per core of the machine this was written on); each side's pair together.
    for (const side of SIDES) {
      const file = join(dir, `${side}.json`);
      const count = (JSON.parse(readFileSync(file, 'utf8')) as unknown[]).length;
      const [once, thrice] = await Promise.all([
        instructions(bundle, file, 1),
        instructions(bundle, file, 3),
      ]);
      const per = (thrice - once) / 2 / count;
      perHistory.set(side, per);
      console.log(`${side}: ${(per / 1e6).toFixed(2)} M instructions per history (${count} histories)`);
    }
    const [first, ...rest] = SIDES;
    const base = perHistory.get(first as string) ?? NaN;
    for (const side of rest) {
      console.log(`${side} / ${first}: ${((perHistory.get(side) ?? NaN) / base).toFixed(3)}x`);
    }
    if (SIDES.includes('ours') && SIDES.includes('contract')) {
      const ratio = (perHistory.get('ours') ?? NaN) / (perHistory.get('contract') ?? NaN);
      console.log(`ours / contract: ${ratio.toFixed(3)}x`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
