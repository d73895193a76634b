import { inject } from 'vitest';
import { openBenchContext } from './lab.js';
import type { BenchContext } from './lab.js';

/**
 * The benchmarks' context at `--quick` size on the run's dev server (its address and namespace), saying
 * nothing: the tests of the bench code (its floor, a smoke run of every benchmark) use it.
 */
export function openTestBenchContext(): Promise<BenchContext> {
  return openBenchContext({
    size: 'quick',
    address: inject('temporalAddress'),
    namespace: inject('temporalNamespace'),
    log: () => undefined,
  });
}
