import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoadPair, ScaleRuns } from '../../bench/cluster/tables.js';
import { openBenchContext } from '../harness/lab.js';
import type { BenchContext } from '../harness/lab.js';
import type { ResultFile } from '../../bench/lib/report.js';
import { runBenchmark } from '../../bench/lib/runner.js';
import { BENCHMARKS } from '../../bench/registry.js';

/**
 * The `cluster` benchmark at `--quick` size (test/integration/bench-smoke.test.ts runs the others; this one
 * brings up a cluster, so it runs in this tier): its own dev server and its own cluster, the same loads on both.
 * Every call of every load is read back, on both servers; no figure is compared with a time.
 */
describe('the cluster benchmark at --quick size', () => {
  const out = mkdtempSync(join(tmpdir(), 'model-retry-bench-cluster-'));
  let ctx: BenchContext;

  beforeAll(async () => {
    ctx = await openBenchContext({ size: 'quick', log: () => undefined });
  });

  afterAll(async () => {
    await ctx?.close();
    rmSync(out, { recursive: true, force: true });
  });

  it('runs the concurrency load and the scale load on the dev server and on the cluster, side by side', async () => {
    const benchmark = BENCHMARKS.find((b) => b.name === 'cluster');
    if (!benchmark) throw new Error('no cluster benchmark in bench/registry.ts');
    await runBenchmark(benchmark, ctx, { out });
    const file = JSON.parse(readFileSync(join(out, 'cluster.json'), 'utf8')) as ResultFile;
    for (const table of file.result.tables) {
      expect(table.rows.length, table.title).toBeGreaterThan(0);
      for (const row of table.rows) expect(row, table.title).toHaveLength(table.columns.length);
    }
    const { loads, scale } = file.result.figures as { loads: LoadPair[]; scale: ScaleRuns };
    expect(loads.length).toBeGreaterThan(0);
    for (const load of loads) {
      for (const f of [load.dev, load.cluster]) {
        expect(f.succeeded + f.unfinished).toBe(load.calls);
        expect(f.attempts).toBeGreaterThanOrEqual(load.calls);
        // Server CPU is read on both: the dev server's process, the cluster's services and PostgreSQL.
        expect(f.cpuSeconds.devServer).toBeGreaterThan(0);
      }
    }
    expect(Object.keys(scale).sort()).toEqual(['cluster-floor', 'cluster-ours', 'dev-floor', 'dev-ours']);
    for (const f of Object.values(scale)) {
      expect(f.succeeded + f.failed + f.unfinished).toBe(f.calls);
      expect(f.latencyMs.n).toBe(f.succeeded);
      expect(f.cpuSeconds.server).toBeGreaterThan(0);
    }
    expect(scale['cluster-ours'].succeeded).toBeGreaterThan(0);
    expect(scale['cluster-floor'].succeeded).toBeGreaterThan(0);
  });
});
