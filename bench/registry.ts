import { actions } from './actions/index.js';
import { aiSdk } from './ai-sdk/index.js';
import { cluster } from './cluster/index.js';
import { concurrency } from './concurrency/index.js';
import { historyBytes } from './history-bytes/index.js';
import { historyEvents } from './history-events/index.js';
import { limits } from './limits/index.js';
import { outage } from './outage/index.js';
import { replay } from './replay/index.js';
import { retryOverhead } from './retry-overhead/index.js';
import { streamCut } from './stream-cut/index.js';
import { streaming } from './streaming/index.js';
import { tenants } from './tenants/index.js';
import { turn } from './turn/index.js';
import type { Benchmark } from './lib/benchmark.js';

/**
 * Every benchmark of `npm run bench`, in the order they run and appear in BENCHMARKS.md. A new one is a folder
 * `bench/<name>/` (its `index.ts` and its parts; the lab it measures in is test/harness), one more entry here
 * and a method section in BENCHMARKS.md; one with a goal also needs a row in `bench/lib/doc-goals.ts`.
 */
export const BENCHMARKS: readonly Benchmark[] = [
  actions,
  historyEvents,
  retryOverhead,
  concurrency,
  replay,
  historyBytes,
  streaming,
  aiSdk,
  limits,
  outage,
  turn,
  cluster,
  streamCut,
  tenants,
];

export function benchmarkNames(): string[] {
  return BENCHMARKS.map((b) => b.name);
}
