/** Defaults shared by the worker process, the command line and the tests. */

import { ConfigError } from '../common/config-error.js';
import { DEFAULT_HEARTBEAT_MS, MIN_HEARTBEAT_MS } from '../common/heartbeat.js';

export { ConfigError };

/** Task queue used when neither `--task-queue` nor `MODEL_RETRY_TASK_QUEUE` is given. */
export const DEFAULT_TASK_QUEUE = 'model-retry';

/**
 * How long a worker that was asked to stop waits for in-flight activities (model requests) to finish before
 * cancelling them. An attempt cut short this way is recorded as `WorkerLost` and retried per the plan.
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 60_000;

export function resolveTaskQueue(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = flag ?? env.MODEL_RETRY_TASK_QUEUE ?? DEFAULT_TASK_QUEUE;
  if (value.trim() === '')
    throw new ConfigError(
      'the task queue is empty: pass `--task-queue NAME` or unset MODEL_RETRY_TASK_QUEUE',
    );
  return value;
}

export function resolveShutdownGraceMs(flag?: string, env: NodeJS.ProcessEnv = process.env): number {
  const raw = flag ?? env.MODEL_RETRY_SHUTDOWN_GRACE_MS;
  if (raw === undefined) return DEFAULT_SHUTDOWN_GRACE_MS;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms < 0) {
    throw new ConfigError(`\`--shutdown-grace-ms\` must be a number of milliseconds >= 0 (got "${raw}")`);
  }
  return ms;
}

/**
 * The worker's heartbeat cadence (`--heartbeat-ms`, else `MODEL_RETRY_HEARTBEAT_MS`, else the default 5000): how
 * soon a cancel reaches an attempt in flight, and how many heartbeat actions a long attempt costs.
 */
export function resolveHeartbeatMs(flag?: string, env: NodeJS.ProcessEnv = process.env): number {
  const raw = flag ?? env.MODEL_RETRY_HEARTBEAT_MS;
  if (raw === undefined) return DEFAULT_HEARTBEAT_MS;
  const ms = raw.trim() === '' ? Number.NaN : Number(raw);
  if (!Number.isInteger(ms) || ms < MIN_HEARTBEAT_MS) {
    throw new ConfigError(
      `\`--heartbeat-ms\` must be a whole number of milliseconds >= ${MIN_HEARTBEAT_MS} (got "${raw}")`,
    );
  }
  return ms;
}

/** Folder for the embedded server's SQLite file and the demo's history exports. */
export function resolveDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.MODEL_RETRY_DATA_DIR ?? '.data';
}
