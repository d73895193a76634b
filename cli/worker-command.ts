import { ProvidersConfigError } from '../activities/providers/config.js';
import { PROVIDERS_FILE_ENV, loadProvidersFile, providersFromEnv } from '../activities/providers/registry.js';
import type { ProviderRegistry } from '../activities/providers/registry.js';
import { TENANTS_FILE_ENV, TenantsConfigError, readTenantsFile } from '../activities/tenants/config.js';
import type { TenantsConfig } from '../common/tenants.js';
import { resolveHeartbeatMs, resolveShutdownGraceMs, resolveTaskQueue } from '../worker/config.js';
import { resolveMetricsAddress } from '../worker/metrics.js';
import { payloadSettingsFromEnv } from '../payloads/data-converter.js';
import { UsageError, parseCommandArgs } from './args.js';
import { WORKER_HELP } from './help.js';

/**
 * `model-retry worker [--providers FILE] [--tenants FILE] [--task-queue Q] [--shutdown-grace-ms MS] [--heartbeat-ms MS] [--metrics HOST:PORT] [--health]`:
 * loads the providers file (the flag, else `MODEL_RETRY_PROVIDERS`) and the tenants file (the flag, else
 * `MODEL_RETRY_TENANTS`) before connecting, refusing a bad one (exit 2, naming each problem), then runs the worker
 * with them until SIGINT/SIGTERM.
 */
export async function runWorkerCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('worker', args, {
    providers: { type: 'string' },
    tenants: { type: 'string' },
    'task-queue': { type: 'string' },
    'shutdown-grace-ms': { type: 'string' },
    'heartbeat-ms': { type: 'string' },
    metrics: { type: 'string' },
    health: { type: 'boolean' },
  });
  if (values.help) {
    process.stdout.write(WORKER_HELP);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}.`);
  const taskQueue = resolveTaskQueue(values['task-queue']);
  const shutdownGraceMs = resolveShutdownGraceMs(values['shutdown-grace-ms']);
  const heartbeatMs = resolveHeartbeatMs(values['heartbeat-ms']);
  const metricsAddress = resolveMetricsAddress(values.metrics);
  const providers = loadProviders(values.providers);
  const tenants = loadTenants(values.tenants);
  const payloads = payloadSettingsFromEnv();
  const { runWorkerProcess } = await import('../worker/run.js');
  await runWorkerProcess({
    taskQueue,
    shutdownGraceMs,
    heartbeatMs,
    // Without --health, MODEL_RETRY_HEALTH=on turns it on (read by createActivities).
    deps: {
      providers,
      ...(tenants ? { tenants } : {}),
      ...(values.health === true ? { health: {} } : {}),
    },
    payloads,
    ...(metricsAddress ? { metricsAddress } : {}),
  });
  return 0;
}

/** The registry from `--providers`, else from `MODEL_RETRY_PROVIDERS`, else the built-in providers only. */
function loadProviders(flag: string | undefined): ProviderRegistry {
  const path = flag ?? process.env[PROVIDERS_FILE_ENV];
  const source = flag !== undefined ? '--providers' : PROVIDERS_FILE_ENV;
  if (flag !== undefined && flag.trim() === '') {
    throw new UsageError('`--providers` is empty: give the path of a providers JSON file.');
  }
  try {
    const registry = path === undefined || path.trim() === '' ? providersFromEnv() : loadProvidersFile(path);
    process.stderr.write(
      `model-retry worker: providers ${registry.names().join(', ') || '(none)'}` +
        `${path ? ` (from ${path}, named by ${source})` : ''}\n`,
    );
    return registry;
  } catch (error) {
    if (error instanceof ProvidersConfigError) {
      // Without a file, the built-in providers come from the environment (keys, *_BASE_URL): say so.
      if (path === undefined || path.trim() === '') {
        throw new UsageError(
          `the built-in providers (no providers file: neither --providers nor ${PROVIDERS_FILE_ENV} is set) ` +
            `cannot be used with this environment: ${error.message}\n` +
            'Fix the variable it names (see docs/guide/providers.md) and start the worker again.',
        );
      }
      throw new UsageError(
        `the providers file named by ${source} cannot be used: ${error.message}\n` +
          'Fix the file (see docs/guide/providers.md) and start the worker again.',
      );
    }
    throw error;
  }
}

/** The tenants file from `--tenants`, else from `MODEL_RETRY_TENANTS`; none when neither names one. */
function loadTenants(flag: string | undefined): TenantsConfig | undefined {
  if (flag !== undefined && flag.trim() === '') {
    throw new UsageError('`--tenants` is empty: give the path of a tenants JSON file.');
  }
  const path = flag ?? process.env[TENANTS_FILE_ENV];
  if (path === undefined || path.trim() === '') return undefined;
  const source = flag !== undefined ? '--tenants' : TENANTS_FILE_ENV;
  try {
    const tenants = readTenantsFile(path);
    process.stderr.write(
      `model-retry worker: tenants ${Object.keys(tenants).join(', ') || '(none)'} (from ${path}, named by ${source})\n`,
    );
    return tenants;
  } catch (error) {
    if (!(error instanceof TenantsConfigError)) throw error;
    throw new UsageError(
      `the tenants file named by ${source} cannot be used: ${error.message}\n` +
        'Fix the file (see docs/operations/configuration.md) and start the worker again.',
    );
  }
}
