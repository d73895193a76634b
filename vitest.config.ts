import { defineConfig } from 'vitest/config';
import type { TestProjectInlineConfiguration } from 'vitest/config';

/**
 * The cluster tier (`npm run test:cluster`, which sets MODEL_RETRY_CLUSTER_TIER=1; not part of `npm test`): the
 * chaos files and the scenario suite (on a fixed seed) again, with every Temporal server a cluster of separate
 * service processes on PostgreSQL (`test/harness/cluster/`), and test/cluster (service kills, PostgreSQL restarts,
 * Toxiproxy partitions and transport faults). One file at a time: kills and partitions must not share the
 * machine with another file's load.
 */
const cluster: TestProjectInlineConfiguration = {
  test: {
    name: 'cluster',
    include: ['test/cluster/**/*.test.ts', 'test/chaos/**/*.test.ts', 'test/scenario/**/*.test.ts'],
    globalSetup: ['test/harness/global-setup.ts'],
    setupFiles: ['test/harness/setup-runtime.ts', 'test/harness/no-secrets-setup.ts'],
    env: { MODEL_RETRY_TEST_SERVER: 'cluster', SCENARIO_SEED: '20261202', SCENARIO_RUNS: '20' },
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
};

/**
 * Projects: `unit` (pure code and history replay, no server), `integration` (one real Temporal dev server per
 * run, started by the global setup), `scenario` (the randomized suite, after integration), `chaos` (killed processes, servers of their own, after the others) and
 * `browser` (headless Chromium on the Temporal Web UI and our HTML timeline, last).
 * `npm test` runs them all; `vitest run --project unit` runs only the fast ones.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          // test/replay replays recorded histories against the workflow bundle: no server needed.
          include: ['test/unit/**/*.test.ts', 'test/replay/**/*.test.ts'],
          // Some unit tests spawn the CLI or a loopback server: a busy machine must slow them, not fail them.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/harness/global-setup.ts'],
          // no-secrets-setup: after each file, its workflows' histories are scanned for the test credentials.
          setupFiles: ['test/harness/setup-runtime.ts', 'test/harness/no-secrets-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          // The randomized scenario suite (test/scenario): a dev server of its own (the integration setup), after
          // the integration files so that its cases never share the machine with them. SCENARIO_SEED / _RUNS /
          // _PATH / _SHRINK: see test/scenario/scenarios.test.ts.
          name: 'scenario',
          include: ['test/scenario/**/*.test.ts'],
          globalSetup: ['test/harness/global-setup.ts'],
          setupFiles: ['test/harness/setup-runtime.ts', 'test/harness/no-secrets-setup.ts'],
          sequence: { groupOrder: 1 },
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          // Real processes killed -9: each file starts its own dev server (on a SQLite file of its own) and its
          // own `model-retry worker` processes. One file at a time, after the other projects, so that no other
          // test's load runs beside a kill.
          name: 'chaos',
          include: ['test/chaos/**/*.test.ts'],
          setupFiles: ['test/harness/setup-runtime.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
          testTimeout: 240_000,
          hookTimeout: 240_000,
        },
      },
      {
        test: {
          // A real browser (Debian's chromium through playwright-core) on a dev server of its own with the Web UI;
          // after the chaos files, so that its load never runs beside theirs.
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          setupFiles: ['test/harness/setup-runtime.ts'],
          sequence: { groupOrder: 3 },
          testTimeout: 180_000,
          hookTimeout: 240_000,
        },
      },
      ...(process.env.MODEL_RETRY_CLUSTER_TIER === '1' ? [cluster] : []),
    ],
  },
});
