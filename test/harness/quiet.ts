import { DefaultLogger, Runtime } from '@temporalio/worker';

const noop = () => undefined;

/**
 * Webpack's logger for a workflow bundle built by a test, a benchmark or a profile: its errors only. No vitest import
 * here, so bench/profile can use it too.
 */
export const quietBundleLogger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: console.error,
  log: noop,
};

/**
 * Temporal's runtime logging errors only, the Rust core's too: replaying an incompatible history logs its
 * failure, and the replay tests read the results instead. The runtime is one per process: a test file that
 * shares its process with one that installed it already keeps that one.
 */
export function installQuietRuntime(): void {
  try {
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
    });
  } catch {
    // Already installed in this process.
  }
}
