import { actions } from './benchmarks/actions.js';
import { aiSdk } from './benchmarks/ai-sdk.js';
import { cluster } from './benchmarks/cluster.js';
import { concurrency } from './benchmarks/concurrency.js';
import { historyBytes } from './benchmarks/history-bytes.js';
import { historyEvents } from './benchmarks/history-events.js';
import { limits } from './benchmarks/limits.js';
import { outage } from './benchmarks/outage.js';
import { replay } from './benchmarks/replay.js';
import { retryOverhead } from './benchmarks/retry-overhead.js';
import { streamCut } from './benchmarks/stream-cut.js';
import { streaming } from './benchmarks/streaming.js';
import { turn } from './benchmarks/turn.js';
import type { Benchmark } from './lib/benchmark.js';

/**
 * Every benchmark of `npm run bench`, in the order they run and appear in BENCHMARKS.md. A new one is one more
 * entry here and a method section in BENCHMARKS.md.
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
];

export function benchmarkNames(): string[] {
  return BENCHMARKS.map((b) => b.name);
}
