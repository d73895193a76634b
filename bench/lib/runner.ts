import type { Benchmark } from './benchmark.js';
import type { BenchContext } from '../../test/harness/lab.js';
import { describeMachine, printResult, writeResult } from './report.js';
import type { ResultFile } from './report.js';

/**
 * Runs one benchmark on the run's context, writes `<out>/<name>.json` and `.md` (when `out` is given) and
 * prints its tables. The machine is described at the benchmark's start (its load average says how busy it was).
 */
export async function runBenchmark(
  benchmark: Benchmark,
  ctx: BenchContext,
  options: { out?: string; print?: (line: string) => void } = {},
): Promise<ResultFile> {
  const machine = describeMachine();
  const startedAt = new Date();
  ctx.log(`bench: ${benchmark.name} (${ctx.size}) ...`);
  const result = await benchmark.run(ctx);
  const finishedAt = new Date();
  const file: ResultFile = {
    meta: {
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: finishedAt.getTime() - startedAt.getTime(),
      size: ctx.size,
      machine,
    },
    result,
  };
  if (options.out !== undefined) writeResult(options.out, file);
  if (options.print) printResult(file, options.print);
  ctx.log(`bench: ${benchmark.name} done in ${(file.meta.durationMs / 1000).toFixed(1)} s`);
  return file;
}
