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
  // The benchmark's progress lines, shown with a failed check: which server, which load, how long.
  const lines: string[] = [];

  beforeAll(async () => {
    ctx = await openBenchContext({ size: 'quick', log: (line) => lines.push(line) });
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
      for (const [server, f] of [['dev', load.dev] as const, ['cluster', load.cluster] as const]) {
        const seen = `${server}: ${JSON.stringify({ ...f, latencyMs: undefined })}\n${lines.join('\n')}`;
        expect(f.succeeded + f.unfinished, seen).toBe(load.calls);
        expect(f.attempts, seen).toBeGreaterThanOrEqual(load.calls);
        // Server CPU is read on both: the dev server's process, the cluster's services and PostgreSQL.
        expect(f.cpuSeconds.devServer).toBeGreaterThan(0);
      }
    }
    expect(Object.keys(scale).sort()).toEqual(['cluster-floor', 'cluster-ours', 'dev-floor', 'dev-ours']);
    for (const [name, f] of Object.entries(scale)) {
      const seen = `${name}: ${JSON.stringify({ ...f, latencyMs: undefined })}\n${lines.join('\n')}`;
      expect(f.succeeded + f.failed + f.unfinished, seen).toBe(f.calls);
      expect(f.latencyMs.n, seen).toBe(f.succeeded);
      expect(f.cpuSeconds.server, seen).toBeGreaterThan(0);
    }
    expect(scale['cluster-ours'].succeeded).toBeGreaterThan(0);
    expect(scale['cluster-floor'].succeeded).toBeGreaterThan(0);
  });
});
