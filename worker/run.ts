import { NativeConnection } from '@temporalio/worker';
import { loadTemporalTarget } from './connection.js';
import { installMetricsRuntime } from './metrics.js';
import { createDataConverter, describePayloadSettings } from '../payloads/data-converter.js';
import type { PayloadSettings } from '../payloads/data-converter.js';
import { createModelRetryWorkers } from './worker.js';
import { tracingFromEnv } from './tracing.js';
import type { ActivityDeps } from '../activities/index.js';

export interface RunWorkerOptions {
  taskQueue: string;
  shutdownGraceMs: number;
  /** The heartbeat cadence (`heartbeatThrottleMs`). @default 5000 */
  heartbeatMs?: number;
  deps?: ActivityDeps;
  log?: (line: string) => void;
  /** HOST:PORT to serve Prometheus metrics on (`/metrics`); none when absent. */
  metricsAddress?: string;
  /** Payload encryption and store (`payloadSettingsFromEnv()`); none when absent. */
  payloads?: PayloadSettings;
}

/**
 * The `model-retry worker` process: connects by Temporal's conventions, polls one task queue until SIGINT or
 * SIGTERM, then shuts down gracefully (in-flight requests get `shutdownGraceMs` to finish; a second Ctrl-C
 * exits at once). The connection is closed whatever happens.
 */
export async function runWorkerProcess(options: RunWorkerOptions): Promise<void> {
  const log = options.log ?? ((line: string) => console.error(line));
  const target = loadTemporalTarget();
  const tracing = tracingFromEnv();
  if (tracing) log(`model-retry worker: traces to ${tracing.settings.url} (${tracing.settings.protocol})`);
  if (options.metricsAddress) {
    installMetricsRuntime(options.metricsAddress);
    log(`model-retry worker: Prometheus metrics on http://${options.metricsAddress}/metrics`);
  }
  const connection = await NativeConnection.connect(target.connectionOptions);
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals === 1) {
      log(
        `model-retry worker: ${signal} received, finishing in-flight work (up to ${options.shutdownGraceMs} ms); again to exit now`,
      );
    } else {
      log('model-retry worker: exiting now');
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const workers = await createModelRetryWorkers({
      connection,
      namespace: target.namespace,
      taskQueue: options.taskQueue,
      shutdownGraceMs: options.shutdownGraceMs,
      ...(options.heartbeatMs !== undefined ? { heartbeatThrottleMs: options.heartbeatMs } : {}),
      warn: log,
      ...(options.deps ? { deps: options.deps } : {}),
      ...(options.payloads ? { dataConverter: createDataConverter(options.payloads) } : {}),
      ...(tracing ? { plugins: [tracing.plugin] } : {}),
    });
    const payloads = options.payloads && describePayloadSettings(options.payloads);
    if (payloads) log(`model-retry worker: ${payloads}`);
    log(
      `model-retry worker: polling task queue "${options.taskQueue}" on ${target.connectionOptions.address} ` +
        `(namespace ${target.namespace}); Ctrl-C to stop`,
    );
    for (const limited of workers.limitWorkers) {
      log(`model-retry worker: polling limit queue "${limited.options.taskQueue}" too`);
    }
    await workers.run();
    log('model-retry worker: stopped');
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await connection.close();
    await tracing?.shutdown();
  }
}
