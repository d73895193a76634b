/**
 * `npm run bench`: every benchmark (or those named) on ONE Temporal dev server, with the workflow bundle built
 * once and one loopback provider. Each prints its tables and writes `bench/results/<name>.json` and `.md`;
 * a full run then rewrites the two generated sections of BENCHMARKS.md (goals and figures). `--quick` is the
 * smoke-test size.
 */
import { resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { BENCH_USAGE, BenchArgsError, parseBenchArgs } from './lib/args.js';
import { openBenchContext } from '../test/harness/lab.js';
import { updateBenchmarksDoc } from './lib/doc.js';
import { runBenchmark } from './lib/runner.js';
import { BENCHMARKS, benchmarkNames } from './registry.js';

const RESULTS_DIR = resolve('bench/results');

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseBenchArgs(argv, benchmarkNames());
  } catch (error) {
    if (error instanceof BenchArgsError) {
      console.error(`bench: ${error.message}`);
      return 2;
    }
    throw error;
  }
  if (args.help) {
    console.log(BENCH_USAGE);
    return 0;
  }
  if (args.list) {
    for (const b of BENCHMARKS) console.log(`${b.name.padEnd(18)} ${b.title}`);
    return 0;
  }
  const out = resolve(
    args.out ?? (args.size === 'quick' ? join(tmpdir(), 'model-retry-bench-quick') : RESULTS_DIR),
  );
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const started = Date.now();
  const ctx = await openBenchContext({ size: args.size, serverArgs: args.serverArgs });
  const failed: string[] = [];
  try {
    for (const benchmark of BENCHMARKS.filter((b) => args.names.includes(b.name))) {
      try {
        await runBenchmark(benchmark, ctx, { out, print: (line) => console.log(line) });
      } catch (error) {
        failed.push(benchmark.name);
        console.error(`bench: ${benchmark.name} failed:`, error);
      }
      ctx.lp.reset();
    }
  } finally {
    await ctx.close();
  }
  if (args.doc && args.size === 'full' && out === RESULTS_DIR) {
    updateBenchmarksDoc(resolve('BENCHMARKS.md'), RESULTS_DIR, benchmarkNames());
    console.error('bench: BENCHMARKS.md figures rewritten from bench/results');
  }
  console.error(
    `bench: ${args.names.length - failed.length} of ${args.names.length} benchmark(s) done in ` +
      `${((Date.now() - started) / 1000).toFixed(0)} s; results in ${out}` +
      (failed.length ? `; failed: ${failed.join(', ')}` : ''),
  );
  return failed.length ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('bench:', error);
    process.exit(1);
  },
);
