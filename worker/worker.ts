import { Runtime, Worker } from '@temporalio/worker';
import type { NativeConnection, WorkerPlugin, WorkflowBundleOption } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { createActivities } from '../activities/index.js';
import type { ActivityDeps } from '../activities/index.js';
import {
  checkSearchAttributes,
  readinessOf,
  rememberSearchAttributeCheck,
} from '../activities/search-attributes.js';
import { searchAttributeWarning } from '../activities/search-attribute-warning.js';
import { HEARTBEAT_INTERVAL_MS } from '../activities/heartbeat.js';
import { checkHeartbeatMs } from '../common/heartbeat.js';
import { DEFAULT_SHUTDOWN_GRACE_MS } from './config.js';
import { otherTuning, workerSlots } from './tuning.js';
import type { WorkerTuning } from './tuning.js';
import { ClaimCheckCodec } from '../payloads/claim-check-codec.js';
import { providersFromEnv } from '../activities/providers/registry.js';
import type { LimitsByKey } from '../common/limits.js';
import { createLimitWorkers, rateLimitedKeys, workerGroup } from './limit-workers.js';
import type { LimitWorkerBase, ModelRetryWorkers } from './limit-workers.js';
import { modelRetryWebpackConfigHook } from '../plugin/bundle.js';
import { workflowsModulePath } from '../plugin/own-files.js';

export type { ModelRetryWorkers } from './limit-workers.js';

/** Path of the workflows entry, as TypeScript source (tsx, tests) or compiled JavaScript (dist). */
export function workflowsPath(): string {
  return workflowsModulePath('index');
}

export interface ModelRetryWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** What the activities need (providers, tools, tenants: see `ActivityDeps`). */
  deps?: ActivityDeps;
  /**
   * A prebuilt bundle (tests build it once); by default the workflows are bundled at start, with
   * `modelRetryWebpackConfigHook` (give a prebuilt bundle the same hook: fewer modules to instantiate per run).
   */
  workflowBundle?: WorkflowBundleOption;
  /** @default 60000 */
  shutdownGraceMs?: number;
  identity?: string;
  /**
   * Where the start-up warning goes when model-retry's search attributes are not registered on the namespace
   * (the worker starts anyway; see `checkWorkerSearchAttributes`). @default the Temporal runtime's logger
   */
  warn?: (message: string) => void;
  /**
   * Payload codecs and failure converter (`createDataConverter`, `dataConverterFromEnv`): encryption and the
   * payload store. With encryption, a prebuilt `workflowBundle` must have been built with the same
   * `failureConverterPath`, or the workflow's own failures stay in clear text. @default Temporal's default
   */
  dataConverter?: DataConverter;
  /**
   * The heartbeat cadence `c`: the worker's `maxHeartbeatThrottleInterval`, how often its attempts and tools
   * heartbeat (the first time after this long), and so how soon an attempt in flight learns of its cancellation
   * (within c plus a round trip). Workflows give attempts a heartbeat timeout of 3c, so a lost worker is known
   * within 3c. Each recorded heartbeat is an action Temporal Cloud bills: lower it for faster cancels, raise it
   * for fewer actions. @default 5000 (`HEARTBEAT_INTERVAL_MS`)
   */
  heartbeatThrottleMs?: number;
  /**
   * Slots, pollers and cache. A slot count given here (`maxConcurrent*Executions`) fixes the slots; without
   * one, activity slots are resource-based (`ACTIVITY_SLOTS`, worker/tuning.ts).
   */
  tuning?: WorkerTuning;
  /**
   * Worker plugins, e.g. tracing (`tracingFromEnv()?.plugin`, or Temporal's own `OpenTelemetryPlugin` with
   * your span processor). A plugin that adds workflow interceptor modules needs the workflows bundled at start:
   * a prebuilt `workflowBundle` must have been built with them (`workflowInterceptorModules`).
   */
  plugins?: WorkerPlugin[];
}

export { ACTIVITY_SLOTS, otherTuning, workerSlots } from './tuning.js';
export type { WorkerTuning } from './tuning.js';

/**
 * A Temporal worker that runs model-retry's workflows and activities on one task queue.
 * @throws Error when the providers have a `requestsPerSecond` limit: their limit queues need
 * `createModelRetryWorkers`, which polls them too.
 */
export async function createModelRetryWorker(options: ModelRetryWorkerOptions): Promise<Worker> {
  const { base, limits } = prepare(options);
  const limited = rateLimitedKeys(limits).map(([key]) => key);
  if (limited.length > 0) {
    throw new Error(
      `model-retry: the providers have requestsPerSecond limits (${limited.join(', ')}): use createModelRetryWorkers, which also polls their limit queues`,
    );
  }
  await checkWorkerSearchAttributes(options);
  return mainWorker(options, base);
}

/**
 * model-retry's workers of one process: the main task queue's, and one activity-only worker per rate-limited
 * backend or provider of the providers file (its limit queue, `<taskQueue>/limit/<key>`), on one connection and
 * sharing one set of activities (so `maxInFlight` holds for the process). Run them with `run()`.
 */
export async function createModelRetryWorkers(options: ModelRetryWorkerOptions): Promise<ModelRetryWorkers> {
  const { base, limits } = prepare(options);
  await checkWorkerSearchAttributes(options);
  const worker = await mainWorker(options, base);
  const limitWorkers = await createLimitWorkers(base, options.taskQueue, limits, options.warn);
  return workerGroup(worker, limitWorkers);
}

/** The options every worker of the process shares, and the providers' limits. */
function prepare(options: ModelRetryWorkerOptions): { base: LimitWorkerBase; limits: LimitsByKey } {
  const deps = options.deps ?? {};
  const heartbeatMs =
    options.heartbeatThrottleMs === undefined
      ? HEARTBEAT_INTERVAL_MS
      : checkHeartbeatMs(options.heartbeatThrottleMs, 'heartbeatThrottleMs');
  const providers = deps.providers ?? providersFromEnv(deps.env ?? process.env);
  const claims = (options.dataConverter?.payloadCodecs ?? []).find(
    (codec): codec is ClaimCheckCodec => codec instanceof ClaimCheckCodec,
  );
  const activities = createActivities({
    // An attempt heartbeats as often as the worker lets its heartbeats through, no more.
    heartbeatIntervalMs: heartbeatMs,
    ...deps,
    providers,
    payloadStore: deps.payloadStore ?? claims !== undefined,
    ...(deps.payloadStoreThresholdBytes === undefined && claims !== undefined
      ? { payloadStoreThresholdBytes: claims.thresholdBytes }
      : {}),
  });
  const base: LimitWorkerBase = {
    connection: options.connection,
    namespace: options.namespace,
    activities,
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
    shutdownGraceTime: options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
    // Attempts learn of cancellation only through heartbeat responses: let each heartbeat through (every c), so
    // a host's cancel aborts the request in flight within c plus a round trip.
    maxHeartbeatThrottleInterval: heartbeatMs,
    ...(options.heartbeatThrottleMs !== undefined ? { defaultHeartbeatThrottleInterval: heartbeatMs } : {}),
    // Resource-based activity slots unless the user fixed a count; one controller for all workers of the call.
    ...workerSlots(options.tuning),
    ...(options.identity ? { identity: options.identity } : {}),
  };
  return { base, limits: providers.limits?.() ?? {} };
}

function mainWorker(options: ModelRetryWorkerOptions, base: LimitWorkerBase): Promise<Worker> {
  return Worker.create({
    ...base,
    taskQueue: options.taskQueue,
    ...(options.workflowBundle
      ? { workflowBundle: options.workflowBundle }
      : {
          workflowsPath: workflowsPath(),
          bundlerOptions: { webpackConfigHook: modelRetryWebpackConfigHook() },
        }),
    ...otherTuning(options.tuning),
    ...(options.identity ? { identity: options.identity } : {}),
    ...(options.plugins?.length ? { plugins: options.plugins } : {}),
  });
}

/**
 * At start, asks the namespace whether model-retry's search attributes are registered. If not (or if the
 * worker may not ask), it warns with the command that registers them and starts anyway: calls work without
 * them (our workflows then skip setting them, see `workflows/call/call-stop.ts`), and a user's namespace may be one
 * the worker has no operator rights on. The answer also primes the `searchAttributesReady` activity.
 */
export async function checkWorkerSearchAttributes(
  options: Pick<ModelRetryWorkerOptions, 'connection' | 'namespace' | 'warn'>,
): Promise<boolean> {
  const check = await checkSearchAttributes(options.connection.operatorService, options.namespace);
  if (!check.error) rememberSearchAttributeCheck(options.namespace, readinessOf(check));
  const warning = searchAttributeWarning(check, options.namespace);
  if (warning)
    (options.warn ?? ((m: string) => Runtime.instance().logger.warn(m)))(`model-retry worker: ${warning}`);
  return check.ready;
}
