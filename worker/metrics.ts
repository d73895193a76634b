import { Runtime } from '@temporalio/worker';
import { ConfigError } from './config.js';
import { resourceLabels } from './tracing.js';

/** The variable that turns the worker's Prometheus endpoint on (like `model-retry worker --metrics`). */
export const METRICS_ADDRESS_ENV = 'MODEL_RETRY_METRICS_ADDRESS';

/** Buckets (ms) for our duration histograms: attempts and waits run from milliseconds to minutes. */
const MS_BUCKETS = [10, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000, 60_000, 120_000, 300_000];

/** `--metrics HOST:PORT`, else `MODEL_RETRY_METRICS_ADDRESS`, else undefined (no metrics endpoint). */
export function resolveMetricsAddress(
  flag?: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const source = flag !== undefined ? '`--metrics`' : METRICS_ADDRESS_ENV;
  const raw = flag ?? env[METRICS_ADDRESS_ENV];
  if (raw === undefined || (flag === undefined && raw.trim() === '')) return undefined;
  const m = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(raw.trim());
  if (!m || Number(m[2]) > 65_535) {
    throw new ConfigError(
      `${source} must be HOST:PORT to serve Prometheus metrics on, e.g. 127.0.0.1:9464 (got "${raw}")`,
    );
  }
  return raw.trim();
}

/**
 * Installs the Temporal runtime with a Prometheus exporter on `bindAddress` (`/metrics`): Temporal's own worker
 * metrics (`temporal_*`: task latencies, slots, polls, activity and workflow outcomes) and model-retry's
 * (`model_retry_*`, see docs/operations/observability.md). Must run before the worker's connection is made. Every series carries the
 * tracing resource's attributes as labels (`service_name`, and `OTEL_RESOURCE_ATTRIBUTES`), so that metrics and
 * spans name the same service; the metric names do not change.
 */
export function installMetricsRuntime(bindAddress: string): void {
  Runtime.install({
    telemetryOptions: {
      metrics: {
        globalTags: resourceLabels(),
        prometheus: {
          bindAddress,
          histogramBucketOverrides: {
            model_retry_attempt_ms: MS_BUCKETS,
            model_retry_wait_ms: MS_BUCKETS,
          },
        },
      },
    },
  });
}
