import { SimplePlugin } from '@temporalio/plugin';
import type { BundleOptions, NativeConnection, Worker, WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities/index.js';
import type { ActivityDeps } from '../activities/index.js';
import {
  checkSearchAttributes,
  readinessOf,
  rememberSearchAttributeCheck,
} from '../activities/search-attributes.js';
import { searchAttributeWarning } from '../activities/search-attribute-warning.js';
import { settleEveryLease } from '../activities/tenants/leases.js';
import { HEARTBEAT_INTERVAL_MS } from '../activities/heartbeat.js';
import { checkHeartbeatMs } from '../common/heartbeat.js';
import { msToNumber } from '@temporalio/common/lib/time.js';
import { createDataConverter } from '../payloads/data-converter.js';
import type { PayloadSettings } from '../payloads/data-converter.js';
import { modelRetryWebpackConfigHook } from './bundle.js';
import { serviceWorkflows } from './service-workflows.js';
import { workflowsModulePath } from './own-files.js';

/** What `ModelRetryPlugin` gives the Workers and Clients it is passed to. */
export interface ModelRetryPluginOptions {
  /**
   * The options of `createActivities` (providers, tools, health, tenants, ...), passed through unchanged; a Worker
   * gets every activity model-retry's workflows and `durableModel` call. `payloadStore` is set for you when
   * `payloads.payloadStore` is given. @default `{}` (providers from `MODEL_RETRY_PROVIDERS` or the built-ins, the
   * tenants file from `MODEL_RETRY_TENANTS` or none)
   */
  activities?: ActivityDeps;
  /**
   * The data converter of Workers and Clients alike (`createDataConverter`): encryption keys, the payload store
   * (claim-check codec). @default Temporal's own converter
   */
  payloads?: PayloadSettings;
  /**
   * Whether a Worker asks the namespace at start if model-retry's search attributes are registered, and warns
   * with the command that registers them if not (it starts anyway). @default true
   */
  checkSearchAttributes?: boolean;
  /** Where that warning goes. @default console.warn */
  warn?: (message: string) => void;
  /**
   * The heartbeat cadence `c` of its Workers (their `maxHeartbeatThrottleInterval`, and how often attempts and
   * tools heartbeat): a cancel reaches a request within c plus a round trip, a lost worker is known within 3c,
   * and each heartbeat is an action Temporal Cloud bills. A Worker's own `maxHeartbeatThrottleInterval` wins.
   * @default 5000
   */
  heartbeatThrottleMs?: number;
}

/**
 * model-retry as a Temporal plugin (`@temporalio/plugin`'s `SimplePlugin`): pass it to `Worker.create({ plugins })`
 * and `new Client({ plugins })`. A Worker gets the activities and the data converter, its workflow bundle gets the
 * AI SDK's polyfills first (for `model-retry/ai-sdk`), and at start it checks the search attributes; a Client gets
 * the data converter. Its Workers let every attempt heartbeat through at its cadence (`heartbeatThrottleMs`), so a
 * cancel aborts a request within that plus a round trip, and a stopping Worker settles the leases it holds of
 * tenant ledgers and token buckets. It imports only types from `@temporalio/worker`, so a client process can use it.
 */
export class ModelRetryPlugin extends SimplePlugin {
  private worker: { connection?: NativeConnection; namespace: string } | undefined;

  /** The cadence the activities heartbeat at: the Worker's, known only once `configureWorker` has it. */
  private readonly cadence: { ms: number };

  constructor(private readonly settings: ModelRetryPluginOptions = {}) {
    const payloads = settings.payloads;
    const cadence = {
      ms:
        settings.heartbeatThrottleMs === undefined
          ? HEARTBEAT_INTERVAL_MS
          : checkHeartbeatMs(settings.heartbeatThrottleMs, 'heartbeatThrottleMs'),
    };
    super({
      name: 'model-retry',
      ...(payloads ? { dataConverter: createDataConverter(payloads) } : {}),
      // A function, so a Client never builds activities (nor reads the providers and tenants files).
      activities: (existing) => ({
        ...createActivities({
          ...(payloads?.payloadStore
            ? {
                payloadStore: true,
                ...(payloads.claimThresholdBytes !== undefined
                  ? { payloadStoreThresholdBytes: payloads.claimThresholdBytes }
                  : {}),
              }
            : {}),
          heartbeatIntervalMs: cadence.ms,
          ...settings.activities,
        }),
        ...existing,
      }),
    });
    this.cadence = cadence;
    this.ownMs = cadence.ms;
  }

  /** The plugin's own cadence (`heartbeatThrottleMs`, else the default). */
  private readonly ownMs: number;

  override configureWorker(options: WorkerOptions): WorkerOptions {
    this.worker = {
      ...(options.connection ? { connection: options.connection } : {}),
      namespace: options.namespace ?? 'default',
    };
    // Attempts learn of a cancel only through heartbeat responses: let each through (as `createModelRetryWorker`
    // does), so a host's cancel aborts the request in flight within c plus a round trip. A worker's own setting
    // wins, and the activities (built below, by `super`) then heartbeat at its cadence, which they also tell the
    // workflows (`modelRetryConfig`), so attempts get a heartbeat timeout of 3 times it.
    // Worked out for each Worker: one plugin may serve several, and a Worker without a setting of its own takes
    // the plugin's, not the one a Worker before it set.
    this.cadence.ms =
      options.maxHeartbeatThrottleInterval === undefined
        ? this.ownMs
        : checkHeartbeatMs(msToNumber(options.maxHeartbeatThrottleInterval), 'maxHeartbeatThrottleInterval');
    return super.configureWorker({
      ...options,
      maxHeartbeatThrottleInterval: this.cadence.ms,
      defaultHeartbeatThrottleInterval: options.defaultHeartbeatThrottleInterval ?? this.cadence.ms,
    });
  }

  override async runWorker(worker: Worker, next: (w: Worker) => Promise<void>): Promise<void> {
    if (this.settings.checkSearchAttributes !== false && this.worker?.connection) {
      const { connection, namespace } = this.worker;
      const check = await checkSearchAttributes(connection.operatorService, namespace);
      if (!check.error) rememberSearchAttributeCheck(namespace, readinessOf(check));
      const warning = searchAttributeWarning(check, namespace);
      if (warning) (this.settings.warn ?? console.warn)(`model-retry worker: ${warning}`);
    }
    try {
      return await super.runWorker(worker, next);
    } finally {
      // What the stopped Worker leased from tenant ledgers and token buckets and no longer needs goes back now,
      // while your connection is still open, instead of staying counted until its period renews. A connection the
      // Worker opened itself is closed by now: the signals then fail, and the leases stay counted, as a killed
      // worker's do.
      await settleEveryLease().catch(() => undefined);
    }
  }

  /**
   * Puts the AI SDK's polyfills first in the bundle, before any workflow module (and `ai`) is evaluated, and
   * concatenates model-retry's own modules (`modelRetryWebpackConfigHook`: fewer modules to instantiate per run).
   * Adds the workflows model-retry starts on the worker's task queue by itself (`serviceWorkflows`): fleet health
   * and tenant ledgers.
   */
  override configureBundler(options: BundleOptions): BundleOptions {
    const base = super.configureBundler(options);
    const hook = modelRetryWebpackConfigHook(base.webpackConfigHook);
    const services = serviceWorkflows(base.workflowsPath);
    return {
      ...base,
      webpackConfigHook: (config) => {
        const cfg = hook(config);
        const entry = cfg.entry;
        const entries = Array.isArray(entry) ? entry : typeof entry === 'string' ? [entry] : [];
        const plugins = [...(cfg.plugins ?? []), services] as typeof cfg.plugins;
        return { ...cfg, entry: [aiSdkPreloadPath(), ...entries], plugins };
      },
    };
  }
}

/** Path of `workflows/ai-sdk/preload` (TypeScript in a checkout, JavaScript once built). */
export function aiSdkPreloadPath(): string {
  return workflowsModulePath('ai-sdk/preload');
}
