const noop = () => undefined;

/**
 * Webpack's logger for a workflow bundle built by a test or a profile script: its errors only. No vitest import
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
