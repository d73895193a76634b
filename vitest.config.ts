import { defineConfig } from 'vitest/config';

/**
 * Two projects: `unit` (pure code, no server) and `integration` (one real Temporal dev server per run,
 * started by the global setup). `npm test` runs both; `vitest run --project unit` runs only the fast ones.
 */
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Some unit tests spawn the CLI or a loopback server: a busy machine must slow them, not fail them.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/harness/global-setup.ts'],
          setupFiles: ['test/harness/setup-runtime.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
