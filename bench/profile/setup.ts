/**
 * What every profile script sets up before it measures: Temporal's runtime logging errors only, one dev server
 * (its metrics on a port of their own, for the RPC counts), a workflow bundle, the loopback provider and a
 * registry that reaches it as `local:<model>`, and the connections a client and workers use. Not part of the
 * product.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { WorkflowBundle } from '@temporalio/worker';
import { createProviderRegistry } from '../../activities/providers/registry.js';
import type { ProviderRegistry } from '../../activities/providers/registry.js';
import { startLoopbackProvider } from '../../loopback/index.js';
import type { LoopbackProvider } from '../../loopback/index.js';
import { startDevServer } from '../../worker/dev-server.js';
import type { DevServer } from '../../worker/dev-server.js';
import { freePort } from '../../worker/free-port.js';
import { modelRetryWebpackConfigHook } from '../../plugin/bundle.js';
import { quietBundleLogger } from '../../test/harness/quiet.js';
import { metricsArgs } from './rpc-counts.js';

/** The loopback provider's API key, given to the registry through this variable (never a real key). */
export const PROFILE_KEY_ENV = 'MODEL_RETRY_PROFILE_KEY';
export const PROFILE_KEY = 'sk-loopback-profile-0123456789';
/** Where a profile writes its workflow bundle's code, when set (see `bench/profile/cpu-split.ts`). */
export const PROFILE_BUNDLE_ENV = 'MODEL_RETRY_PROFILE_BUNDLE';

export { quietBundleLogger };

/** Temporal's runtime logging errors only (every scripted fault would otherwise log a warning). */
export function installQuietRuntime(): void {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
}

/** A profile's server, bundle, provider and connections; `close()` ends them all. */
export interface ProfileSetup {
  server: DevServer;
  /** The dev server's `--metrics-port` (`rpcCounts`, `serverRequests`). */
  metricsPort: number;
  bundle: WorkflowBundle;
  lp: LoopbackProvider;
  /** `local` is the loopback provider (OpenAI-compatible), with {@link PROFILE_KEY}. */
  providers: ProviderRegistry;
  native: NativeConnection;
  connection: Connection;
  client: Client;
  close(): Promise<void>;
}

/**
 * Installs the quiet runtime, then starts a dev server (in memory; with `onDisk`, SQLite in a file of a temporary
 * folder, as the bench's), bundles `workflowsPath` and starts the loopback provider, all at once; then connects.
 */
export async function startProfile(options: {
  workflowsPath: string;
  onDisk?: boolean;
  /** Bundle as the product does (`modelRetryWebpackConfigHook`: our modules concatenated into one). */
  asShipped?: boolean;
}): Promise<ProfileSetup> {
  installQuietRuntime();
  const metricsPort = await freePort();
  const dir = options.onDisk ? mkdtempSync(join(tmpdir(), 'profile-')) : undefined;
  const [server, bundle, lp] = await Promise.all([
    startDevServer({
      ...(dir ? { dbFilename: join(dir, 'profile.sqlite') } : {}),
      extraArgs: metricsArgs(metricsPort),
    }),
    bundleWorkflowCode({
      workflowsPath: options.workflowsPath,
      logger: quietBundleLogger,
      ...(options.asShipped ? { webpackConfigHook: modelRetryWebpackConfigHook() } : {}),
    }),
    startLoopbackProvider(),
  ]);
  // For `bench/profile/cpu-split.ts`: the code the workflow thread evaluates, to map its profile's lines.
  const bundleOut = process.env[PROFILE_BUNDLE_ENV];
  if (bundleOut) writeFileSync(bundleOut, bundle.code);
  const local = { type: 'openai-compatible' as const, baseURL: lp.openaiBaseURL, apiKeyEnv: PROFILE_KEY_ENV };
  const providers = createProviderRegistry({ local }, { env: { [PROFILE_KEY_ENV]: PROFILE_KEY } });
  const native = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });
  return {
    server,
    metricsPort,
    bundle,
    lp,
    providers,
    native,
    connection,
    client,
    async close() {
      await native.close();
      await connection.close();
      await lp.close();
      await server.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The histories of the runs `ids` names, fetched from the server, to replay. */
export async function fetchHistories(
  client: Client,
  ids: string[],
): Promise<{ workflowId: string; history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> }[]> {
  return Promise.all(
    ids.map(async (workflowId) => ({
      workflowId,
      history: await client.workflow.getHandle(workflowId).fetchHistory(),
    })),
  );
}
